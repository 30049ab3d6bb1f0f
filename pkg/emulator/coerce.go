package emulator

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Resource providers deserialise a request into their model and answer
// every later GET from it, so a scalar of the wrong JSON type that their
// reader converts comes back with the model's type: "80" sent for an
// integer is read back as 80. Real round trips in testdata/corpus show it
// (azure-cli-extensions recordings: containerapp's
// test_containerapp_compose_create_with_ingress_external sends
// ingress.targetPort "80" and reads 80, and resources.cpu "1.25" → 1.25 in
// the compose resource tests; log-analytics-solution's
// test_log_analytics_solution sends a workspace's retentionInDays "30" and
// reads 30). The same reader turns a number or boolean token into a string
// with its literal text (443 → "443", true → "true") and "true"/"false"
// into booleans. coerceScalars does that on write, so GETs and lists show
// what ARM shows and a client that sends the wrong type sees a diff, as it
// would against Azure. Values that cannot be converted are left alone for
// checkJSONTypes to refuse; tags are left to checkTags, which refuses a
// non-string value as ARM does.

// coerceScalars converts, in place, every convertible scalar of body whose
// schema type is string, integer, number or boolean and whose JSON type
// differs. Readonly values are skipped (the server's value is kept anyway).
func coerceScalars(t *schema.Type, body map[string]any) {
	if t == nil || body == nil {
		return
	}
	for k, v := range body {
		if strings.EqualFold(k, "tags") {
			continue
		}
		if nv, ok := coerceValue(t, v, []string{k}); ok {
			setOrDrop(body, k, nv)
		}
	}
}

// setOrDrop sets m[k] to v, or removes k when v is nil: an empty string
// the reader took for null (convertScalar).
func setOrDrop(m map[string]any, k string, v any) {
	if v == nil {
		delete(m, k)
		return
	}
	m[k] = v
}

// coerceValue returns the converted value and true when v (at the concrete
// path) was replaced; containers are converted in place.
func coerceValue(t *schema.Type, v any, concrete []string) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if nv, ok := coerceValue(t, c, append(concrete[:len(concrete):len(concrete)], k)); ok {
				setOrDrop(x, k, nv)
			}
		}
		return nil, false
	case []any:
		for i, c := range x {
			if nv, ok := coerceValue(t, c, append(concrete[:len(concrete):len(concrete)], "["+itoa(i)+"]")); ok {
				x[i] = nv
			}
		}
		return nil, false
	case nil:
		return nil, false
	}
	_, prop := t.Resolve(concrete)
	if prop == nil || prop.ReadOnly {
		return nil, false
	}
	return convertScalar(v, prop.Type)
}

// convertScalar converts a scalar to the wanted JSON type the way the
// providers' JSON reader does; false when v already has that type or
// cannot be converted.
func convertScalar(v any, want schema.JSONType) (any, bool) {
	switch want {
	case schema.TypeArray, schema.TypeObject:
		// The reader (Newtonsoft.Json) takes an empty string for null
		// where it wants an array or object, so "zones": "" is no zones:
		// a quickstart (vmss-flexible-orchestration-manual-add-vm, zone
		// "none") sends exactly that and deploys.
		if s, ok := v.(string); ok && s == "" {
			return nil, true
		}
	case schema.TypeString:
		switch x := v.(type) {
		case json.Number:
			return string(x), true
		case float64:
			return strconv.FormatFloat(x, 'f', -1, 64), true
		case bool:
			return strconv.FormatBool(x), true // the reader's literal: "true", "false"
		}
	case schema.TypeInteger, schema.TypeNumber:
		if s, ok := v.(string); ok {
			if n, ok := parseNumber(s); ok {
				return n, true
			}
		}
	case schema.TypeBoolean:
		if s, ok := v.(string); ok {
			switch strings.ToLower(strings.TrimSpace(s)) {
			case "true":
				return true, true
			case "false":
				return false, true
			}
		}
	}
	return nil, false
}

// parseNumber reads a quoted number as a JSON number: the text itself when
// it is already a JSON number literal ("42", "1.25", "1e3"), else its
// canonical form ("0100" → 100, "+5" → 5, "1." → 1). Not a number, NaN and
// infinities are false: no JSON reader turns them into a number.
func parseNumber(s string) (json.Number, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", false
	}
	if jsonNumberLiteral(s) {
		return json.Number(s), true
	}
	if i, ok := new(big.Int).SetString(strings.TrimPrefix(s, "+"), 10); ok {
		return json.Number(i.String()), true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || strings.ContainsAny(s, "xXpP_") {
		return "", false
	}
	return json.Number(strconv.FormatFloat(f, 'f', -1, 64)), true
}

// jsonNumberLiteral reports whether s is a number as JSON writes it.
func jsonNumberLiteral(s string) bool {
	if s == "" || !(s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) {
		return false
	}
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil
}
