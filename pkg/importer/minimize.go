package importer

import (
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// envelope are the top-level keys ARM adds to every resource; the manifest
// carries the same facts in metadata and spec, or ARM owns them.
var envelope = map[string]bool{"id": true, "name": true, "type": true, "etag": true, "systemData": true}

// serverOwned are keys readonly in every ARM API, wherever they appear:
// applied even when the schema does not know the type.
var serverOwned = map[string]bool{"provisioningState": true, "etag": true}

// Minimized is a GET body reduced to what a person would write.
type Minimized struct {
	Body map[string]any
	// Secrets are secret paths the manifest leaves out: the type's secret
	// properties under objects the body has (GET never returns those), and
	// secret values GET returned that cannot be supplied as a string.
	Secrets []string
	// Placeholders are the secret strings GET returned: Body holds
	// {valueFrom: {env: ""}} in their place, for the importer to name.
	Placeholders []Placeholder
}

// Placeholder is a secret value left out of a manifest and the valueFrom
// object that stands for it.
type Placeholder struct {
	Path  string // concrete body path, as the plan prints it
	Value string // the live value: it never reaches a manifest
	env   map[string]any
}

// SetEnv names the environment variable the placeholder reads.
func (p Placeholder) SetEnv(name string) { p.env["env"] = name }

// minimizer holds what one resource type's minimisation needs.
type minimizer struct {
	t            *schema.Type
	rules        *diff.Rules
	selfID       string
	secrets      map[string]bool
	placeholders []Placeholder
	// maps are the schema paths whose members are map entries, as the
	// diff sees them (tags and every parent of a "*").
	maps map[schema.Path]bool
	// rule is the one secret rule (pkg/secret) for this resource.
	rule *secret.Rule
}

// Minimize reduces a GET body to what a person would write: it removes the
// ARM envelope, every path the schema (or the type's plugin) marks
// readonly, values equal to the schema default, secrets, nulls and the
// empty objects and arrays that are left. selfID is the resource's ID: an
// array item that is this resource's own child (a subnet listed in its
// vnet) loses its id, type and etag, which ARM derives from the name.
func Minimize(live map[string]any, t *schema.Type, p diff.Plugin, selfID string) Minimized {
	return minimize(live, t, p, selfID, nil)
}

// minimize is Minimize with more secret patterns (secret.Rule's extra):
// the paths state already holds hashed for this resource.
func minimize(live map[string]any, t *schema.Type, p diff.Plugin, selfID string, secrets []string) Minimized {
	m := &minimizer{t: t, selfID: strings.TrimSuffix(selfID, "/"), secrets: map[string]bool{},
		rule: secret.ForIDBody(selfID, diff.RuleFacts(t), live, secrets...), maps: diff.MapPaths(t, nil)}
	if p != nil {
		m.rules = p.Rules()
	}
	var out Minimized
	body := map[string]any{}
	for k, v := range live {
		if envelope[k] {
			continue
		}
		if nv, keep := m.value([]string{k}, k, v, false); keep {
			body[k] = nv
		}
	}
	out.Body = body
	out.Placeholders = m.placeholders
	sort.Slice(out.Placeholders, func(i, j int) bool { return out.Placeholders[i].Path < out.Placeholders[j].Path })
	m.schemaSecrets(body)
	for s := range m.secrets {
		out.Secrets = append(out.Secrets, s)
	}
	sort.Strings(out.Secrets)
	return out
}

// value minimises one value at concrete path segs; keep=false drops it.
// mapValue says the value sits under a map key, where even {} means
// something (a user-assigned identity).
func (m *minimizer) value(segs []string, key string, v any, mapValue bool) (any, bool) {
	if serverOwned[key] && !schema.IsItem(key) {
		return nil, false
	}
	if isPlaceholder(v) {
		return v, true // minimised once already (dropInvalid minimises again)
	}
	sp, prop := m.t.Resolve(segs)
	if m.readOnly(sp, prop) {
		return nil, false
	}
	if v == nil {
		return nil, false
	}
	if m.secret(segs, v) {
		if str, ok := v.(string); ok && str != "" && !secret.Masked(str) {
			// A value GET returned: the manifest reads it from valueFrom,
			// never in clear.
			env := map[string]any{"env": ""}
			m.placeholders = append(m.placeholders, Placeholder{Path: displayPath(segs), Value: str, env: env})
			return map[string]any{"valueFrom": env}, true
		}
		m.secrets[displayPath(segs)] = true
		return nil, false
	}
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		selfChild := m.isOwnChild(t)
		childIsMap := m.maps[sp]
		for k, cv := range t {
			if selfChild && (k == "id" || k == "type" || k == "etag") {
				continue
			}
			isMapVal := childIsMap || looksARMID(k)
			if nv, keep := m.value(append(segs, k), k, cv, isMapVal); keep {
				out[k] = nv
			}
		}
		if len(out) == 0 && !mapValue {
			return nil, false
		}
		return out, true
	case []any:
		out := make([]any, 0, len(t))
		for i, it := range t {
			if nv, keep := m.value(append(segs, "["+strconv.Itoa(i)+"]"), "["+strconv.Itoa(i)+"]", it, false); keep {
				out = append(out, nv)
			}
		}
		if len(out) == 0 {
			return nil, false
		}
		return out, true
	default:
		if m.isDefault(sp, prop, v) {
			return nil, false
		}
		return v, true
	}
}

func (m *minimizer) readOnly(sp schema.Path, p *schema.Property) bool {
	if p != nil && p.ReadOnly {
		return true
	}
	if m.rules != nil {
		for _, r := range m.rules.ReadOnly {
			if r == sp {
				return true
			}
		}
	}
	return false
}

// secret is the one rule (secret.Rule) at a scalar: what a plan would hide
// and state would hash is never written in clear. Objects and arrays are
// descended into and judged leaf by leaf.
func (m *minimizer) secret(segs []string, v any) bool {
	switch v.(type) {
	case map[string]any, []any, nil:
		return false
	}
	p := make(bodypath.Path, len(segs))
	for i, s := range segs {
		if schema.IsItem(s) {
			n, _ := strconv.Atoi(s[1 : len(s)-1])
			p[i] = bodypath.At(n)
		} else {
			p[i] = bodypath.Field(s)
		}
	}
	return m.rule.At(p, v)
}

// isOwnChild: an inline item naming itself as a child of this resource
// (id = selfID/.../name).
func (m *minimizer) isOwnChild(item map[string]any) bool {
	id, _ := item["id"].(string)
	name, _ := item["name"].(string)
	if id == "" || name == "" || m.selfID == "" {
		return false
	}
	id = strings.TrimSuffix(id, "/")
	return len(id) > len(m.selfID)+1 && strings.EqualFold(id[:len(m.selfID)+1], m.selfID+"/") &&
		strings.EqualFold(id[strings.LastIndex(id, "/")+1:], name)
}

func (m *minimizer) isDefault(sp schema.Path, p *schema.Property, v any) bool {
	if m.rules != nil {
		if d, ok := m.rules.Defaults[sp]; ok && sameScalar(d, v) {
			return true
		}
	}
	return p != nil && p.Default != nil && sameScalar(p.Default, v)
}

// sameScalar compares a default with a value the way the diff's
// normalisation would: strings (enums) case-insensitively, numbers by value.
func sameScalar(a, b any) bool {
	if as, ok := a.(string); ok {
		bs, ok := b.(string)
		return ok && strings.EqualFold(as, bs)
	}
	if af, ok := diff.Number(a); ok {
		bf, ok := diff.Number(b)
		return ok && af == bf
	}
	return reflect.DeepEqual(a, b)
}

// schemaSecrets adds the type's secret properties whose parent object the
// body has: GET never returns them, so the manifest explains how to
// supply one.
func (m *minimizer) schemaSecrets(body map[string]any) {
	var paths []string
	if m.t != nil {
		for sp, p := range m.t.Properties {
			if p.Secret && !p.ReadOnly {
				paths = append(paths, sp)
			}
		}
	}
	// And where the type keeps a secret the schema does not mark (a Key
	// Vault secret's value, which GET never returns).
	paths = append(paths, secret.TypePathsOf(m.selfID)...)
	for _, sp := range paths {
		if strings.ContainsAny(sp, "[*") {
			continue
		}
		if _, ok := bodypath.Get(body, sp); ok {
			continue // GET returned it: a placeholder stands for it
		}
		parent := bodypath.Parent(sp)
		if _, ok := bodypath.Get(body, parent); parent == "" || ok {
			if parent == "" && len(body) == 0 {
				continue
			}
			m.secrets[sp] = true
		}
	}
}

// isPlaceholder reports whether v is the {valueFrom: {env: ...}} a
// Placeholder put in a body.
func isPlaceholder(v any) bool {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return false
	}
	vf, ok := m["valueFrom"].(map[string]any)
	if !ok || len(vf) != 1 {
		return false
	}
	_, ok = vf["env"].(string)
	return ok
}

// withSecretValues returns a copy of body with each placeholder replaced by
// the value it stands for: what the manifest loader will see once the
// variable is set, and so what schema validation must judge.
func withSecretValues(body map[string]any) map[string]any {
	out := make(map[string]any, len(body))
	for k, v := range body {
		out[k] = bodypath.Map(v, func(v any) (any, bool) {
			return "placeholder-secret-value", isPlaceholder(v)
		})
	}
	return out
}

// displayPath renders concrete segments as the plan does (dotted, items
// as [index]).
func displayPath(segs []string) string { return schema.JoinPath(segs) }

func looksARMID(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "/subscriptions/") || strings.HasPrefix(l, "/providers/")
}

// yamlNumber turns a JSON number that is a whole value into an int64, so
// the YAML reads 1000000 rather than 1e+06.
func yamlNumber(f float64) any {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f)
	}
	return f
}
