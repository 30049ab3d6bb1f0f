package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
)

// Severity ranks a validation finding.
type Severity int

const (
	// Error: the body cannot be right (wrong JSON type, a value outside a
	// closed enum). pkg/manifest fails the run before any write.
	Error Severity = iota
	// Warning: the spec does not know this (unknown property, value
	// outside an open enum); the service may still accept it.
	Warning
	// Ignored: a readonly property the user set (often pasted from the
	// portal's JSON view). It is reported once and never owned, so it is
	// neither sent nor diffed. --strict turns it into an error.
	Ignored
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Ignored:
		return "ignored"
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

// MarshalText makes severities readable in JSON output.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Issue is one validation finding. Path is concrete and dotted
// ("properties.subnets[0].name").
type Issue struct {
	Path     string   `json:"path"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
}

func (i Issue) String() string { return i.Path + ": " + i.Severity.String() + ": " + i.Message }

// Validate checks a request body against the type. Findings come in body
// order (object keys sorted), at most one per path; nothing below a
// readonly, unknown or mistyped value is examined. A nil Type has no
// findings: unknown types are handled by heuristics elsewhere.
func (t *Type) Validate(body map[string]any) []Issue {
	if t == nil {
		return nil
	}
	v := &validator{t: t}
	v.object(body, nil, "")
	return v.issues
}

type validator struct {
	t      *Type
	issues []Issue
}

func (v *validator) add(path []string, s Severity, format string, args ...any) {
	v.issues = append(v.issues, Issue{Path: JoinPath(path), Severity: s, Message: fmt.Sprintf(format, args...)})
}

func (v *validator) object(obj map[string]any, path []string, sp string) {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		cp := append(append([]string(nil), path...), k)
		csp := joinSchema(sp, k)
		p := v.t.Properties[csp]
		if p == nil {
			if alt := v.t.memberFold(sp, k); alt != "" {
				csp, p = alt, v.t.Properties[alt]
			} else if m := v.t.Properties[joinSchema(sp, "*")]; m != nil {
				csp, p = joinSchema(sp, "*"), m
			}
		}
		if p == nil {
			// Only a parent that lists its members makes an extra one
			// suspicious; a free-form object accepts anything.
			if sp == "" || len(v.t.Children(sp)) > 0 {
				v.add(cp, Warning, "unknown property: %s %s does not declare it", v.t.Name, v.t.APIVersion)
			}
			continue
		}
		v.value(obj[k], cp, csp, p)
	}
}

func (v *validator) value(val any, path []string, sp string, p *Property) {
	if p.ReadOnly {
		v.add(path, Ignored, "readonly: set by the service, ignored in the request and never owned")
		return
	}
	if val == nil {
		return // null removes a value in a merge patch
	}
	got := jsonTypeOf(val)
	// "type: object" with no members is how many specs say "any JSON"
	// (autorest reads it so), and services send arrays and strings there.
	anyObject := p.Type == TypeObject && len(v.t.Children(sp)) == 0
	if !anyObject && !typeAccepts(p.Type, got) {
		v.add(path, Error, "wrong type: want %s, got %s", p.Type, got)
		return
	}
	if s, ok := val.(string); ok && len(p.Enum) > 0 && !inEnum(p.Enum, s) {
		if p.EnumClosed {
			v.add(path, Error, "%q is not one of %s", s, strings.Join(p.Enum, ", "))
		} else {
			v.add(path, Warning, "%q is not a known value (%s); the service may still accept it", s, strings.Join(p.Enum, ", "))
		}
	}
	switch x := val.(type) {
	case map[string]any:
		v.object(x, path, sp)
	case []any:
		ip := v.t.Properties[sp+"[]"]
		if ip == nil {
			return
		}
		for i, item := range x {
			v.value(item, append(append([]string(nil), path...), fmt.Sprintf("[%d]", i)), sp+"[]", ip)
		}
	}
}

// inEnum compares case-insensitively: ARM treats enum values that way and
// the diff normalises them so too.
func inEnum(enum []string, s string) bool {
	for _, e := range enum {
		if strings.EqualFold(e, s) {
			return true
		}
	}
	return false
}

func jsonTypeOf(v any) JSONType {
	switch x := v.(type) {
	case string:
		return TypeString
	case bool:
		return TypeBoolean
	case map[string]any:
		return TypeObject
	case []any:
		return TypeArray
	case float64:
		if x == math.Trunc(x) {
			return TypeInteger
		}
		return TypeNumber
	case float32:
		return jsonTypeOf(float64(x))
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return TypeInteger
		}
		return TypeNumber
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return TypeInteger
	}
	return TypeUnknown
}

// typeAccepts: an integer is a number; a type the spec leaves out (or
// declares as something JSON has no name for, like "file") accepts
// anything.
func typeAccepts(want, got JSONType) bool {
	switch want {
	case TypeString, TypeInteger, TypeNumber, TypeBoolean, TypeObject, TypeArray:
	default:
		return true
	}
	switch {
	case got == TypeUnknown || want == got:
		return true
	case want == TypeNumber && got == TypeInteger:
		return true
	}
	return false
}
