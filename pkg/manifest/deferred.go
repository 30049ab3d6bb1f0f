package manifest

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// ValueRef names one value of a managed resource's live body: what
// ${ref:NAME.PATH} reads.
type ValueRef struct {
	// Target is the referenced resource's ARM ID.
	Target string
	// Path is the dotted path into its live body (array items as [n] or
	// [key]), e.g. "properties.principalId" or "identity.principalId".
	Path string
	// APIVersion is the referenced resource's spec.type version: the
	// engine reads it with that when the run does not manage it (-l left
	// it out).
	APIVersion string
}

func (v ValueRef) String() string { return v.Target + "." + v.Path }

// Deferred is a body value (or a name) that needs live data: an expression
// whose ${ref:NAME.PATH} parts are read after the referenced resources are
// written or, when they exist already, from their live bodies. Everything
// Load could resolve (subscription, IDs, guids over constants) is already
// substituted; the rest stays as Refs.
type Deferred struct {
	// Expr is the expression as written in the manifest, for messages.
	Expr string
	// Refs are the live values it reads, in order of appearance.
	Refs []ValueRef
	// Actions are the POST actions whose results it holds (a
	// valueFrom.template over listKeys, ...), in order of appearance.
	// Resolve treats them as not known yet; ResolveWith calls them. The
	// value is then secret as a whole.
	Actions []ActionRef
	// Field is the document path the expression was written at
	// ("spec.body.properties.principalId", "metadata.name") and Line its
	// file line (0 when unknown), so a reference that can never resolve
	// is reported where it was written. Line is looked up only for
	// expressions that read live values.
	Field string
	Line  int
	// terms is the bound expression Resolve evaluates.
	terms []term
	// secrets is the registry of the load that made it: ResolveWith
	// registers action results there.
	secrets *secret.Registry
	// encoding is how a valueFrom.template's result is written
	// (encodingBase64), or "".
	encoding string
	// transform are a valueFrom.template's steps, applied before encoding.
	transform []transformStep
}

// encodingBase64 is valueFrom.template's encoding: base64, the value a
// template's base64() of the same string gives (standard alphabet, padded,
// over its UTF-8 bytes).
const encodingBase64 = "base64"

func encode(encoding, s string) string {
	if encoding == encodingBase64 {
		return base64.StdEncoding.EncodeToString([]byte(s))
	}
	return s
}

// Resolve evaluates the expression, reading live values through get (which
// returns false when a value is not known yet: its resource does not exist
// or the path is absent). known is false when any value was missing; value
// is then nil. An expression that is exactly one ${ref:NAME.PATH} yields
// the value with its JSON type (number, object, ...); anything else is a
// string.
func (d *Deferred) Resolve(get func(ValueRef) (any, bool)) (value any, known bool, err error) {
	return d.ResolveWith(get, nil)
}

// ResolveWith is Resolve that also fills action results (Actions) through
// call, which POSTs the action and picks ActionRef.Path from its answer;
// with call nil they are not known. Every action result is registered for
// scrubbing, and so is the whole string built from one, in the registry of
// the load that made d.
func (d *Deferred) ResolveWith(get func(ValueRef) (any, bool), call func(ActionRef) (any, error)) (value any, known bool, err error) {
	return d.ResolveFor(d.secrets, get, call)
}

// ResolveFor is ResolveWith registering in reg, the registry of the run
// resolving it (a reconcile's, which ends with it, rather than the
// manifest set's, which lives as long as the set). A nil reg falls back to
// the load's registry, so a value is never left unregistered.
func (d *Deferred) ResolveFor(reg *secret.Registry, get func(ValueRef) (any, bool), call func(ActionRef) (any, error)) (value any, known bool, err error) {
	if reg == nil {
		reg = d.secrets
	}
	if len(d.terms) == 1 && d.terms[0].ref != nil && d.encoding == "" && len(d.transform) == 0 {
		v, ok := get(*d.terms[0].ref)
		if !ok {
			return nil, false, nil
		}
		return v, true, nil
	}
	s, known, err := evalString(d.terms, get, call, reg)
	if err != nil || !known {
		return nil, known, err
	}
	if len(d.Actions) > 0 {
		reg.Register(s)
	}
	if len(d.transform) > 0 {
		// A part of a secret is secret; a part of a live value is not.
		secret := reg.Registered(s)
		if s, err = applyTransform(d.transform, s); err != nil {
			return nil, false, fmt.Errorf("%s: %w", d.Expr, err)
		}
		if secret {
			reg.Register(s)
		}
	}
	if d.encoding != "" {
		// A template's value is secret as a whole, in either form.
		reg.Register(s)
		s = encode(d.encoding, s)
		reg.Register(s)
	}
	return s, true, nil
}

// ActionRef is a secret read from a POST action of a managed resource at
// apply time (valueFrom.action): listKeys, listConnectionStrings, ... It
// is never stored; the body holds plan.Unknown at its path.
type ActionRef struct {
	// Target is the ARM ID of the resource whose action is called.
	Target string
	// Under is a path below Target the action is on, when that is a child
	// the service makes rather than a managed resource (a workflow's
	// triggers/manual, a namespace's authorizationRules/RootManageSharedAccessKey),
	// or "".
	Under string
	// Action is the action's name, e.g. "listKeys".
	Action string
	// APIVersion is the api-version of the call: the one given in the
	// manifest, else the target's spec.type version.
	APIVersion string
	// Path picks the value in the action's response, e.g. "keys[0].value".
	Path string
	// Body is the request body as canonical JSON, or "" for none (most
	// list* actions take none; listAccountSas takes the token's terms).
	Body string
	// Existing is set when Target is annotated azure.kubectl.io/existing:
	// the set declared it is read, which is the consent to call its
	// actions although this tool does not manage it.
	Existing bool
}

// RequestBody decodes Body; nil when there is none.
func (a ActionRef) RequestBody() map[string]any {
	if a.Body == "" {
		return nil
	}
	var m map[string]any
	if json.Unmarshal([]byte(a.Body), &m) != nil {
		return nil // Load wrote it from a mapping: cannot fail
	}
	return m
}

// URLPath is what the action is POSTed to: Target[/Under]/Action.
func (a ActionRef) URLPath() string {
	p := strings.TrimRight(a.Target, "/")
	if a.Under != "" {
		p += "/" + a.Under
	}
	return p + "/" + a.Action
}

// IDForName returns the resource's ARM ID with its last segment replaced
// by name: the apply engine calls it once a deferred name is resolved.
func (r *Resource) IDForName(name string) string {
	i := strings.LastIndex(r.ID, "/")
	if i < 0 {
		return name
	}
	return r.ID[:i+1] + name
}

// term is one piece of a bound expression: a literal, a live value, or a
// function over terms.
type term struct {
	lit    string
	ref    *ValueRef
	fn     string // "guid", "uniqueString", "action", "template" or "" (literal or ref)
	args   [][]term
	action *ActionRef // for "action": a secret from valueFrom.template
	// for "template": a part built from sub and then transformed and
	// encoded, so a string function over a live value can sit inside a
	// longer string (a template under a valueFrom.template's secrets).
	sub      []term
	steps    []transformStep
	encoding string
}

func evalString(ts []term, get func(ValueRef) (any, bool), call func(ActionRef) (any, error), reg *secret.Registry) (string, bool, error) {
	var b strings.Builder
	known := true
	for _, t := range ts {
		switch {
		case t.ref != nil:
			v, ok := get(*t.ref)
			if !ok {
				known = false
				continue
			}
			s, err := stringify(v)
			if err != nil {
				return "", false, fmt.Errorf("${ref:%s}: %w", t.ref.Path, err)
			}
			b.WriteString(s)
		case t.fn == "action":
			if call == nil {
				known = false
				continue
			}
			v, err := call(*t.action)
			if err != nil {
				return "", false, err
			}
			s, err := stringify(v)
			if err != nil {
				return "", false, fmt.Errorf("%s of %s: %w", t.action.Action, t.action.Target, err)
			}
			reg.Register(s)
			b.WriteString(s)
		case t.fn == "template":
			v, ok, err := evalPart(t, get, call, reg)
			if err != nil {
				return "", false, err
			}
			known = known && ok
			b.WriteString(v)
		case t.fn != "":
			var args []string
			for _, a := range t.args {
				s, ok, err := evalString(a, get, call, reg)
				if err != nil {
					return "", false, err
				}
				known = known && ok
				args = append(args, s)
			}
			b.WriteString(callHash(t.fn, args))
		default:
			b.WriteString(t.lit)
		}
	}
	if !known {
		return "", false, nil
	}
	return b.String(), true, nil
}

// evalPart evaluates a template part: its text, then its transform steps
// and encoding. A part of a secret is secret; a part of a live value is not.
func evalPart(t term, get func(ValueRef) (any, bool), call func(ActionRef) (any, error), reg *secret.Registry) (string, bool, error) {
	s, known, err := evalString(t.sub, get, call, reg)
	if err != nil || !known {
		return "", known, err
	}
	secret := reg.Registered(s)
	if s, err = applyTransform(t.steps, s); err != nil {
		return "", false, err
	}
	if t.encoding != "" {
		s = encode(t.encoding, s)
	}
	if secret {
		reg.Register(s)
	}
	return s, true, nil
}

// stringify renders a live value inside a larger string the way ARM's
// string() does: strings as they are, numbers by their literal, the rest
// as JSON.
func stringify(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case json.Number:
		return x.String(), nil
	case bool:
		return strconv.FormatBool(x), nil
	case nil:
		return "", nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("cannot render the value as a string: %v", err)
	}
	return string(b), nil
}

// callHash evaluates the hashing placeholders over their arguments.
func callHash(fn string, args []string) string {
	if fn == "uniqueString" {
		return ARMUniqueString(args...)
	}
	return ARMGuid(args...)
}

// armGuidNamespace is the namespace ARM's guid() hashes its arguments in.
var armGuidNamespace = [16]byte{0x11, 0xfb, 0x06, 0xfb, 0x71, 0x2d, 0x4d, 0xdd, 0x98, 0xc7, 0xe7, 0x1b, 0xbd, 0x58, 0x88, 0x30}

// ARMGuid computes ARM's guid(args...): a version-5 (SHA-1, name-based)
// UUID in ARM's namespace over the arguments joined with "-", so names
// equal what a template deployment of the same resources produced.
func ARMGuid(args ...string) string {
	h := sha1.New()
	h.Write(armGuidNamespace[:])
	h.Write([]byte(strings.Join(args, "-")))
	u := h.Sum(nil)[:16]
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// LookupPath returns the value at a dotted path ("properties.keys[0].value",
// "tags[env]") in a decoded JSON body: [n] indexes arrays, [key] and .key
// select object members. The apply engine uses it to answer ValueRef.
func LookupPath(body any, path string) (any, bool) {
	p, err := bodypath.ParseRef(path)
	if err != nil {
		return nil, false
	}
	return p.LookupRef(body)
}

// unknown is what the body holds where a value is deferred: a typed
// marker, never a string a comparison or a write could take for a value.
var unknown = plan.Unknown{}

// nameKnownAfterApply is the last segment of a deferred name's ARM ID
// (and its Name) until IDForName gives the real one. An ID is a string, so
// it holds the display form the plan shows; NameDeferred, not this value,
// says that the name is deferred.
const nameKnownAfterApply = plan.KnownAfterApply
