package diff

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
)

// Value helpers of the comparison: exact numbers, zero and scalar
// values, and the string form of identifiers.

// numbersDiffer reports whether x and y are both JSON numbers with
// different exact values.
func numbersDiffer(x, y any) bool {
	rx, ok := exactNumber(x)
	if !ok {
		return false
	}
	ry, ok := exactNumber(y)
	return ok && rx.Cmp(ry) != 0
}

func exactNumber(v any) (*big.Rat, bool) {
	var s string
	switch t := v.(type) {
	case json.Number:
		s = t.String()
	case float64:
		return new(big.Rat).SetFloat64(t), !math.IsInf(t, 0) && !math.IsNaN(t)
	case int:
		return new(big.Rat).SetInt64(int64(t)), true
	case int64:
		return new(big.Rat).SetInt64(t), true
	default:
		return nil, false
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}

func zeroValue(v any) bool {
	switch t := v.(type) {
	case string:
		return t == ""
	case float64:
		return t == 0
	}
	if f, ok := toFloat(v); ok {
		return f == 0
	}
	return false
}

func allScalar(a []any) bool {
	for _, v := range a {
		if !isScalar(v) {
			return false
		}
	}
	return true
}

func isScalar(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}

// scalarString is the string form of a scalar used as an item key.
func scalarString(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case bool:
		return strconv.FormatBool(t), true
	case json.Number:
		// Exact: big integers used as keys must not collide.
		return t.String(), true
	case nil, map[string]any, []any:
		return "", false
	}
	if f, ok := toFloat(v); ok {
		return strconv.FormatFloat(f, 'g', -1, 64), true
	}
	return "", false
}
