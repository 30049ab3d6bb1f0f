package manifest

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
)

// exprMode says what a field may hold.
type exprMode int

const (
	// noRefs: subscription, tenant and guid over those (spec.id).
	noRefs exprMode = iota
	// idRefs: also ${ref:NAME} IDs (placement, map keys).
	idRefs
	// liveRefs: also ${ref:NAME.PATH}, deferred to apply (body values, names).
	liveRefs
)

// expand resolves the placeholders of a field that must be known at load
// time (spec.id, spec.parent, spec.scope, map keys).
func (l *loader) expand(e *entry, path, s string, allowRefs bool) (string, bool) {
	mode := noRefs
	if allowRefs {
		mode = idRefs
	}
	v, d, ok := l.expandValue(e, path, s, mode)
	if !ok {
		return "", false
	}
	if d != nil {
		l.ps.add(e.res.Origin, path, "%s reads a live value, which is known only during apply; here only ${ref:NAME} (the ID) can be used", d.Expr)
		return "", false
	}
	return v, true
}

// expandValue resolves the placeholders of s. A result that needs live
// data comes back as a Deferred (value "").
func (l *loader) expandValue(e *entry, path, s string, mode exprMode) (string, *Deferred, bool) {
	if !strings.Contains(s, "${") {
		return s, nil, true
	}
	parts, err := parseExpr(s)
	if err != nil {
		l.ps.add(e.res.Origin, path, "%v", err)
		return "", nil, false
	}
	terms, ok := l.bind(e, path, parts, mode)
	if !ok {
		return "", nil, false
	}
	if len(terms) == 0 {
		return "", nil, true
	}
	if len(terms) == 1 && terms[0].ref == nil && terms[0].fn == "" {
		return terms[0].lit, nil, true
	}
	d := &Deferred{Expr: s, Field: path, terms: terms, secrets: l.opts.SecretValues}
	collectRefs(terms, d)
	if len(d.Refs) > 0 {
		d.Line = l.ps.line(e.res.Origin, path)
	}
	return "", d, true
}

func collectRefs(ts []term, d *Deferred) {
	for _, t := range ts {
		if t.ref != nil {
			d.Refs = append(d.Refs, *t.ref)
		}
		if t.action != nil {
			d.Actions = append(d.Actions, *t.action)
		}
		for _, a := range t.args {
			collectRefs(a, d)
		}
		collectRefs(t.sub, d)
	}
}

// bind substitutes what is known now and keeps live values as terms.
// Adjacent literals are merged, so a fully known result is one literal.
func (l *loader) bind(e *entry, path string, parts []exprPart, mode exprMode) ([]term, bool) {
	var out []term
	ok := true
	addLit := func(s string) {
		if n := len(out); n > 0 && out[n-1].ref == nil && out[n-1].fn == "" {
			out[n-1].lit += s
			return
		}
		out = append(out, term{lit: s})
	}
	for _, p := range parts {
		switch p.fn {
		case "":
			addLit(p.lit)
		case "subscriptionId":
			sub, sok := l.subscription(e, path)
			ok = ok && sok
			addLit(sub)
		case "tenantId":
			ten, tok := l.tenant(e, path)
			ok = ok && tok
			addLit(ten)
		case "ref":
			t, rok := l.bindRef(e, path, p, mode)
			if !rok {
				ok = false
				continue
			}
			if t.ref == nil {
				addLit(t.lit)
			} else {
				out = append(out, t)
			}
		case "secret":
			t, found := l.tmplSecrets[p.arg]
			if !found {
				if l.tmplSecrets == nil {
					l.ps.add(e.res.Origin, path, "%s is only known inside valueFrom.template, which names its sources under secrets", p.raw)
				} else {
					l.ps.add(e.res.Origin, path, "%s: no secret %q under secrets; name it there with env, secretKeyRef or action", p.raw, p.arg)
				}
				ok = false
				continue
			}
			if t.action == nil && t.fn == "" {
				addLit(t.lit)
			} else {
				out = append(out, t)
			}
		case "resourceGroupId":
			sub, sok := l.subscription(e, path)
			ok = ok && sok
			if err := validName(p.arg); err != nil {
				l.ps.add(e.res.Origin, path, "%s: %q is not a resource group name: %v", p.raw, p.arg, err)
				ok = false
			}
			addLit("/subscriptions/" + sub + "/resourceGroups/" + p.arg)
		case "guid", "uniqueString":
			var args [][]term
			allKnown := true
			var lits []string
			for _, a := range p.args {
				at, aok := l.bind(e, path, a, mode)
				ok = ok && aok
				args = append(args, at)
				switch {
				case len(at) == 0:
					lits = append(lits, "")
				case len(at) == 1 && at[0].ref == nil && at[0].fn == "" && at[0].action == nil:
					lits = append(lits, at[0].lit)
				default:
					allKnown = false
				}
			}
			if allKnown {
				addLit(callHash(p.fn, lits))
			} else {
				out = append(out, term{fn: p.fn, args: args})
			}
		}
	}
	return out, ok
}

// bindRef resolves ${ref:NAME}, ${ref:TYPE/NAME} (the ID, known now) and
// ${ref:NAME.PATH} (a live value). Every reference is a dependency edge.
func (l *loader) bindRef(e *entry, path string, p exprPart, mode exprMode) (term, bool) {
	o := e.res.Origin
	if mode == noRefs {
		l.ps.add(o, path, "%s: references are not allowed in spec.id; use spec.parent or spec.scope to place a resource under a managed one", p.raw)
		return term{}, false
	}
	var t *entry
	var rest string
	for _, prefix := range refCandidates(strings.TrimSpace(p.arg)) {
		if l.matches(prefix) > 0 {
			rest = strings.TrimPrefix(strings.TrimSpace(p.arg)[len(prefix):], ".")
			var found bool
			if t, found = l.lookup(e, path, prefix, p.raw); !found {
				return term{}, false
			}
			break
		}
	}
	if t == nil {
		l.lookup(e, path, strings.TrimSpace(p.arg), p.raw) // reports the unknown name
		return term{}, false
	}
	// A body may name its own ID (a load balancer's rules point at its own
	// frontend configurations); that is no dependency.
	if t != e {
		e.edges = append(e.edges, edge{to: t, path: path})
	}
	if !l.resolveID(t) {
		return term{}, false // t's own problem is reported where t is declared
	}
	if t.res.NameDeferred != nil {
		l.ps.add(o, path, "%s names %s, whose name is known only after apply; references to it are not supported yet: give it a fixed name", p.raw, t.describe())
		return term{}, false
	}
	if rest == "" {
		return term{lit: t.res.ID}, true
	}
	if mode != liveRefs {
		l.ps.add(o, path, "%s reads a live value, which is known only during apply; here only ${ref:NAME} (the ID) can be used", p.raw)
		return term{}, false
	}
	if t == e {
		l.ps.add(o, path, "%s reads this resource's own live body; a resource cannot depend on itself", p.raw)
		return term{}, false
	}
	if _, err := bodypath.ParseRef(rest); err != nil {
		l.ps.add(o, path, "%s: %v; write the path as properties.a.b, items[0] or tags[\"a.b\"]", p.raw, err)
		return term{}, false
	}
	return term{ref: &ValueRef{Target: t.res.ID, Path: rest, APIVersion: t.res.APIVersion}}, true
}

// matches counts the managed resources a NAME or TYPE/NAME names.
func (l *loader) matches(ref string) int {
	if i := strings.LastIndex(ref, "/"); i >= 0 {
		typ, _, _ := strings.Cut(ref[:i], "@")
		return len(l.byTypeName[typeNameKey{strings.ToLower(typ), strings.ToLower(ref[i+1:])}])
	}
	return len(l.byName[strings.ToLower(ref)])
}
