package convert

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// source is a parsed JSON file: its value and the line of every value by
// JSON path, so problems can name both. ARM accepts // and /* */ comments
// in templates and parameter files, so the reader does too.
type source struct {
	file  string
	value any
	lines map[string]int
}

// SyntaxError is JSON that does not parse, with its line.
type SyntaxError struct {
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

func parseSource(file string, data []byte) (*source, error) {
	r := &jsonReader{data: data, line: 1, lines: map[string]int{}}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		r.pos = 3 // a UTF-8 byte-order mark, as editors on Windows write
	}
	v, err := r.value("", 0)
	if err != nil {
		return nil, err
	}
	if err := r.space(); err != nil {
		return nil, err
	}
	if r.pos < len(data) {
		return nil, r.errorf("unexpected %q after the JSON value", data[r.pos])
	}
	return &source{file: file, value: v, lines: r.lines}, nil
}

// line returns the line of the value at path, or of its nearest parent.
func (s *source) line(path string) int {
	for {
		if l, ok := s.lines[path]; ok {
			return l
		}
		i := strings.LastIndexAny(path, ".[")
		if i <= 0 {
			return s.lines[""]
		}
		path = path[:i]
	}
}

type jsonReader struct {
	data  []byte
	pos   int
	line  int
	lines map[string]int
}

func (r *jsonReader) errorf(format string, args ...any) error {
	return &SyntaxError{Line: r.line, Msg: fmt.Sprintf(format, args...)}
}

// space skips white space and comments, counting lines.
func (r *jsonReader) space() error {
	for r.pos < len(r.data) {
		switch c := r.data[r.pos]; {
		case c == '\n':
			r.line++
			r.pos++
		case c == ' ' || c == '\t' || c == '\r':
			r.pos++
		case c == '/' && r.pos+1 < len(r.data) && r.data[r.pos+1] == '/':
			for r.pos < len(r.data) && r.data[r.pos] != '\n' {
				r.pos++
			}
		case c == '/' && r.pos+1 < len(r.data) && r.data[r.pos+1] == '*':
			end := strings.Index(string(r.data[r.pos+2:]), "*/")
			if end < 0 {
				return r.errorf("unterminated /* comment")
			}
			r.line += strings.Count(string(r.data[r.pos:r.pos+2+end]), "\n")
			r.pos += end + 4
		default:
			return nil
		}
	}
	return nil
}

const maxNesting = 200

func (r *jsonReader) value(path string, depth int) (any, error) {
	if depth > maxNesting {
		return nil, r.errorf("nested deeper than %d levels", maxNesting)
	}
	if err := r.space(); err != nil {
		return nil, err
	}
	if r.pos >= len(r.data) {
		return nil, r.errorf("unexpected end of input")
	}
	r.lines[path] = r.line
	switch c := r.data[r.pos]; {
	case c == '{':
		return r.object(path, depth)
	case c == '[':
		return r.array(path, depth)
	case c == '"':
		return r.str()
	case c == '-' || c >= '0' && c <= '9':
		return r.number()
	}
	for word, v := range map[string]any{"true": true, "false": false, "null": nil} {
		if strings.HasPrefix(string(r.data[r.pos:min(len(r.data), r.pos+5)]), word) {
			r.pos += len(word)
			return v, nil
		}
	}
	return nil, r.errorf("unexpected %q: not JSON", r.data[r.pos])
}

func (r *jsonReader) object(path string, depth int) (any, error) {
	r.pos++
	out := map[string]any{}
	for first := true; ; first = false {
		if err := r.space(); err != nil {
			return nil, err
		}
		if r.pos < len(r.data) && r.data[r.pos] == '}' {
			r.pos++
			return out, nil
		}
		if !first {
			if r.pos >= len(r.data) || r.data[r.pos] != ',' {
				return nil, r.errorf("expected ',' or '}' in an object")
			}
			r.pos++
			if err := r.space(); err != nil {
				return nil, err
			}
			if r.pos < len(r.data) && r.data[r.pos] == '}' { // a trailing comma, as ARM allows
				r.pos++
				return out, nil
			}
		}
		if r.pos >= len(r.data) || r.data[r.pos] != '"' {
			return nil, r.errorf("expected a property name in double quotes")
		}
		k, err := r.str()
		if err != nil {
			return nil, err
		}
		if err := r.space(); err != nil {
			return nil, err
		}
		if r.pos >= len(r.data) || r.data[r.pos] != ':' {
			return nil, r.errorf("expected ':' after %q", k)
		}
		r.pos++
		v, err := r.value(joinPath(path, k), depth+1)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
}

func (r *jsonReader) array(path string, depth int) (any, error) {
	r.pos++
	out := []any{}
	for first := true; ; first = false {
		if err := r.space(); err != nil {
			return nil, err
		}
		if r.pos < len(r.data) && r.data[r.pos] == ']' {
			r.pos++
			return out, nil
		}
		if !first {
			if r.pos >= len(r.data) || r.data[r.pos] != ',' {
				return nil, r.errorf("expected ',' or ']' in an array")
			}
			r.pos++
			if err := r.space(); err != nil {
				return nil, err
			}
			if r.pos < len(r.data) && r.data[r.pos] == ']' {
				r.pos++
				return out, nil
			}
		}
		v, err := r.value(fmt.Sprintf("%s[%d]", path, len(out)), depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
}

// lineBreaks escapes the line breaks of a multi-line string for strconv.
var lineBreaks = strings.NewReplacer("\n", `\n`, "\r", `\r`)

func (r *jsonReader) str() (string, error) {
	start := r.pos
	r.pos++
	simple := true
	for r.pos < len(r.data) {
		switch c := r.data[r.pos]; c {
		case '"':
			r.pos++
			raw := string(r.data[start:r.pos])
			if simple {
				return raw[1 : len(raw)-1], nil
			}
			s, err := strconv.Unquote(lineBreaks.Replace(raw))
			if err != nil {
				return "", r.errorf("bad string %s", raw)
			}
			return s, nil
		case '\\':
			simple = false
			r.pos += 2
		case '\n', '\r':
			// ARM reads a string broken over lines as it is written
			// ("multi-line strings", template syntax on Microsoft Learn).
			r.pos++
		default:
			if c >= 0x80 {
				simple = false
				_, n := utf8.DecodeRune(r.data[r.pos:])
				r.pos += n
				continue
			}
			r.pos++
		}
	}
	return "", r.errorf("unterminated string")
}

func (r *jsonReader) number() (any, error) {
	start := r.pos
	for r.pos < len(r.data) && strings.IndexByte("+-0123456789.eE", r.data[r.pos]) >= 0 {
		r.pos++
	}
	text := string(r.data[start:r.pos])
	if i, err := strconv.ParseInt(text, 10, 64); err == nil {
		return i, nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, r.errorf("bad number %q", text)
	}
	return f, nil
}

// joinPath appends an object member to a JSON path, quoting names that are
// not plain.
func joinPath(path, k string) string {
	plain := k != ""
	for _, c := range k {
		if !(c == '_' || c == '$' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			plain = false
			break
		}
	}
	if !plain {
		return path + "[" + strconv.Quote(k) + "]"
	}
	if path == "" {
		return k
	}
	return path + "." + k
}
