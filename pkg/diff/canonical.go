package diff

// Canonical forms of values services store in another spelling: documents
// held in strings, durations, line endings, version prefixes. Each is a
// named rule family (rules.go); docs/plugins.md gives the evidence.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// maxDocument bounds the documents parsed for comparison; larger strings
// are compared as strings.
const maxDocument = 1 << 20

// jsonDocument reports whether s holds a JSON object or array (a workbook's
// serializedData, a policy or dashboard definition sent as a string).
func jsonDocument(s string) bool {
	t := strings.TrimSpace(s)
	if len(t) < 2 || len(t) > maxDocument {
		return false
	}
	if !(t[0] == '{' && t[len(t)-1] == '}' || t[0] == '[' && t[len(t)-1] == ']') {
		return false
	}
	return json.Valid([]byte(t))
}

// jsonDocEqual compares two JSON documents as values: member order and
// white space do not count; numbers compare by exact value.
func jsonDocEqual(x, y string) bool {
	dx, err1 := decodeDoc(x)
	dy, err2 := decodeDoc(y)
	return err1 == nil && err2 == nil && sameJSON(dx, dy)
}

func decodeDoc(s string) (any, error) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("trailing data")
	}
	return v, nil
}

func sameJSON(x, y any) bool {
	switch xv := x.(type) {
	case map[string]any:
		yv, ok := y.(map[string]any)
		if !ok || len(xv) != len(yv) {
			return false
		}
		for k, v := range xv {
			w, ok := yv[k]
			if !ok || !sameJSON(v, w) {
				return false
			}
		}
		return true
	case []any:
		yv, ok := y.([]any)
		if !ok || len(xv) != len(yv) {
			return false
		}
		for i := range xv {
			if !sameJSON(xv[i], yv[i]) {
				return false
			}
		}
		return true
	case json.Number:
		yv, ok := y.(json.Number)
		if !ok {
			return false
		}
		rx, ok1 := new(big.Rat).SetString(xv.String())
		ry, ok2 := new(big.Rat).SetString(yv.String())
		return ok1 && ok2 && rx.Cmp(ry) == 0
	}
	return x == y
}

// xmlDocument reports whether s reads as an XML document or fragment (an
// API Management policy, a Logic Apps map).
func xmlDocument(s string) bool {
	t := strings.TrimSpace(s)
	return len(t) >= 3 && len(t) <= maxDocument && t[0] == '<' && t[len(t)-1] == '>' && strings.ContainsAny(t[1:2], "?!abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
}

// xmlDocEqual compares two XML documents in canonical form: white space
// between tags, indentation and line endings inside text, the order of a
// tag's attributes, an empty element written <a/> or <a></a>, and how
// characters are escaped do not count. ok is false when either side does
// not parse; the strings are then compared as strings.
func xmlDocEqual(x, y string) (equal, ok bool) {
	cx, err1 := canonicalXML(x)
	cy, err2 := canonicalXML(y)
	if err1 != nil || err2 != nil {
		return false, false
	}
	return cx == cy, true
}

func canonicalXML(s string) (string, error) {
	d := xml.NewDecoder(strings.NewReader(s))
	d.Strict = false // policy documents carry expressions such as @(a => b)
	var b strings.Builder
	elements := 0
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			elements++
			attrs := make([]string, 0, len(t.Attr))
			for _, a := range t.Attr {
				attrs = append(attrs, qname(a.Name)+"="+strconv.Quote(a.Value))
			}
			sort.Strings(attrs)
			b.WriteString("<" + qname(t.Name))
			for _, a := range attrs {
				b.WriteString(" " + a)
			}
			b.WriteString(">")
		case xml.EndElement:
			b.WriteString("</" + qname(t.Name) + ">")
		case xml.CharData:
			if txt := canonicalText(string(t)); txt != "" {
				b.WriteString(strconv.Quote(txt))
			}
		case xml.Comment:
			b.WriteString("<!--" + canonicalText(string(t)) + "-->")
		case xml.ProcInst:
			b.WriteString("<?" + t.Target + " " + canonicalText(string(t.Inst)) + "?>")
		case xml.Directive:
			b.WriteString("<!" + canonicalText(string(t)) + ">")
		}
	}
	if elements == 0 {
		return "", errors.New("no element")
	}
	return b.String(), nil
}

func qname(n xml.Name) string {
	if n.Space != "" {
		return n.Space + ":" + n.Local
	}
	return n.Local
}

// canonicalText drops indentation: each line trimmed, blank lines dropped,
// lines joined with LF.
func canonicalText(s string) string {
	var out []string
	for _, l := range strings.Split(lf(s), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// lf rewrites CRLF and lone CR line endings as LF.
func lf(s string) string {
	if !strings.ContainsRune(s, '\r') {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// sameDuration reports whether x and y are the same length of time, each
// written as ISO 8601 (PT1H, P7D, PT2H0M) or as a .NET TimeSpan
// ([-][d.]hh:mm:ss[.fffffff]). Years and months have no fixed length:
// they must match as written.
func sameDuration(x, y string) bool {
	mx, sx, ok := parseDuration(x)
	if !ok {
		return false
	}
	my, sy, ok := parseDuration(y)
	return ok && mx == my && sx.Cmp(sy) == 0
}

// parseDuration returns months and seconds.
func parseDuration(s string) (months int64, secs *big.Rat, ok bool) {
	if s == "" {
		return 0, nil, false
	}
	if s[0] == 'P' || s[0] == 'p' || strings.HasPrefix(s, "-P") {
		return parseISODuration(s)
	}
	return parseTimeSpan(s)
}

func parseISODuration(s string) (int64, *big.Rat, bool) {
	neg := false
	if s[0] == '-' {
		neg, s = true, s[1:]
	}
	s = strings.ToUpper(s[1:])
	if s == "" {
		return 0, nil, false
	}
	months := int64(0)
	secs := new(big.Rat)
	inTime := false
	num := ""
	units := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9' || c == '.' || c == ',':
			if c == ',' {
				c = '.'
			}
			num += string(c)
			continue
		case c == 'T':
			if inTime || num != "" {
				return 0, nil, false
			}
			inTime = true
			continue
		}
		if num == "" {
			return 0, nil, false
		}
		v, ok := new(big.Rat).SetString(num)
		if !ok {
			return 0, nil, false
		}
		num = ""
		units++
		var mult int64
		switch {
		case !inTime && c == 'Y', !inTime && c == 'M':
			if !v.IsInt() {
				return 0, nil, false
			}
			n := v.Num().Int64()
			if c == 'Y' {
				n *= 12
			}
			months += n
			continue
		case !inTime && c == 'W':
			mult = 7 * 86400
		case c == 'D':
			// Days belong before the T; services answer PT7D as P7D.
			mult = 86400
		case inTime && c == 'H':
			mult = 3600
		case inTime && c == 'M':
			mult = 60
		case inTime && c == 'S':
			mult = 1
		default:
			return 0, nil, false
		}
		secs.Add(secs, new(big.Rat).Mul(v, new(big.Rat).SetInt64(mult)))
	}
	if num != "" || units == 0 {
		return 0, nil, false
	}
	if neg {
		months, secs = -months, secs.Neg(secs)
	}
	return months, secs, true
}

// parseTimeSpan reads [-][d.]h:m:s[.fraction] with all three of hours,
// minutes and seconds (a bare "h:m" is too often a time of day or a ratio).
func parseTimeSpan(s string) (int64, *big.Rat, bool) {
	neg := false
	if s[0] == '-' {
		neg, s = true, s[1:]
	}
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return 0, nil, false
	}
	days := "0"
	if i := strings.IndexByte(parts[0], '.'); i >= 0 {
		days, parts[0] = parts[0][:i], parts[0][i+1:]
	}
	for _, p := range append([]string{days}, parts[:2]...) {
		if !allDigits(p) {
			return 0, nil, false
		}
	}
	sec := parts[2]
	whole, frac, _ := strings.Cut(sec, ".")
	if !allDigits(whole) || (frac != "" && !allDigits(frac)) || strings.HasSuffix(sec, ".") {
		return 0, nil, false
	}
	m, _ := strconv.ParseInt(parts[1], 10, 64)
	sv, _ := strconv.ParseInt(whole, 10, 64)
	if len(parts[1]) > 2 || len(whole) > 2 || m > 59 || sv > 59 {
		return 0, nil, false
	}
	d, _ := strconv.ParseInt(days, 10, 64)
	h, _ := strconv.ParseInt(parts[0], 10, 64)
	total, _ := new(big.Rat).SetString(sec)
	total.Add(total, new(big.Rat).SetInt64(d*86400+h*3600+m*60))
	if neg {
		total.Neg(total)
	}
	return 0, total, true
}

func allDigits(s string) bool {
	if s == "" || len(s) > 9 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// versionV reports whether one side is the other with a leading "v" on a
// dotted numeric version ("1.24.9" and "v1.24.9").
func versionV(x, y string) bool {
	if len(x) > len(y) {
		x, y = y, x
	}
	if len(y) != len(x)+1 || (y[0] != 'v' && y[0] != 'V') || y[1:] != x {
		return false
	}
	dots := 0
	for i := 0; i < len(x); i++ {
		switch c := x[i]; {
		case c == '.':
			dots++
		case c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return dots >= 1 && x[0] != '.' && x[len(x)-1] != '.'
}

// sameBase64 reports whether x and y encode the same bytes in base64,
// written with or without padding, wrapped in lines (certificates, keys)
// or in the URL-safe alphabet. Short strings are left alone: too many
// words and identifiers read as base64.
func sameBase64(x, y string) bool {
	if strings.HasPrefix(x, "/") || strings.HasPrefix(y, "/") || strings.Contains(x, "://") || strings.Contains(y, "://") {
		return false // paths, IDs and URLs are not encodings
	}
	bx, ok := decodeBase64(x)
	if !ok {
		return false
	}
	by, ok := decodeBase64(y)
	return ok && bytes.Equal(bx, by)
}

func decodeBase64(s string) ([]byte, bool) {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\r', '\n', ' ', '\t', '=':
		case '-':
			b.WriteByte('+')
		case '_':
			b.WriteByte('/')
		default:
			b.WriteByte(c)
		}
	}
	t := b.String()
	if len(t) < 16 || len(t) > maxDocument {
		return nil, false
	}
	// Strict: the unused bits of a last partial group must be zero, so
	// two different strings never decode to the same bytes.
	out, err := base64.RawStdEncoding.Strict().DecodeString(t)
	return out, err == nil
}
