package expr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// TypeName is ARM's name for a value's type, for messages.
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case int64:
		return "int"
	case float64:
		return "float"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case *Lambda:
		return "lambda"
	case Unknown:
		return "value known only at deploy time"
	}
	return fmt.Sprintf("%T", v)
}

// SortedKeys returns an object's keys in order.
func SortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Known returns v with any Resolver resolved; ok is false when v is (or
// holds at its top) a value known only at deploy time.
func Known(v any) (any, bool) {
	switch x := v.(type) {
	case Resolver:
		return x.Resolve()
	case Unknown:
		return nil, false
	}
	return v, true
}

// DeepKnown resolves v and everything inside it; false when any part is
// known only at deploy time.
func DeepKnown(v any) (any, bool) { return deepKnown(v) }

// deepKnown resolves v and everything inside it.
func deepKnown(v any) (any, bool) {
	v, ok := Known(v)
	if !ok {
		return nil, false
	}
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			if out[i], ok = deepKnown(e); !ok {
				return nil, false
			}
		}
		return out, true
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if out[k], ok = deepKnown(e); !ok {
				return nil, false
			}
		}
		return out, true
	}
	return v, true
}

func deferred(c *Ctx, v any) error {
	u, _ := v.(Unknown)
	what := "a value"
	if u != nil {
		what = u.Describe()
	}
	return &DeferredError{Func: c.Func, What: what}
}

// Bool reads a condition.
func Bool(v any) (bool, error) {
	v, ok := Known(v)
	if !ok {
		return false, &DeferredError{Func: "the condition", What: describe(v)}
	}
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		switch strings.ToLower(x) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return false, fmt.Errorf("want a bool, got %s", TypeName(v))
}

func describe(v any) string {
	if u, ok := v.(Unknown); ok {
		return u.Describe()
	}
	return TypeName(v)
}

// Equal is ARM's equals(): deep, with numbers compared by value and
// strings case-sensitively.
func Equal(a, b any) bool {
	switch x := a.(type) {
	case int64, float64:
		fa, oka := num(a)
		fb, okb := num(b)
		return oka && okb && fa == fb
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !Equal(v, w) {
				return false
			}
		}
		return true
	}
	return a == b
}

func num(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// String is ARM's string(): strings as they are, other values as JSON.
func String(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case nil:
		return "", nil
	case Unknown:
		return "", fmt.Errorf("string of a value known only at deploy time")
	}
	return JSON(v)
}

// JSON writes a value compactly, keys in order, without HTML escaping.
func JSON(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// FromJSON converts decoded JSON (json.Number numbers) to evaluator values.
func FromJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x)
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = FromJSON(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = FromJSON(e)
		}
		return out
	}
	return v
}

// argument helpers: each names the function and the argument's place.

func nargs(args []any, lo, hi int) error {
	if len(args) < lo || hi >= 0 && len(args) > hi {
		switch {
		case lo == hi:
			return fmt.Errorf("takes %d argument(s), got %d", lo, len(args))
		case hi < 0:
			return fmt.Errorf("takes at least %d argument(s), got %d", lo, len(args))
		}
		return fmt.Errorf("takes %d to %d arguments, got %d", lo, hi, len(args))
	}
	return nil
}

func strArg(c *Ctx, args []any, i int) (string, error) {
	v, ok := Known(args[i])
	if !ok {
		return "", deferred(c, args[i])
	}
	s, isStr := v.(string)
	if !isStr {
		return "", fmt.Errorf("argument %d must be a string, got %s", i+1, TypeName(v))
	}
	return s, nil
}

func intArg(c *Ctx, args []any, i int) (int64, error) {
	v, ok := Known(args[i])
	if !ok {
		return 0, deferred(c, args[i])
	}
	switch x := v.(type) {
	case int64:
		return x, nil
	case float64:
		if x == math.Trunc(x) {
			return int64(x), nil
		}
	case string:
		if n, err := strconv.ParseInt(x, 10, 64); err == nil {
			return n, nil
		}
	}
	return 0, fmt.Errorf("argument %d must be an integer, got %s", i+1, TypeName(v))
}

func arrArg(c *Ctx, args []any, i int) ([]any, error) {
	v, ok := Known(args[i])
	if !ok {
		return nil, deferred(c, args[i])
	}
	a, isArr := v.([]any)
	if !isArr {
		return nil, fmt.Errorf("argument %d must be an array, got %s", i+1, TypeName(v))
	}
	return a, nil
}

func objArg(c *Ctx, args []any, i int) (map[string]any, error) {
	v, ok := Known(args[i])
	if !ok {
		return nil, deferred(c, args[i])
	}
	m, isObj := v.(map[string]any)
	if !isObj {
		return nil, fmt.Errorf("argument %d must be an object, got %s", i+1, TypeName(v))
	}
	return m, nil
}

func lambdaArg(args []any, i int) (*Lambda, error) {
	l, ok := args[i].(*Lambda)
	if !ok {
		return nil, fmt.Errorf("argument %d must be a lambda, got %s", i+1, TypeName(args[i]))
	}
	return l, nil
}
