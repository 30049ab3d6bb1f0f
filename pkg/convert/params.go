package convert

import (
	"fmt"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert/expr"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

// ParseParameters reads an ARM parameters file ({"parameters": {NAME:
// {"value": V}}}). A Key Vault reference makes the parameter secure,
// whatever its type: its value is read from the environment instead.
func ParseParameters(file string, data []byte) (map[string]any, error) {
	src, err := parseSource(file, data)
	if err != nil {
		line := 0
		if se, ok := err.(*SyntaxError); ok {
			line = se.Line
		}
		return nil, problems(manifest.Problem{File: file, Line: line, Message: "not JSON: " + err.Error()})
	}
	root, ok := src.value.(map[string]any)
	if !ok {
		return nil, problems(manifest.Problem{File: file, Line: 1, Message: "not an ARM parameters file: not a JSON object"})
	}
	params := root
	base := ""
	if p, ok := expr.Member(root, "parameters"); ok {
		if params, ok = p.(map[string]any); !ok {
			return nil, problems(manifest.Problem{File: file, Line: src.line("parameters"), Path: "parameters", Message: "must be an object of {value} entries"})
		}
		base = "parameters"
	}
	out := map[string]any{}
	var ps []manifest.Problem
	for k, v := range params {
		if strings.HasPrefix(k, "$") || base == "" && (k == "contentVersion" || k == "$schema") {
			continue
		}
		path := joinPath(base, k)
		entry, ok := v.(map[string]any)
		if !ok {
			ps = append(ps, manifest.Problem{File: file, Line: src.line(path), Path: path, Message: "a parameter must be {\"value\": ...} or a Key Vault {\"reference\": ...}"})
			continue
		}
		if val, ok := expr.Member(entry, "value"); ok {
			out[k] = val
			continue
		}
		if _, ok := expr.Member(entry, "reference"); ok {
			out[k] = keyVaultRef{}
			continue
		}
		ps = append(ps, manifest.Problem{File: file, Line: src.line(path), Path: path, Message: "a parameter must be {\"value\": ...} or a Key Vault {\"reference\": ...}"})
	}
	if len(ps) > 0 {
		return nil, problems(ps...)
	}
	return out, nil
}

// ParameterType is the declared type of a parameter (lower-cased), or ""
// when the template has none by that name.
func (t *Template) ParameterType(name string) string {
	ps, _ := memberOf(t.root, "parameters").(map[string]any)
	for k, v := range ps {
		if strings.EqualFold(k, name) {
			def, _ := v.(map[string]any)
			return strings.ToLower(fmt.Sprint(memberOf(def, "type")))
		}
	}
	return ""
}

// keyVaultRef is a parameter given by a Key Vault reference: a secret ARM
// reads from the vault while deploying.
type keyVaultRef struct{}
