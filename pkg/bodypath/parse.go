package bodypath

import (
	"fmt"
	"strconv"
	"strings"
)

// Parse reads every form the tool writes or accepts from users: members
// joined by dots (quoted as "a.b" when needed), and in brackets a position
// ([0]), an item by values ([default], ["a.b"], [default,x] as Display
// writes it) or by identifier names ([name=default,kind=x]), any item
// ([*]) or the schema's item ([]).
// A bracket after a member of an object names that member where the
// caller allows it (tags["a.b"]); Parse only records what was written.
func Parse(s string) (Path, error) {
	p := parser{src: strings.TrimSpace(s)}
	return p.path()
}

type parser struct {
	src string
	i   int
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("body path %q: %s", p.src, fmt.Sprintf(format, args...))
}

func (p *parser) path() (Path, error) {
	if p.src == "" {
		return nil, p.errorf("empty path; write members joined by dots, e.g. properties.sku")
	}
	var out Path
	for p.i < len(p.src) {
		switch c := p.src[p.i]; {
		case c == '[':
			s, err := p.bracket()
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		case c == '.' && len(out) == 0:
			return nil, p.errorf("starts with a dot")
		case c == '.':
			p.i++
			if p.i >= len(p.src) || p.src[p.i] == '.' || p.src[p.i] == '[' {
				return nil, p.errorf("empty member name at offset %d; quote it (\"\") if the body really has one", p.i)
			}
			fallthrough
		default:
			if len(out) > 0 && c != '.' {
				return nil, p.errorf("expected . or [ at offset %d", p.i)
			}
			name, quoted, err := p.token(".[")
			if err != nil {
				return nil, err
			}
			if name == "" && !quoted {
				return nil, p.errorf("empty member name at offset %d", p.i)
			}
			out = append(out, Field(name))
		}
	}
	return out, nil
}

// bracket reads one [...] segment.
func (p *parser) bracket() (Seg, error) {
	start := p.i
	p.i++ // '['
	var keys, vals []string
	quoted := false
	for {
		tok, q, err := p.token("=,]")
		if err != nil {
			return Seg{}, err
		}
		quoted = quoted || q
		if p.i < len(p.src) && p.src[p.i] == '=' {
			p.i++
			v, _, err := p.token(",]")
			if err != nil {
				return Seg{}, err
			}
			keys, vals = append(keys, tok), append(vals, v)
		} else {
			vals = append(vals, tok)
		}
		if p.i >= len(p.src) {
			return Seg{}, p.errorf("[ at offset %d is not closed", start)
		}
		if p.src[p.i] == ']' {
			p.i++
			break
		}
		p.i++ // ','
	}
	if len(keys) == 0 && len(vals) == 1 && !quoted {
		switch v := vals[0]; {
		case v == "":
			return Seg{Kind: Item}, nil
		case v == "*":
			return Seg{Kind: AnyItem}, nil
		case isDigits(v):
			// A number too large for a position can only be a value.
			if n, err := strconv.Atoi(v); err == nil {
				return At(n), nil
			}
		}
	}
	switch {
	case len(keys) == 0:
		return ByKeys(nil, vals), nil
	case len(keys) == len(vals):
		return ByKeys(keys, vals), nil
	}
	return Seg{}, p.errorf("item at offset %d mixes forms: give every identifier as name=value, or values only", start)
}

// token reads a quoted string or the text up to one of stops. quoted is
// true for a quoted string, which may be followed only by a stop.
func (p *parser) token(stops string) (v string, quoted bool, err error) {
	if p.i < len(p.src) && p.src[p.i] == '"' {
		j := p.i + 1
		for j < len(p.src) && p.src[j] != '"' {
			if p.src[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(p.src) {
			return "", true, p.errorf("quote at offset %d is not closed", p.i)
		}
		v, err := strconv.Unquote(p.src[p.i : j+1])
		if err != nil {
			return "", true, p.errorf("bad quoted name at offset %d: %v", p.i, err)
		}
		p.i = j + 1
		if p.i < len(p.src) && !strings.ContainsRune(stops, rune(p.src[p.i])) {
			return "", true, p.errorf("unexpected %q after the quoted name at offset %d", p.src[p.i], p.i)
		}
		return v, true, nil
	}
	j := p.i
	for j < len(p.src) && !strings.ContainsRune(stops, rune(p.src[j])) {
		j++
	}
	v = p.src[p.i:j]
	p.i = j
	return v, false, nil
}
