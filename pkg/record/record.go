// Package record builds the state record kept for a resource after a write
// or an import: L, the desired body with every secret hashed, and B, the
// live body right after the write projected onto the paths the manifest
// owns, with secrets hashed the same way. Apply, repair and import all call
// Build so the three-way diff sees one shape of record whoever wrote it.
//
// A value is secret when the one rule (secret.Rule) says so: valueFrom paths
// (Input.SecretPaths), schema marks, the type's secret paths, credential
// names and containers; or when it equals a secret value of the same
// resource found at another path (ARM echoing a secret elsewhere). Secrets
// are stored as secret.Hash(secret.ResourceKey(key, ID), hashPath, value)
// (the schema path with map keys kept, schema.HashPathOf)
// so a later desired value can be compared with L and a later live value
// with B without either holding the clear value, and equal secrets of two
// resources or two paths do not share a hash.
package record

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// Input is everything Build needs for one resource.
type Input struct {
	ID, Type, APIVersion string
	// Subscription defaults to the subscription in ID.
	Subscription string
	// Set is the manifest set name (for prune); Origin is file#doc.
	Set, Origin string
	// Desired is D as sent (secrets in clear are allowed; they are hashed).
	Desired map[string]any
	// SecretPaths are the body paths (dotted, array items as [index]) whose
	// values came from valueFrom, as manifest.Resource.SecretPaths.
	SecretPaths []string
	// Live is the body read right after the write (or at import).
	Live map[string]any
	// Owned are the owned paths to project Live onto; nil means
	// diff.Owned(Desired, nil). Pass the diff's Result.Owned when known:
	// it carries array identifiers from the schema.
	Owned []string
	Etag  string
	// Schema and Plugin describe the type at APIVersion; both may be nil.
	Schema *schema.Type
	Plugin diff.Plugin
	// Key is the state's secret key (state.Store.SecretKey).
	Key []byte
	// Updated defaults to now.
	Updated time.Time
}

// Build returns the record to Put after a successful write or an import.
// Neither L nor B holds a clear secret.
func Build(in Input) (*state.Record, error) {
	if in.ID == "" {
		return nil, errors.New("record: no resource ID (bug in the caller)")
	}
	if len(in.Key) == 0 {
		return nil, fmt.Errorf("record %s: no state secret key; read it with Store.SecretKey before recording", armid.Printable(in.ID))
	}
	sub := strings.ToLower(in.Subscription)
	if sub == "" {
		sub = armid.SubscriptionOf(in.ID)
	}
	updated := in.Updated
	if updated.IsZero() {
		updated = time.Now().UTC()
	}
	h := newHasher(in)
	lastApplied := h.hash(in.Desired, true)
	owned := in.Owned
	if owned == nil {
		owned = diff.Owned(in.Desired, nil)
	}
	var baseline map[string]any
	if in.Live != nil {
		baseline = h.hash(diff.Project(in.Live, owned), false)
	}
	return &state.Record{
		ID: in.ID, Type: in.Type, APIVersion: in.APIVersion, Subscription: sub,
		Set: in.Set, Origin: in.Origin,
		LastApplied: lastApplied, Baseline: baseline,
		Etag: in.Etag, Updated: updated,
	}, nil
}

// hasher applies the secret rule (secret.Rule) to a body. Schema paths are
// computed the way the diff computes them (map members become "*"), so a
// hash made here equals the one the diff makes when it compares a clear
// value with it.
type hasher struct {
	in      Input
	key     []byte // the per-resource key (secret.ResourceKey)
	rule    *secret.Rule
	fromEnv map[string]bool      // valueFrom body paths, as the loader joins them
	maps    map[schema.Path]bool // schema paths whose members are map entries
	clear   map[string]bool      // clear secret values seen in Desired
}

func newHasher(in Input) *hasher {
	typ, name := in.Type, ""
	if pid, err := armid.Parse(in.ID); err == nil {
		name = pid.Name()
		if typ == "" {
			typ = pid.Type()
		}
	}
	h := &hasher{in: in, key: secret.ResourceKey(in.Key, in.ID), fromEnv: map[string]bool{},
		maps: diff.MapPaths(in.Schema, in.Plugin), clear: map[string]bool{},
		rule: secret.For(typ, name, diff.RuleFacts(in.Schema), in.SecretPaths...)}
	for _, p := range in.SecretPaths {
		h.fromEnv[p] = true
	}
	return h
}

// hash returns a hashed deep copy of body. With collect, the clear values it
// hashes are remembered, so the same value found elsewhere (B, or another
// path of L) is hashed too.
func (h *hasher) hash(body map[string]any, collect bool) map[string]any {
	if body == nil {
		return nil
	}
	out := h.walkMap(body, nil, "", "", false, collect)
	// Second pass: values equal to one of this resource's secrets, wherever
	// they appear. (Not the run's secret registry: a short value
	// registered for one resource would hash "Enabled" in every other.)
	return h.walkMap(out, nil, "", "", false, false)
}

func (h *hasher) walkMap(m map[string]any, p bodypath.Path, bodyPath string, sp schema.Path, under, collect bool) map[string]any {
	out := make(map[string]any, len(m))
	isMap := h.maps[sp]
	for k, v := range m {
		csp := sp.Child(k, isMap)
		cbp := joinPath(bodyPath, k)
		cp := append(p[:len(p):len(p)], bodypath.Field(k))
		if under && (k == "name" || k == "id" || k == "type") {
			out[k] = diff.CopyValue(v) // identifiers of secret entries are not secret
			continue
		}
		out[k] = h.walkValue(v, cp, cbp, csp, under, collect)
	}
	return out
}

func (h *hasher) walkValue(v any, p bodypath.Path, bodyPath string, sp schema.Path, under, collect bool) any {
	under = under || h.fromEnv[bodyPath]
	switch t := v.(type) {
	case nil:
		return nil
	case map[string]any:
		return h.walkMap(t, p, bodyPath, sp, under, collect)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = h.walkValue(e, append(p[:len(p):len(p)], bodypath.At(i)), bodyPath+"["+strconv.Itoa(i)+"]", sp.Item(), under, collect)
		}
		return out
	}
	if secret.IsHash(v) {
		return v
	}
	if under || h.rule.At(p, v) {
		if s, ok := v.(string); ok && collect && s != "" {
			h.clear[s] = true
		}
		return secret.Hash(h.key, h.hashPath(p), v)
	}
	if s, ok := v.(string); ok && len(s) >= 4 && h.clear[s] {
		return secret.Hash(h.key, h.hashPath(p), v)
	}
	return v
}

// hashPath is the path a secret at p is hashed under: its schema path
// with map keys kept, so two tags holding one value do not share a hash
// (docs/secrets.md). The diff compares with the same path.
func (h *hasher) hashPath(p bodypath.Path) string {
	return schema.HashPathOf(p, func(sp schema.Path) bool { return h.maps[sp] })
}

// joinPath builds a body path the way the manifest loader names
// SecretPaths.
func joinPath(base, k string) string {
	if base == "" || k == "" {
		return base + k
	}
	return base + "." + k
}
