package manifest

import (
	"fmt"
)

// walk copies a body value, expanding placeholders in strings and map keys
// and filling valueFrom secrets. bodyPath is relative to the body.
func (l *loader) walk(e *entry, v any, bodyPath string) (any, bool) {
	docPath := joinPath("spec.body", bodyPath)
	switch x := v.(type) {
	case string:
		return l.expand(e, docPath, x, true)
	case []any:
		out := make([]any, len(x))
		ok := true
		for i, item := range x {
			var iok bool
			out[i], iok = l.walk(e, item, fmt.Sprintf("%s[%d]", bodyPath, i))
			ok = ok && iok
		}
		return out, ok
	case map[string]any:
		if vf, isVF := x["valueFrom"]; isVF && len(x) == 1 {
			return l.secret(e, vf, bodyPath, docPath+".valueFrom")
		}
		out := make(map[string]any, len(x))
		ok := true
		for _, k := range sortedKeys(x) {
			nk, kok := l.expand(e, joinPath(docPath, k), k, true)
			var vok bool
			out[nk], vok = l.walk(e, x[k], joinPath(bodyPath, k))
			ok = ok && kok && vok
		}
		return out, ok
	}
	return v, true
}

func joinPath(base, k string) string {
	if base == "" || k == "" {
		return base + k
	}
	return base + "." + k
}

// secret resolves {valueFrom: {env: NAME}} or
// {valueFrom: {secretKeyRef: {name, key, namespace}}}.
func (l *loader) secret(e *entry, vf any, bodyPath, path string) (any, bool) {
	o := e.res.Origin
	m, isMap := vf.(map[string]any)
	if !isMap || len(m) != 1 {
		l.ps.add(o, path, "must hold exactly one of env: NAME or secretKeyRef: {name, key, namespace}")
		return nil, false
	}
	e.res.SecretPaths = append(e.res.SecretPaths, bodyPath)
	if env, has := m["env"]; has {
		name, isStr := env.(string)
		if !isStr || name == "" {
			l.ps.add(o, path+".env", "must be the name of an environment variable")
			return nil, false
		}
		if !e.selected {
			return nil, true // -l leaves it out of this run: do not demand its secret
		}
		v, set := l.opts.LookupEnv(name)
		if !set {
			l.ps.add(o, path+".env", "environment variable %s is not set; export it before running", name)
			return nil, false
		}
		return v, true
	}
	ref, has := m["secretKeyRef"].(map[string]any)
	if !has {
		l.ps.add(o, path, "must hold exactly one of env: NAME or secretKeyRef: {name, key, namespace}")
		return nil, false
	}
	get := func(k string) string { s, _ := ref[k].(string); return s }
	name, key, ns := get("name"), get("key"), get("namespace")
	for k := range ref {
		if k != "name" && k != "key" && k != "namespace" {
			l.ps.add(o, path+".secretKeyRef."+k, "unknown field; secretKeyRef has name, key and namespace")
			return nil, false
		}
	}
	if name == "" || key == "" {
		l.ps.add(o, path+".secretKeyRef", "needs name and key (namespace is optional)")
		return nil, false
	}
	if !e.selected {
		return nil, true
	}
	if l.opts.Secrets == nil {
		l.ps.add(o, path+".secretKeyRef", "reading a Kubernetes Secret needs a cluster, and none is configured; use the kubeconfig flags or valueFrom.env")
		return nil, false
	}
	v, err := l.opts.Secrets.SecretValue(l.ctx, ns, name, key)
	if err != nil {
		l.ps.add(o, path+".secretKeyRef", "%v", err)
		return nil, false
	}
	return v, true
}
