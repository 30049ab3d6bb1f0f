package convert

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert/expr"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

// resources is the fully evaluated result of a run that knows everything.
func (r *run) resources() ([]Resource, map[string]any, error) {
	if r.scope.Subscription == "" {
		return nil, nil, fmt.Errorf("evaluating a template needs its subscription")
	}
	var out []Resource
	for _, d := range r.docs {
		if !d.declares() || d.failed {
			continue
		}
		res, err := r.resource(d)
		if err != nil {
			r.problem(d.path, manifest.SeverityError, "%v", err)
			continue
		}
		out = append(out, res)
	}
	values := r.outputValues()
	if r.errors() {
		return nil, nil, &Problems{Problems: r.problems}
	}
	return out, values, nil
}

func (r *run) resource(d *doc) (Resource, error) {
	name, err := resolveDeep(concatParts(joinSegs(d.segs)))
	if err != nil {
		return Resource{}, fmt.Errorf("name: %v", err)
	}
	body, err := resolveDeep(r.resolveKeys(d.body))
	if err != nil {
		return Resource{}, err
	}
	res := Resource{Type: d.typ, APIVersion: d.apiVersion, Name: name.(string), Body: body.(map[string]any)}
	if s, ok := expr.Known(d.sub); ok {
		res.Subscription, _ = s.(string)
	}
	if g, ok := d.group.(string); ok {
		res.ResourceGroup = g
	}
	id, err := resolveDeep(r.docID(d))
	if err != nil {
		return Resource{}, err
	}
	res.ID = id.(string)
	for _, dep := range d.dependsOn {
		v, err := resolveDeep(dep)
		if err != nil {
			return Resource{}, err
		}
		res.DependsOn = append(res.DependsOn, fmt.Sprint(v))
	}
	return res, nil
}

func joinSegs(segs []any) []any {
	var out []any
	for i, s := range segs {
		if i > 0 {
			out = append(out, "/")
		}
		out = append(out, s)
	}
	return out
}

// docID is a doc's ARM ID.
func (r *run) docID(d *doc) any {
	id := &idRef{kind: idGroup, sub: d.sub, group: d.group, typ: d.typ, names: d.segs}
	switch {
	case strings.EqualFold(d.typ, "Microsoft.Resources/resourceGroups"):
		return concatParts([]any{"/subscriptions/", d.sub, "/resourceGroups/", d.segs[0]})
	case d.scopeVal != nil:
		id.kind, id.base = idExtension, d.scopeVal
	case d.group == "" || d.group == nil:
		id.kind = idSubscription
	}
	return id.concat()
}

// resolveDeep gives v with every value known, or says which is not.
func resolveDeep(v any) (any, error) {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := resolveDeep(e)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			r, err := resolveDeep(e)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case expr.Unknown:
		if k, ok := expr.Known(x); ok {
			return k, nil
		}
		return nil, fmt.Errorf("%s is known only while deploying", x.Describe())
	}
	return v, nil
}

// resolveKeys replaces property names known only at deploy time by their
// values.
func (r *run) resolveKeys(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = r.resolveKeys(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if i, err := strconv.Atoi(strings.TrimPrefix(k, keyPrefix)); err == nil && strings.HasPrefix(k, keyPrefix) {
				if kv, ok := expr.Known(r.keys[i]); ok {
					k = fmt.Sprint(kv)
				}
			}
			out[k] = r.resolveKeys(e)
		}
		return out
	}
	return v
}
