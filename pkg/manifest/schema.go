package manifest

import (
	"fmt"
	"strings"
)

// schema applies the schema validator and removes ignored readonly paths.
func (l *loader) schema(e *entry) {
	issues, note := l.opts.Schema(e.typ.full, e.res.APIVersion, e.res.Body)
	o := e.res.Origin
	if note != "" {
		l.warn(o, "", "%s", note)
	}
	var ignored []string
	for _, is := range issues {
		path := "spec.body"
		if is.Path != "" {
			path += "." + is.Path
		}
		switch is.Severity {
		case SchemaError:
			if e.res.IsSecret(is.Path) {
				// Schema messages may quote the value; this one is a secret.
				l.ps.add(o, path, "the value from valueFrom does not fit the schema (the message is withheld: it could show the secret); check the variable or Secret it comes from")
				continue
			}
			l.ps.add(o, path, "%s", is.Message)
		case SchemaWarning:
			l.warn(o, path, "%s", is.Message)
		case SchemaIgnored:
			if l.opts.Strict {
				l.ps.add(o, path, "readonly property set (the server sets it); remove it from the manifest (--strict)")
				continue
			}
			removePath(e.res.Body, is.Path)
			ignored = append(ignored, is.Path)
		}
	}
	if len(ignored) > 0 {
		l.warn(o, "", "ignored readonly properties (the server sets them; they are never compared or sent): %s", strings.Join(ignored, ", "))
	}
}

// removePath deletes a dotted body path ("properties.a[2].b") if present.
func removePath(body map[string]any, path string) {
	segs := splitPath(path)
	var cur any = body
	for i, s := range segs {
		lastSeg := i == len(segs)-1
		switch c := cur.(type) {
		case map[string]any:
			if lastSeg {
				delete(c, s)
				return
			}
			cur = c[s]
		case []any:
			var n int
			if _, err := fmt.Sscanf(s, "[%d]", &n); err != nil || n < 0 || n >= len(c) {
				return
			}
			if lastSeg {
				return // removing an array item would renumber its siblings
			}
			cur = c[n]
		default:
			return
		}
	}
}

// splitPath splits "a.b[1].c" into [a b [1] c].
func splitPath(p string) []string {
	var out []string
	for _, part := range strings.Split(p, ".") {
		for part != "" {
			i := strings.Index(part, "[")
			switch {
			case i < 0:
				out = append(out, part)
				part = ""
			case i > 0:
				out = append(out, part[:i])
				part = part[i:]
			default:
				j := strings.Index(part, "]")
				if j < 0 {
					out = append(out, part)
					part = ""
					continue
				}
				out = append(out, part[:j+1])
				part = part[j+1:]
			}
		}
	}
	return out
}
