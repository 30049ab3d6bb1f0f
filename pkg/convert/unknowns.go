package convert

import (
	"fmt"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert/expr"
)

// Values known only when a template is deployed. Each renders as the
// manifest placeholder that keeps it a dependency (render.go); those that
// are known at convert time after all (an ID when the subscription is
// given) resolve.

// placeholder is a value the manifest names by a fixed placeholder:
// ${subscriptionId}, ${tenantId}.
type placeholder struct {
	text  string
	value string // "" when unknown
}

func (p *placeholder) Access(any) (any, error) { return nil, fmt.Errorf("%s is a string", p.text) }
func (p *placeholder) Describe() string        { return p.text }
func (p *placeholder) Resolve() (any, bool)    { return p.value, p.value != "" }

// Shape: ${subscriptionId} and ${tenantId} are GUIDs.
func (p *placeholder) Shape() expr.Shape {
	if p.text == mgPlaceholder {
		return expr.ShapeAny
	}
	return expr.ShapeSegment
}

// idKind says how an ID is rooted.
type idKind int

const (
	idGroup        idKind = iota // /subscriptions/S/resourceGroups/G[/providers/...]
	idSubscription               // /subscriptions/S[/providers/...]
	idTenant                     // /providers/...
	idExtension                  // BASE/providers/...
	idMgmtGroup                  // /providers/Microsoft.Management/managementGroups/M/providers/...
)

// idRef is an ARM ID built by resourceId() and its kin, or a group's ID.
// It renders as ${ref:NAME} when the resource is converted too.
type idRef struct {
	kind  idKind
	sub   any // string or *placeholder
	group any // string (or unknown)
	base  any // extension: the scope's ID
	mg    any
	typ   string // "" for the group or subscription itself
	names []any
}

func (r *idRef) Access(k any) (any, error) {
	return nil, fmt.Errorf("cannot read %v of a resource ID (a string)", k)
}

func (r *idRef) Describe() string {
	if r.typ == "" {
		return "resourceGroup().id"
	}
	return "resourceId('" + r.typ + "', ...)"
}

// Resolve is the literal ID when every part is known.
func (r *idRef) Resolve() (any, bool) {
	v, ok := expr.Known(r.concat())
	if !ok {
		return nil, false
	}
	return v, true
}

// concat is the ID as a string with unknown parts.
func (r *idRef) concat() any {
	var parts []any
	switch r.kind {
	case idGroup:
		parts = append(parts, "/subscriptions/", r.sub, "/resourceGroups/", r.group)
	case idSubscription:
		parts = append(parts, "/subscriptions/", r.sub)
	case idExtension:
		parts = append(parts, r.base)
	case idMgmtGroup:
		parts = append(parts, "/providers/Microsoft.Management/managementGroups/", r.mg)
	}
	if r.typ != "" {
		segs := strings.Split(r.typ, "/")
		parts = append(parts, "/providers/", segs[0])
		for i, t := range segs[1:] {
			parts = append(parts, "/", t)
			if i < len(r.names) {
				parts = append(parts, "/", r.names[i])
			}
		}
	}
	return concatParts(parts)
}

func concatParts(parts []any) any {
	v, _ := mustBuiltin("concat")(&expr.Ctx{Funcs: noFuncs}, parts)
	return v
}

func noFuncs(string) (expr.Func, bool) { return nil, false }

func mustBuiltin(name string) expr.Func {
	f, ok := expr.Builtin(name)
	if !ok {
		panic("no built-in " + name)
	}
	return f
}

// refValue is reference(): a resource's body at deploy time, read by path.
type refValue struct {
	target any // the resource: an idRef, or a name
	// apiVersion is the one the call gave, "" for none: a resource the
	// template does not create is read with it.
	apiVersion string
	full       bool  // 'Full': the path starts at the top of the body
	path       []any // members (string) and indexes (int64)
	dep        *deployment
}

func (r *refValue) Access(k any) (any, error) {
	switch k.(type) {
	case string, int64:
	default:
		return nil, fmt.Errorf("a reference() path takes names and integers, got %s", expr.TypeName(k))
	}
	return &refValue{target: r.target, apiVersion: r.apiVersion, full: r.full, path: append(append([]any{}, r.path...), k), dep: r.dep}, nil
}

func (r *refValue) Describe() string { return "reference(" + describeTarget(r.target) + ")" }

func describeTarget(t any) string {
	switch t := t.(type) {
	case string:
		return "'" + t + "'"
	case expr.Unknown:
		return t.Describe()
	}
	return fmt.Sprint(t)
}

// actionValue is listKeys() and the other list* actions: a secret read from
// the response at deploy time.
type actionValue struct {
	target     any
	name       string
	apiVersion string
	body       map[string]any // the request body, nil for none
	path       []any
	dep        *deployment
}

func (a *actionValue) Access(k any) (any, error) {
	return &actionValue{target: a.target, name: a.name, apiVersion: a.apiVersion, body: a.body, path: append(append([]any{}, a.path...), k), dep: a.dep}, nil
}

func (a *actionValue) Describe() string { return a.name + "(" + describeTarget(a.target) + ")" }

// secretValue is a secureString parameter: read from an environment
// variable when the manifests load, never written out.
type secretValue struct {
	env   string
	param string
	// known: the value given or defaulted at convert time is empty or a
	// query ('?...'), as a SAS token is; other: it is something else.
	// Only this is kept of it, never the value.
	known, other bool
	// assumed is called when uri() or replace() take the value for a
	// query without knowing it is one.
	assumed func(param string)
}

// Shape lets uri() append a SAS token to the URI it resolves: ARM puts
// a query after the resolved path, whatever the token holds.
func (s *secretValue) Shape() expr.Shape {
	if s.other {
		return expr.ShapeAny
	}
	if !s.known && s.assumed != nil {
		s.assumed(s.param)
	}
	return expr.ShapeQuery
}

func (s *secretValue) Access(any) (any, error) {
	return nil, fmt.Errorf("parameter %s is secure: its members cannot be read into a manifest", s.param)
}
func (s *secretValue) Describe() string { return "parameter " + s.param + " (secure)" }
