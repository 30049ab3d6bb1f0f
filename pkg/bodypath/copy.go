package bodypath

// Copy returns a deep copy of decoded JSON: objects and arrays are new,
// scalars (strings, json.Number, bools) are shared since they never
// change in place. A nil object or array stays nil.
func Copy(v any) any { return Map(v, nil) }

// CopyMap is Copy for a body; nil stays nil.
func CopyMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	return copyMap(m, nil)
}

// Map returns a copy of v in which fn may replace any node. fn sees each
// node before its members or items; when it reports true its result takes
// the node's place and is not descended into. Otherwise objects and arrays
// are copied member by member and scalars kept. A nil fn copies.
func Map(v any, fn func(any) (any, bool)) any {
	if fn != nil {
		if r, ok := fn(v); ok {
			return r
		}
	}
	switch t := v.(type) {
	case map[string]any:
		if t == nil {
			return t
		}
		return copyMap(t, fn)
	case []any:
		if t == nil {
			return t
		}
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = Map(x, fn)
		}
		return out
	}
	return v
}

func copyMap(m map[string]any, fn func(any) (any, bool)) map[string]any {
	out := make(map[string]any, len(m))
	for k, x := range m {
		out[k] = Map(x, fn)
	}
	return out
}

// MapStrings returns a copy of v with fn applied to every string value;
// member names are kept.
func MapStrings(v any, fn func(string) string) any {
	return Map(v, func(x any) (any, bool) {
		if s, ok := x.(string); ok {
			return fn(s), true
		}
		return nil, false
	})
}
