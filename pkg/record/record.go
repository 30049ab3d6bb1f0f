// Package record builds the state record kept for a resource after a write
// or an import: L, the desired body with every secret hashed, and B, the
// live body right after the write projected onto the paths the manifest
// owns, with secrets hashed the same way. Apply, repair and import all call
// Build so the three-way diff sees one shape of record whoever wrote it.
//
// A value is secret when it came from valueFrom (Input.SecretPaths), when the
// schema marks its path secret, when its property name holds credentials
// (secret.Name), when it lies inside a credential container
// (secret.Container), or when it equals a secret value of the same
// resource found at another path (ARM echoing a secret elsewhere). Secrets are stored as secret.Hash(key, schemaPath, value)
// so a later desired value can be compared with L and a later live value with
// B without either holding the clear value.
package record

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
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

// hasher applies the secret rule to a body. Schema paths are computed the
// way the diff computes them (map members become "*"), so a hash made here
// equals the one the diff makes when it compares a clear value with it.
type hasher struct {
	in      Input
	typed   map[string]bool // schema paths secret for this type under neutral names
	fromEnv map[string]bool // valueFrom body paths
	maps    map[string]bool // schema paths whose members are map entries
	clear   map[string]bool // clear secret values seen in Desired
}

func newHasher(in Input) *hasher {
	h := &hasher{in: in, fromEnv: map[string]bool{}, maps: diff.MapPaths(in.Schema, in.Plugin), clear: map[string]bool{},
		typed: neutralSecretPaths(in.Type, in.ID)}
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
	out := h.walkMap(body, "", "", false, collect)
	// The diff's own rule (its credential names and containers) on top, so
	// a path the diff treats as secret is hashed even if the list here
	// lags behind it.
	out = diff.HashSecrets(out, h.in.Schema, h.in.Key)
	// Second pass: values equal to one of this resource's secrets, wherever
	// they appear. (Not the process-wide secret registry: a short value
	// registered for one resource would hash "Enabled" in every other.)
	return h.walkMap(out, "", "", false, false)
}

func (h *hasher) walkMap(m map[string]any, bodyPath, sp string, under, collect bool) map[string]any {
	out := make(map[string]any, len(m))
	isMap := h.maps[sp]
	for k, v := range m {
		csp := diff.ChildSchemaPath(sp, k, isMap)
		cbp := joinPath(bodyPath, k)
		if under && (k == "name" || k == "id" || k == "type") {
			out[k] = diff.CopyValue(v) // identifiers of secret entries are not secret
			continue
		}
		out[k] = h.walkValue(v, k, cbp, csp, under || secret.Container(k), collect)
	}
	return out
}

func (h *hasher) walkValue(v any, name, bodyPath, sp string, under, collect bool) any {
	under = under || h.fromEnv[bodyPath]
	switch t := v.(type) {
	case nil:
		return nil
	case map[string]any:
		return h.walkMap(t, bodyPath, sp, under, collect)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = h.walkValue(e, name, bodyPath+"["+strconv.Itoa(i)+"]", sp+"[]", under, collect)
		}
		return out
	}
	if secret.IsHash(v) {
		return v
	}
	if under || h.secretAt(name, sp, v) {
		if s, ok := v.(string); ok && collect && s != "" {
			h.clear[s] = true
		}
		return secret.Hash(h.in.Key, sp, v)
	}
	if s, ok := v.(string); ok && len(s) >= 4 && h.clear[s] {
		return secret.Hash(h.in.Key, sp, v)
	}
	return v
}

func (h *hasher) secretAt(name, sp string, v any) bool {
	if p := h.in.Schema.Prop(sp); p != nil && p.Secret {
		return true
	}
	if h.typed[sp] || secret.Name(name, v) {
		return true
	}
	// Without a schema the diff does not know the settings are a map, and
	// names the path by its key: match the rule's "*" against it.
	if i := strings.LastIndexByte(sp, '.'); i >= 0 && h.typed[sp[:i]+".*"] {
		return true
	}
	return false
}

// neutralSecretPaths are the schema paths where a type keeps secrets under
// names that say nothing (a Key Vault secret's value, App Service settings):
// their REST references document them, their schemas do not mark them.
// The same list guards the ARM client's request logs.
func neutralSecretPaths(typ, id string) map[string]bool {
	name := ""
	if pid, err := armid.Parse(id); err == nil {
		name = strings.ToLower(pid.Name())
		if typ == "" {
			typ = pid.Type()
		}
	}
	switch strings.ToLower(typ) {
	case "microsoft.keyvault/vaults/secrets", "microsoft.keyvault/managedhsms/secrets", "microsoft.apimanagement/service/namedvalues":
		return map[string]bool{"properties.value": true}
	case "microsoft.web/sites/config", "microsoft.web/sites/slots/config":
		switch name {
		case "appsettings", "connectionstrings", "authsettings", "authsettingsv2", "publishingcredentials", "azurestorageaccounts":
			// A free-form map: every value, whatever its key.
			return map[string]bool{"properties.*": true, "properties.*.value": true}
		}
	}
	return nil
}

// joinPath builds a body path the way the manifest loader names
// SecretPaths.
func joinPath(base, k string) string {
	if base == "" || k == "" {
		return base + k
	}
	return base + "." + k
}
