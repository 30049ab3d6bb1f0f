package expr

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

// String functions, as documented in "String functions for ARM templates"
// (Microsoft Learn, azure-resource-manager/templates/template-functions-string).

func init() {
	for name, f := range map[string]Func{
		"concat": fConcat, "format": fFormat,
		"tolower": caseFunc(strings.ToLower, true), "toupper": caseFunc(strings.ToUpper, false),
		"trim": strFunc(strings.TrimSpace), "substring": fSubstring, "replace": fReplace,
		"split": fSplit, "join": fJoin, "startswith": fStartsWith, "endswith": fEndsWith,
		"indexof": fIndexOf, "lastindexof": fLastIndexOf, "padleft": fPadLeft,
		"base64":         fBase64,
		"base64tostring": fBase64ToString, "base64tojson": fBase64ToJSON,
		"uri": fURI, "uricomponent": strFunc(uriComponent), "uricomponenttostring": fURIComponentToString,
		"datauri": fDataURI, "datauritostring": fDataURIToString,
		"string": fString, "guid": hashFunc("guid"), "uniquestring": hashFunc("uniqueString"),
	} {
		builtins[name] = f
	}
}

// builtins are the functions that need nothing but their arguments.
var builtins = map[string]Func{}

// Builtin returns a built-in function by name, for callers that wrap one.
func Builtin(name string) (Func, bool) {
	f, ok := builtins[strings.ToLower(name)]
	return f, ok
}

// fBase64 is base64(): of a string known now, its encoding; of one known
// only at deploy time, an Encoded the renderer writes as a template with
// encoding: base64 where it is a whole value.
func fBase64(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 1, 1); err != nil {
		return nil, err
	}
	if _, known := Known(args[0]); !known {
		return &Encoded{Of: args[0]}, nil
	}
	s, err := strArg(c, args, 0)
	if err != nil {
		return nil, err
	}
	return base64.StdEncoding.EncodeToString([]byte(s)), nil
}

func strFunc(f func(string) string) Func {
	return func(c *Ctx, args []any) (any, error) {
		if err := nargs(args, 1, 1); err != nil {
			return nil, err
		}
		s, err := strArg(c, args, 0)
		if err != nil {
			return nil, err
		}
		return f(s), nil
	}
}

// caseFunc is toLower or toUpper. Over a string with deploy-time parts it
// changes the literal parts, and keeps the hashes when they are already in
// that case (uniqueString and guid give lower case only).
func caseFunc(f func(string) string, lower bool) Func {
	plain := strFunc(f)
	return func(c *Ctx, args []any) (any, error) {
		if len(args) == 1 {
			if _, known := Known(args[0]); !known {
				if v, ok := mapCase(args[0], f, lower); ok {
					return v, nil
				}
			}
		}
		return plain(c, args)
	}
}

func mapCase(v any, f func(string) string, lower bool) (any, bool) {
	switch x := v.(type) {
	case string:
		return f(x), true
	case *Hash:
		return x, lower
	case *Concat:
		parts := make([]any, len(x.Parts))
		for i, p := range x.Parts {
			r, ok := mapCase(p, f, lower)
			if !ok {
				return nil, false
			}
			parts[i] = r
		}
		return joinParts(parts), true
	}
	return nil, false
}

// LengthOf is the length of a string even when parts of it are known only
// at deploy time, where those parts have a fixed length (uniqueString 13,
// guid 36).
func LengthOf(v any) (int64, bool) {
	if k, ok := Known(v); ok {
		s, isStr := k.(string)
		return int64(utf8.RuneCountInString(s)), isStr
	}
	switch x := v.(type) {
	case *Hash:
		if x.Func == "guid" {
			return 36, true
		}
		return 13, true
	case *Concat:
		var n int64
		for _, p := range x.Parts {
			l, ok := LengthOf(p)
			if !ok {
				return 0, false
			}
			n += l
		}
		return n, true
	case interface{ Length() (int64, bool) }:
		return x.Length()
	}
	return 0, false
}

// fConcat joins arrays when the first argument is one, else strings; a
// string with unknown parts stays a Concat.
func fConcat(c *Ctx, args []any) (any, error) {
	if len(args) == 0 {
		return "", nil
	}
	if first, ok := Known(args[0]); ok {
		if _, isArr := first.([]any); isArr {
			var out []any
			for i := range args {
				a, err := arrArg(c, args, i)
				if err != nil {
					return nil, err
				}
				out = append(out, a...)
			}
			if out == nil {
				out = []any{}
			}
			return out, nil
		}
	}
	parts := make([]any, 0, len(args))
	for _, a := range args {
		if u, ok := a.(Unknown); ok {
			parts = append(parts, u)
			continue
		}
		s, err := String(a)
		if err != nil {
			return nil, err
		}
		parts = append(parts, s)
	}
	return joinParts(parts), nil
}

// joinParts merges adjacent literals; all-literal parts become a string.
func joinParts(parts []any) any {
	var out []any
	var lit strings.Builder
	hasLit := false
	flush := func() {
		if hasLit {
			out = append(out, lit.String())
			lit.Reset()
			hasLit = false
		}
	}
	for _, p := range parts {
		switch x := p.(type) {
		case string:
			lit.WriteString(x)
			hasLit = true
		case *Concat:
			for _, q := range x.Parts {
				if s, ok := q.(string); ok {
					lit.WriteString(s)
					hasLit = true
				} else {
					flush()
					out = append(out, q)
				}
			}
		default:
			flush()
			out = append(out, p)
		}
	}
	flush()
	switch {
	case len(out) == 0:
		return ""
	case len(out) == 1:
		if s, ok := out[0].(string); ok {
			return s
		}
	}
	return &Concat{Parts: out}
}

// fFormat is .NET composite formatting: {0}, {1:D3}, {{ and }}.
func fFormat(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 1, -1); err != nil {
		return nil, err
	}
	f, err := strArg(c, args, 0)
	if err != nil {
		return nil, err
	}
	var parts []any
	var lit strings.Builder
	for i := 0; i < len(f); i++ {
		ch := f[i]
		switch {
		case ch == '{' && i+1 < len(f) && f[i+1] == '{', ch == '}' && i+1 < len(f) && f[i+1] == '}':
			lit.WriteByte(ch)
			i++
		case ch == '{':
			end := strings.IndexByte(f[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("unclosed '{' in the format string %q", f)
			}
			spec := f[i+1 : i+end]
			i += end
			idxText, layout, _ := strings.Cut(spec, ":")
			idx, err := strconv.Atoi(strings.TrimSpace(idxText))
			if err != nil || idx < 0 || idx+1 >= len(args) {
				return nil, fmt.Errorf("format item {%s} has no argument (%d given)", spec, len(args)-1)
			}
			v := args[idx+1]
			if u, ok := v.(Unknown); ok && layout == "" {
				parts = append(parts, lit.String(), u)
				lit.Reset()
				continue
			}
			s, err := formatItem(c, v, layout)
			if err != nil {
				return nil, err
			}
			lit.WriteString(s)
		case ch == '}':
			return nil, fmt.Errorf("unmatched '}' in the format string %q", f)
		default:
			lit.WriteByte(ch)
		}
	}
	parts = append(parts, lit.String())
	return joinParts(parts), nil
}

// formatItem formats one argument; layouts D (zero-padded integer), N (grouped
// number) and X (hex) are the ones templates use.
func formatItem(c *Ctx, v any, layout string) (string, error) {
	v, ok := Known(v)
	if !ok {
		return "", deferred(c, v)
	}
	if layout == "" {
		return String(v)
	}
	n, isInt := v.(int64)
	width, _ := strconv.Atoi(layout[1:])
	switch {
	case isInt && (layout[0] == 'D' || layout[0] == 'd'):
		s := strconv.FormatInt(abs(n), 10)
		for len(s) < width {
			s = "0" + s
		}
		if n < 0 {
			s = "-" + s
		}
		return s, nil
	case layout[0] == 'N' || layout[0] == 'n':
		f, ok := num(v)
		if !ok {
			break
		}
		return groupDigits(strconv.FormatFloat(f, 'f', width, 64)), nil
	case isInt && (layout[0] == 'X' || layout[0] == 'x'):
		s := strconv.FormatInt(n, 16)
		if layout[0] == 'X' {
			s = strings.ToUpper(s)
		}
		for len(s) < width {
			s = "0" + s
		}
		return s, nil
	}
	return "", fmt.Errorf("format layout %q is not supported", layout)
}

// groupDigits puts a comma every three digits of the integer part, as
// .NET's N format does in the invariant culture.
func groupDigits(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	out := b.String()
	if hasFrac {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

func fSubstring(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 1, 3); err != nil {
		return nil, err
	}
	if _, known := Known(args[0]); !known {
		return substringUnknown(c, args)
	}
	s, err := strArg(c, args, 0)
	if err != nil {
		return nil, err
	}
	start, length := int64(0), int64(-1)
	if len(args) > 1 {
		if start, err = intArg(c, args, 1); err != nil {
			return nil, err
		}
	}
	if len(args) > 2 {
		if length, err = intArg(c, args, 2); err != nil {
			return nil, err
		}
	}
	r := []rune(s)
	if length < 0 {
		length = int64(len(r)) - start
	}
	if start < 0 || start > int64(len(r)) || length < 0 || start+length > int64(len(r)) {
		return nil, fmt.Errorf("start %d and length %d are outside the string's %d characters", start, length, len(r))
	}
	return string(r[start : start+length]), nil
}

// substringUnknown: a substring that is the whole deploy-time string is
// that string; any other part of it is known only at deploy time.
func substringUnknown(c *Ctx, args []any) (any, error) {
	n, ok := LengthOf(args[0])
	if !ok {
		return nil, deferred(c, args[0])
	}
	start, length := int64(0), n
	var err error
	if len(args) > 1 {
		if start, err = intArg(c, args, 1); err != nil {
			return nil, err
		}
	}
	if len(args) > 2 {
		if length, err = intArg(c, args, 2); err != nil {
			return nil, err
		}
	}
	if start == 0 && length == n {
		return args[0], nil
	}
	return nil, deferred(c, args[0])
}

func fReplace(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 3, 3); err != nil {
		return nil, err
	}
	if s, ok := absentQuery(args[0], args[1]); ok {
		return s, nil
	}
	if t, ok := deployTimeReplace(args); ok {
		return t, nil
	}
	var s [3]string
	for i := range s {
		v, err := strArg(c, args, i)
		if err != nil {
			return nil, err
		}
		s[i] = v
	}
	if s[1] == "" {
		return s[0], nil
	}
	return strings.ReplaceAll(s[0], s[1], s[2]), nil
}

// absentQuery: replacing a deploy-time query (empty, or a SAS token
// starting with '?') in a known string without a '?' changes nothing, as
// in replace(parameters('_artifactsLocation'), parameters('_artifactsLocationSasToken'), ”).
func absentQuery(in, old any) (string, bool) {
	s, isStr := in.(string)
	if _, known := Known(old); known || !isStr || shapeOf(old) != ShapeQuery {
		return "", false
	}
	return s, !strings.Contains(s, "?")
}

func fSplit(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 2, 2); err != nil {
		return nil, err
	}
	if p, ok := deployTimeSplit(args); ok {
		return p, nil
	}
	s, err := strArg(c, args, 0)
	if err != nil {
		return nil, err
	}
	var delims []string
	if d, ok := Known(args[1]); ok {
		if arr, isArr := d.([]any); isArr {
			for i := range arr {
				ds, err := strArg(c, arr, i)
				if err != nil {
					return nil, err
				}
				delims = append(delims, ds)
			}
		}
	}
	if delims == nil {
		d, err := strArg(c, args, 1)
		if err != nil {
			return nil, err
		}
		delims = []string{d}
	}
	pieces := []string{s}
	for _, d := range delims {
		if d == "" {
			continue
		}
		var next []string
		for _, p := range pieces {
			next = append(next, strings.Split(p, d)...)
		}
		pieces = next
	}
	out := make([]any, len(pieces))
	for i, p := range pieces {
		out[i] = p
	}
	return out, nil
}

func fJoin(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 2, 2); err != nil {
		return nil, err
	}
	arr, err := arrArg(c, args, 0)
	if err != nil {
		return nil, err
	}
	d, err := strArg(c, args, 1)
	if err != nil {
		return nil, err
	}
	parts := make([]any, 0, 2*len(arr))
	for i, v := range arr {
		if i > 0 {
			parts = append(parts, d)
		}
		if u, ok := v.(Unknown); ok {
			parts = append(parts, u)
			continue
		}
		s, err := String(v)
		if err != nil {
			return nil, err
		}
		parts = append(parts, s)
	}
	return joinParts(parts), nil
}

// two reads two string arguments.
func two(c *Ctx, args []any) (string, string, error) {
	if err := nargs(args, 2, 2); err != nil {
		return "", "", err
	}
	a, err := strArg(c, args, 0)
	if err != nil {
		return "", "", err
	}
	b, err := strArg(c, args, 1)
	return a, b, err
}

// startsWith, endsWith, indexOf and lastIndexOf ignore case, as ARM's do.
func fStartsWith(c *Ctx, args []any) (any, error) {
	a, b, err := two(c, args)
	return err == nil && strings.HasPrefix(strings.ToLower(a), strings.ToLower(b)), err
}

func fEndsWith(c *Ctx, args []any) (any, error) {
	a, b, err := two(c, args)
	return err == nil && strings.HasSuffix(strings.ToLower(a), strings.ToLower(b)), err
}

func fIndexOf(c *Ctx, args []any) (any, error) {
	if v, ok := Known(args[0]); ok && len(args) == 2 {
		if arr, isArr := v.([]any); isArr {
			for i, e := range arr {
				if Equal(e, args[1]) {
					return int64(i), nil
				}
			}
			return int64(-1), nil
		}
	}
	a, b, err := two(c, args)
	if err != nil {
		return nil, err
	}
	return runeIndex(a, strings.Index(strings.ToLower(a), strings.ToLower(b))), nil
}

func fLastIndexOf(c *Ctx, args []any) (any, error) {
	if v, ok := Known(args[0]); ok && len(args) == 2 {
		if arr, isArr := v.([]any); isArr {
			for i := len(arr) - 1; i >= 0; i-- {
				if Equal(arr[i], args[1]) {
					return int64(i), nil
				}
			}
			return int64(-1), nil
		}
	}
	a, b, err := two(c, args)
	if err != nil {
		return nil, err
	}
	return runeIndex(a, strings.LastIndex(strings.ToLower(a), strings.ToLower(b))), nil
}

func runeIndex(s string, byteIdx int) int64 {
	if byteIdx < 0 {
		return -1
	}
	return int64(utf8.RuneCountInString(strings.ToLower(s)[:byteIdx]))
}

func fPadLeft(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 2, 3); err != nil {
		return nil, err
	}
	v, ok := Known(args[0])
	if !ok {
		return nil, deferred(c, args[0])
	}
	s, err := String(v)
	if err != nil {
		return nil, err
	}
	n, err := intArg(c, args, 1)
	if err != nil {
		return nil, err
	}
	pad := " "
	if len(args) == 3 {
		if pad, err = strArg(c, args, 2); err != nil {
			return nil, err
		}
		if utf8.RuneCountInString(pad) != 1 {
			return nil, fmt.Errorf("the padding must be one character, got %q", pad)
		}
	}
	for int64(utf8.RuneCountInString(s)) < n {
		s = pad + s
	}
	return s, nil
}

func fBase64ToString(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 1, 1); err != nil {
		return nil, err
	}
	s, err := strArg(c, args, 0)
	if err != nil {
		return nil, err
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("not base64: %v", err)
	}
	return string(b), nil
}

func fBase64ToJSON(c *Ctx, args []any) (any, error) {
	s, err := fBase64ToString(c, args)
	if err != nil {
		return nil, err
	}
	return parseJSON(s.(string))
}

func parseJSON(s string) (any, error) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, ".") || strings.HasPrefix(t, "-.") {
		// ARM's JSON reader takes numbers without a leading zero: json('.25').
		t = strings.Replace(t, ".", "0.", 1)
		if _, err := strconv.ParseFloat(t, 64); err == nil {
			s = t
		}
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	return FromJSON(v), nil
}

// uriComponent escapes all but RFC 3986's unreserved characters, as .NET's
// Uri.EscapeDataString does.
func uriComponent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || strings.IndexByte("-_.~", ch) >= 0 {
			b.WriteByte(ch)
		} else {
			fmt.Fprintf(&b, "%%%02X", ch)
		}
	}
	return b.String()
}

func fURIComponentToString(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 1, 1); err != nil {
		return nil, err
	}
	s, err := strArg(c, args, 0)
	if err != nil {
		return nil, err
	}
	return url.PathUnescape(s)
}

const dataURIPrefix = "data:text/plain;charset=utf8;base64,"

func fDataURI(c *Ctx, args []any) (any, error) {
	v, err := oneKnown(c, args)
	if err != nil {
		return nil, err
	}
	s, err := String(v)
	if err != nil {
		return nil, err
	}
	return dataURIPrefix + base64.StdEncoding.EncodeToString([]byte(s)), nil
}

func fDataURIToString(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 1, 1); err != nil {
		return nil, err
	}
	s, err := strArg(c, args, 0)
	if err != nil {
		return nil, err
	}
	_, data, ok := strings.Cut(s, ",")
	if !ok {
		return nil, fmt.Errorf("not a data URI: %q", s)
	}
	if strings.Contains(s[:len(s)-len(data)], ";base64") {
		b, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			return nil, fmt.Errorf("not base64: %v", err)
		}
		return string(b), nil
	}
	return url.PathUnescape(data)
}

func fString(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 1, 1); err != nil {
		return nil, err
	}
	v, ok := deepKnown(args[0])
	if !ok {
		if u, isU := args[0].(Unknown); isU {
			return u, nil // a string-valued deploy-time value stays itself
		}
		return nil, deferred(c, args[0])
	}
	return String(v)
}

// hashFunc is guid() or uniqueString(): computed when every argument is
// known, else a Hash the caller renders as a placeholder.
func hashFunc(name string) Func {
	return func(c *Ctx, args []any) (any, error) {
		if err := nargs(args, 1, -1); err != nil {
			return nil, err
		}
		strs := make([]string, len(args))
		known := true
		for i, a := range args {
			v, ok := Known(a)
			if !ok {
				known = false
				continue
			}
			s, isStr := v.(string)
			if !isStr {
				return nil, fmt.Errorf("argument %d must be a string, got %s", i+1, TypeName(v))
			}
			strs[i] = s
		}
		if !known {
			return &Hash{Func: name, Args: args}, nil
		}
		if name == "guid" {
			return manifest.ARMGuid(strs...), nil
		}
		return manifest.ARMUniqueString(strs...), nil
	}
}

// deployTimeReplace is replace() of a string known only at deploy time by
// known strings: a transform the manifest applies at apply time.
func deployTimeReplace(args []any) (any, bool) {
	if _, known := Known(args[0]); known {
		return nil, false
	}
	if _, enc := args[0].(*Encoded); enc {
		return nil, false
	}
	old, okOld := Known(args[1])
	nw, okNew := Known(args[2])
	os, isOld := old.(string)
	ns, isNew := nw.(string)
	if !okOld || !okNew || !isOld || !isNew {
		return nil, false
	}
	return then(args[0], Step{Replace: true, Old: os, New: ns}), true
}

// deployTimeSplit is split() of a string known only at deploy time at
// known delimiters: its items are transforms.
func deployTimeSplit(args []any) (any, bool) {
	if _, known := Known(args[0]); known {
		return nil, false
	}
	if _, enc := args[0].(*Encoded); enc {
		return nil, false
	}
	d, ok := DeepKnown(args[1])
	if !ok {
		return nil, false
	}
	var seps []string
	switch x := d.(type) {
	case string:
		seps = []string{x}
	case []any:
		for _, e := range x {
			s, isStr := e.(string)
			if !isStr {
				return nil, false
			}
			seps = append(seps, s)
		}
	default:
		return nil, false
	}
	return &Parts{Of: args[0], Seps: seps}, true
}
