package expr

import (
	"fmt"
	"sort"
	"strings"
)

// Array and object functions, as documented in "Array functions" and
// "Object functions for ARM templates" and "Lambda functions" (Microsoft
// Learn, azure-resource-manager/templates/template-functions-*).

func init() {
	for name, f := range map[string]Func{
		"array": fArray, "createarray": fCreateArray, "createobject": fCreateObject,
		"union": fUnion, "intersection": fIntersection, "items": fItems, "range": fRange,
		"min": minMax(false), "max": minMax(true), "json": fJSON, "null": fNull,
		"length": fLength, "empty": fEmpty, "contains": fContains,
		"first": firstLast(false), "last": firstLast(true), "take": takeSkip(true), "skip": takeSkip(false),
		"objectkeys": fObjectKeys, "shallowmerge": fShallowMerge, "tryget": fTryGet,
		"flatten": fFlatten, "indexfromend": fIndexFromEnd,
		"filter": fFilter, "map": fMap, "reduce": fReduce, "sort": fSort, "toobject": fToObject,
		"mapvalues": fMapValues, "groupby": fGroupBy,
	} {
		builtins[name] = f
	}
}

func fArray(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 1, 1); err != nil {
		return nil, err
	}
	if a, ok := args[0].([]any); ok {
		return a, nil
	}
	return []any{args[0]}, nil
}

func fCreateArray(_ *Ctx, args []any) (any, error) { return append([]any{}, args...), nil }

func fCreateObject(c *Ctx, args []any) (any, error) {
	if len(args)%2 != 0 {
		return nil, fmt.Errorf("takes pairs of key and value, got %d arguments", len(args))
	}
	out := make(map[string]any, len(args)/2)
	for i := 0; i < len(args); i += 2 {
		k, err := strArg(c, args, i)
		if err != nil {
			return nil, err
		}
		out[k] = args[i+1]
	}
	return out, nil
}

// fUnion merges objects (later wins, nested objects merged deeply) or
// joins arrays without duplicates.
func fUnion(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 1, -1); err != nil {
		return nil, err
	}
	first, ok := Known(args[0])
	if !ok {
		return nil, deferred(c, args[0])
	}
	if _, isArr := first.([]any); isArr {
		var out []any
		for i := range args {
			a, err := arrArg(c, args, i)
			if err != nil {
				return nil, err
			}
			for _, e := range a {
				if !containsItem(out, e) {
					out = append(out, e)
				}
			}
		}
		if out == nil {
			out = []any{}
		}
		return out, nil
	}
	out := map[string]any{}
	for i := range args {
		m, err := objArg(c, args, i)
		if err != nil {
			return nil, err
		}
		out = deepMerge(out, m)
	}
	return out, nil
}

func deepMerge(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if bm, ok := v.(map[string]any); ok {
			if am, ok := out[k].(map[string]any); ok {
				out[k] = deepMerge(am, bm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

func containsItem(arr []any, v any) bool {
	for _, e := range arr {
		if Equal(e, v) {
			return true
		}
	}
	return false
}

func fIntersection(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 2, -1); err != nil {
		return nil, err
	}
	first, ok := Known(args[0])
	if !ok {
		return nil, deferred(c, args[0])
	}
	if a, isArr := first.([]any); isArr {
		out := []any{}
		for _, e := range a {
			in := !containsItem(out, e)
			for i := 1; i < len(args) && in; i++ {
				other, err := arrArg(c, args, i)
				if err != nil {
					return nil, err
				}
				in = containsItem(other, e)
			}
			if in {
				out = append(out, e)
			}
		}
		return out, nil
	}
	m, err := objArg(c, args, 0)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for k, v := range m {
		in := true
		for i := 1; i < len(args) && in; i++ {
			other, err := objArg(c, args, i)
			if err != nil {
				return nil, err
			}
			w, has := other[k]
			in = has && Equal(v, w)
		}
		if in {
			out[k] = v
		}
	}
	return out, nil
}

// fItems lists an object's members as {key, value}, sorted by key as ARM
// sorts them.
func fItems(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 1, 1); err != nil {
		return nil, err
	}
	m, err := objArg(c, args, 0)
	if err != nil {
		return nil, err
	}
	keys := SortedKeys(m)
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = map[string]any{"key": k, "value": m[k]}
	}
	return out, nil
}

func fRange(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 2, 2); err != nil {
		return nil, err
	}
	start, err := intArg(c, args, 0)
	if err != nil {
		return nil, err
	}
	count, err := intArg(c, args, 1)
	if err != nil {
		return nil, err
	}
	if count < 0 || count > 10000 {
		return nil, fmt.Errorf("count %d must be between 0 and 10000", count)
	}
	out := make([]any, count)
	for i := range out {
		out[i] = start + int64(i)
	}
	return out, nil
}

func minMax(isMax bool) Func {
	return func(c *Ctx, args []any) (any, error) {
		if err := nargs(args, 1, -1); err != nil {
			return nil, err
		}
		vals := args
		if v, ok := Known(args[0]); ok && len(args) == 1 {
			if arr, isArr := v.([]any); isArr {
				vals = arr
			}
		}
		if len(vals) == 0 {
			return nil, fmt.Errorf("needs at least one value")
		}
		best, err := intArg(c, vals, 0)
		if err != nil {
			return nil, err
		}
		for i := 1; i < len(vals); i++ {
			n, err := intArg(c, vals, i)
			if err != nil {
				return nil, err
			}
			if isMax == (n > best) && n != best {
				best = n
			}
		}
		return best, nil
	}
}

func fJSON(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 1, 1); err != nil {
		return nil, err
	}
	if cc, ok := args[0].(*Concat); ok {
		if _, known := cc.Resolve(); !known {
			return jsonWithUnknowns(cc)
		}
	}
	s, err := strArg(c, args, 0)
	if err != nil {
		return nil, err
	}
	return parseJSON(s)
}

func fNull(_ *Ctx, args []any) (any, error) { return nil, nargs(args, 0, 0) }

func fLength(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 1, 1); err != nil {
		return nil, err
	}
	v, ok := Known(args[0])
	if !ok {
		if n, known := LengthOf(args[0]); known {
			return n, nil
		}
		return nil, deferred(c, args[0])
	}
	switch x := v.(type) {
	case string:
		return int64(len([]rune(x))), nil
	case []any:
		return int64(len(x)), nil
	case map[string]any:
		return int64(len(x)), nil
	case nil:
		return int64(0), nil
	}
	return nil, fmt.Errorf("wants a string, array or object, got %s", TypeName(v))
}

func fEmpty(c *Ctx, args []any) (any, error) {
	v, err := oneKnown(c, args)
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case nil:
		return true, nil
	case string:
		return x == "", nil
	case []any:
		return len(x) == 0, nil
	case map[string]any:
		return len(x) == 0, nil
	}
	return nil, fmt.Errorf("wants a string, array or object, got %s", TypeName(v))
}

// fContains: strings case-sensitively, object keys ignoring case, array
// items by value.
func fContains(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 2, 2); err != nil {
		return nil, err
	}
	v, ok := Known(args[0])
	if !ok {
		return nil, deferred(c, args[0])
	}
	item, ok := Known(args[1])
	if !ok {
		return nil, deferred(c, args[1])
	}
	switch x := v.(type) {
	case string:
		s, err := String(item)
		return err == nil && strings.Contains(x, s), err
	case []any:
		return containsItem(x, item), nil
	case map[string]any:
		k, isStr := item.(string)
		if !isStr {
			return false, nil
		}
		_, has := Member(x, k)
		return has, nil
	case nil:
		return false, nil
	}
	return nil, fmt.Errorf("wants a string, array or object, got %s", TypeName(v))
}

func firstLast(last bool) Func {
	return func(c *Ctx, args []any) (any, error) {
		if err := nargs(args, 1, 1); err != nil {
			return nil, err
		}
		if p, isParts := args[0].(*Parts); isParts {
			// split() always gives at least one part: first is [0], last
			// the part counted -1 from the end.
			if last {
				return then(p.Of, Step{Seps: p.Seps, Index: -1}), nil
			}
			return p.Access(int64(0))
		}
		v, ok := Known(args[0])
		if !ok {
			return nil, deferred(c, args[0])
		}
		switch x := v.(type) {
		case string:
			r := []rune(x)
			if len(r) == 0 {
				return "", nil
			}
			if last {
				return string(r[len(r)-1]), nil
			}
			return string(r[0]), nil
		case []any:
			if len(x) == 0 {
				return nil, nil
			}
			if last {
				return x[len(x)-1], nil
			}
			return x[0], nil
		}
		return nil, fmt.Errorf("wants a string or array, got %s", TypeName(v))
	}
}

func takeSkip(take bool) Func {
	return func(c *Ctx, args []any) (any, error) {
		if err := nargs(args, 2, 2); err != nil {
			return nil, err
		}
		n, err := intArg(c, args, 1)
		if err != nil {
			return nil, err
		}
		v, ok := Known(args[0])
		if !ok {
			// take/skip that keep the whole deploy-time string keep it.
			if l, known := LengthOf(args[0]); known && (take && n >= l || !take && n <= 0) {
				return args[0], nil
			}
			return nil, deferred(c, args[0])
		}
		cut := func(l int) int { return int(max(0, min(n, int64(l)))) }
		switch x := v.(type) {
		case string:
			r := []rune(x)
			if take {
				return string(r[:cut(len(r))]), nil
			}
			return string(r[cut(len(r)):]), nil
		case []any:
			if take {
				return append([]any{}, x[:cut(len(x))]...), nil
			}
			return append([]any{}, x[cut(len(x)):]...), nil
		}
		return nil, fmt.Errorf("wants a string or array, got %s", TypeName(v))
	}
}

func fObjectKeys(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 1, 1); err != nil {
		return nil, err
	}
	m, err := objArg(c, args, 0)
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, k := range SortedKeys(m) {
		out = append(out, k)
	}
	return out, nil
}

func fShallowMerge(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 1, 1); err != nil {
		return nil, err
	}
	arr, err := arrArg(c, args, 0)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for i := range arr {
		m, err := objArg(c, arr, i)
		if err != nil {
			return nil, err
		}
		for k, v := range m {
			out[k] = v
		}
	}
	return out, nil
}

// fTryGet reads a member or index path, null where it is missing.
func fTryGet(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 2, -1); err != nil {
		return nil, err
	}
	v := args[0]
	for _, k := range args[1:] {
		kv, ok := Known(k)
		if !ok {
			return nil, deferred(c, k)
		}
		switch x := v.(type) {
		case map[string]any:
			s, _ := kv.(string)
			var has bool
			if v, has = Member(x, s); !has {
				return nil, nil
			}
		case []any:
			i, isInt := kv.(int64)
			if !isInt || i < 0 || i >= int64(len(x)) {
				return nil, nil
			}
			v = x[i]
		case Unknown:
			var err error
			if v, err = x.Access(kv); err != nil {
				return nil, err
			}
		default:
			return nil, nil
		}
	}
	return v, nil
}

func fFlatten(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 1, 1); err != nil {
		return nil, err
	}
	arr, err := arrArg(c, args, 0)
	if err != nil {
		return nil, err
	}
	out := []any{}
	for i := range arr {
		inner, err := arrArg(c, arr, i)
		if err != nil {
			return nil, err
		}
		out = append(out, inner...)
	}
	return out, nil
}

func fIndexFromEnd(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 2, 2); err != nil {
		return nil, err
	}
	arr, err := arrArg(c, args, 0)
	if err != nil {
		return nil, err
	}
	n, err := intArg(c, args, 1)
	if err != nil {
		return nil, err
	}
	if n < 1 || n > int64(len(arr)) {
		return nil, fmt.Errorf("index ^%d is out of range (the array has %d items)", n, len(arr))
	}
	return arr[int64(len(arr))-n], nil
}

// each calls l on every item with its index.
func each(c *Ctx, arr []any, l *Lambda, f func(i int, v any) error) error {
	for i, e := range arr {
		r, err := c.Apply(l, e, int64(i))
		if err != nil {
			return err
		}
		if err := f(i, r); err != nil {
			return err
		}
	}
	return nil
}

func arrLambda(c *Ctx, args []any, n int) ([]any, *Lambda, error) {
	if err := nargs(args, n, n); err != nil {
		return nil, nil, err
	}
	arr, err := arrArg(c, args, 0)
	if err != nil {
		return nil, nil, err
	}
	l, err := lambdaArg(args, n-1)
	return arr, l, err
}

func fFilter(c *Ctx, args []any) (any, error) {
	arr, l, err := arrLambda(c, args, 2)
	if err != nil {
		return nil, err
	}
	out := []any{}
	err = each(c, arr, l, func(i int, r any) error {
		keep, err := Bool(r)
		if keep {
			out = append(out, arr[i])
		}
		return err
	})
	return out, err
}

func fMap(c *Ctx, args []any) (any, error) {
	arr, l, err := arrLambda(c, args, 2)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, len(arr))
	err = each(c, arr, l, func(_ int, r any) error { out = append(out, r); return nil })
	return out, err
}

func fReduce(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 3, 3); err != nil {
		return nil, err
	}
	arr, err := arrArg(c, args, 0)
	if err != nil {
		return nil, err
	}
	l, err := lambdaArg(args, 2)
	if err != nil {
		return nil, err
	}
	acc := args[1]
	for i, e := range arr {
		if acc, err = c.Apply(l, acc, e, int64(i)); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

func fSort(c *Ctx, args []any) (any, error) {
	arr, l, err := arrLambda(c, args, 2)
	if err != nil {
		return nil, err
	}
	out := append([]any{}, arr...)
	var sortErr error
	sort.SliceStable(out, func(i, j int) bool {
		r, err := c.Apply(l, out[i], out[j])
		if err != nil {
			sortErr = err
			return false
		}
		less, err := Bool(r)
		if err != nil {
			sortErr = err
		}
		return less
	})
	return out, sortErr
}

func fToObject(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 2, 3); err != nil {
		return nil, err
	}
	arr, err := arrArg(c, args, 0)
	if err != nil {
		return nil, err
	}
	keyFn, err := lambdaArg(args, 1)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for _, e := range arr {
		k, err := c.Apply(keyFn, e)
		if err != nil {
			return nil, err
		}
		ks, ok := k.(string)
		if !ok {
			return nil, fmt.Errorf("the key lambda must give a string, got %s", TypeName(k))
		}
		v := e
		if len(args) == 3 {
			valFn, err := lambdaArg(args, 2)
			if err != nil {
				return nil, err
			}
			if v, err = c.Apply(valFn, e); err != nil {
				return nil, err
			}
		}
		out[ks] = v
	}
	return out, nil
}

func fMapValues(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 2, 2); err != nil {
		return nil, err
	}
	m, err := objArg(c, args, 0)
	if err != nil {
		return nil, err
	}
	l, err := lambdaArg(args, 1)
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if out[k], err = c.Apply(l, v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func fGroupBy(c *Ctx, args []any) (any, error) {
	arr, l, err := arrLambda(c, args, 2)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for _, e := range arr {
		k, err := c.Apply(l, e)
		if err != nil {
			return nil, err
		}
		ks, err := String(k)
		if err != nil {
			return nil, err
		}
		g, _ := out[ks].([]any)
		out[ks] = append(g, e)
	}
	return out, nil
}

// jsonWithUnknowns parses JSON text with deploy-time parts (json(format(
// '{{"id": "{0}"}}', resourceId(...)))): each part stands in as a marker
// while parsing and is put back in the strings that hold it.
func jsonWithUnknowns(c *Concat) (any, error) {
	var b strings.Builder
	var unknowns []any
	for _, p := range c.Parts {
		if s, ok := p.(string); ok {
			b.WriteString(s)
			continue
		}
		fmt.Fprintf(&b, "⟦%d⟧", len(unknowns))
		unknowns = append(unknowns, p)
	}
	v, err := parseJSON(b.String())
	if err != nil {
		return nil, err
	}
	return restoreMarkers(v, unknowns), nil
}

func restoreMarkers(v any, unknowns []any) any {
	switch x := v.(type) {
	case string:
		if !strings.Contains(x, "⟦") {
			return x
		}
		var parts []any
		for {
			i := strings.Index(x, "⟦")
			j := strings.Index(x, "⟧")
			if i < 0 || j < i {
				parts = append(parts, x)
				break
			}
			var n int
			fmt.Sscanf(x[i+len("⟦"):j], "%d", &n)
			parts = append(parts, x[:i], unknowns[n])
			x = x[j+len("⟧"):]
		}
		return joinParts(parts)
	case []any:
		for i := range x {
			x[i] = restoreMarkers(x[i], unknowns)
		}
	case map[string]any:
		for k := range x {
			x[k] = restoreMarkers(x[k], unknowns)
		}
	}
	return v
}
