// Package expr is ARM's template expression language: a parser for the
// text inside "[...]", an evaluator, and the functions that need nothing but
// their arguments. Functions that read a deployment (parameters, resourceId,
// reference, ...) are given by the caller through Funcs.
package expr

import (
	"fmt"
	"strconv"
	"strings"
)

// Node is one node of a parsed expression.
type Node interface{ Pos() int }

// Lit is a string, number or boolean written in the expression.
type Lit struct {
	Val any
	At  int
}

// Call is a function call; Name keeps its spelling (user functions are
// "namespace.name").
type Call struct {
	Name string
	Args []Node
	At   int
}

// Access is x.name or x[index].
type Access struct {
	X   Node
	Key Node
	At  int
}

func (n *Lit) Pos() int    { return n.At }
func (n *Call) Pos() int   { return n.At }
func (n *Access) Pos() int { return n.At }

// Error is a problem at a byte offset of the expression text.
type Error struct {
	At  int
	Msg string
}

func (e *Error) Error() string { return e.Msg }

func errorf(at int, format string, args ...any) *Error {
	return &Error{At: at, Msg: fmt.Sprintf(format, args...)}
}

// IsExpression reports whether a template string is an expression: it
// starts with "[" and ends with "]", and does not start with "[[" (ARM's
// escape for a literal leading bracket).
func IsExpression(s string) bool {
	return len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' && s[1] != '['
}

// Unescape returns the literal value of a template string that is not an
// expression: a leading "[[" stands for "[".
func Unescape(s string) string {
	if strings.HasPrefix(s, "[[") {
		return s[1:]
	}
	return s
}

// Parse parses the text of a template string that IsExpression, brackets
// included. Offsets in nodes and errors count from the opening bracket.
func Parse(s string) (Node, error) {
	if !IsExpression(s) {
		return nil, errorf(0, "not an expression: %q", s)
	}
	p := &parser{src: s[:len(s)-1], pos: 1}
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos < len(p.src) {
		return nil, errorf(p.pos, "unexpected %q at offset %d of %s", p.src[p.pos:p.pos+1], p.pos, s)
	}
	return n, nil
}

type parser struct {
	src string
	pos int
}

func (p *parser) space() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\n' || p.src[p.pos] == '\r') {
		p.pos++
	}
}

func (p *parser) peek() byte {
	p.space()
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func (p *parser) expect(c byte) error {
	if p.peek() != c {
		if p.pos >= len(p.src) {
			return errorf(p.pos, "expected %q, the expression ended", c)
		}
		return errorf(p.pos, "expected %q at offset %d, got %q", c, p.pos, p.src[p.pos])
	}
	p.pos++
	return nil
}

// maxDepth bounds nesting, so hostile input cannot exhaust the stack.
const maxDepth = 200

func (p *parser) expr() (Node, error) { return p.exprDepth(0) }

func (p *parser) exprDepth(depth int) (Node, error) {
	if depth > maxDepth {
		return nil, errorf(p.pos, "expression nested deeper than %d levels", maxDepth)
	}
	n, err := p.primary(depth)
	if err != nil {
		return nil, err
	}
	for {
		switch p.peek() {
		case '.':
			at := p.pos
			p.pos++
			if p.peek() == '?' { // Bicep's safe dereference, as ARM writes it
				p.pos++
			}
			name := p.ident()
			if name == "" {
				return nil, errorf(p.pos, "expected a property name after '.' at offset %d", at)
			}
			n = &Access{X: n, Key: &Lit{Val: name, At: at + 1}, At: at}
		case '[':
			at := p.pos
			p.pos++
			if p.peek() == '?' {
				p.pos++
			}
			k, err := p.exprDepth(depth + 1)
			if err != nil {
				return nil, err
			}
			if err := p.expect(']'); err != nil {
				return nil, err
			}
			n = &Access{X: n, Key: k, At: at}
		default:
			return n, nil
		}
	}
}

func (p *parser) primary(depth int) (Node, error) {
	c := p.peek()
	at := p.pos
	switch {
	case c == 0:
		return nil, errorf(at, "expected a value, the expression ended")
	case c == '\'':
		s, err := p.str()
		return &Lit{Val: s, At: at}, err
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case isIdentStart(c):
		name := p.ident()
		// A namespaced user function: ns.name(...).
		if p.peek() == '.' {
			save := p.pos
			p.pos++
			if member := p.ident(); member != "" && p.peek() == '(' {
				name += "." + member
			} else {
				p.pos = save
			}
		}
		if p.peek() != '(' {
			switch strings.ToLower(name) {
			case "true":
				return &Lit{Val: true, At: at}, nil
			case "false":
				return &Lit{Val: false, At: at}, nil
			case "null":
				return &Lit{Val: nil, At: at}, nil
			}
			return nil, errorf(at, "expected '(' after %s at offset %d (a function call)", name, at)
		}
		p.pos++
		call := &Call{Name: name, At: at}
		if p.peek() == ')' {
			p.pos++
			return call, nil
		}
		for {
			a, err := p.exprDepth(depth + 1)
			if err != nil {
				return nil, err
			}
			call.Args = append(call.Args, a)
			switch p.peek() {
			case ',':
				p.pos++
			case ')':
				p.pos++
				return call, nil
			default:
				if p.pos >= len(p.src) {
					return nil, errorf(p.pos, "missing ')' to close %s(", name)
				}
				return nil, errorf(p.pos, "expected ',' or ')' at offset %d in the arguments of %s", p.pos, name)
			}
		}
	}
	return nil, errorf(at, "unexpected %q at offset %d", c, at)
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func (p *parser) ident() string {
	p.space()
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if !isIdentStart(c) && !(c >= '0' && c <= '9') && !(p.pos > start && c == '-') {
			break
		}
		p.pos++
	}
	return p.src[start:p.pos]
}

// str reads a single-quoted string; ” is a quote.
func (p *parser) str() (string, error) {
	start := p.pos
	p.pos++
	var b strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		p.pos++
		if c != '\'' {
			b.WriteByte(c)
			continue
		}
		if p.pos < len(p.src) && p.src[p.pos] == '\'' {
			b.WriteByte('\'')
			p.pos++
			continue
		}
		return b.String(), nil
	}
	return "", errorf(start, "unterminated string starting at offset %d", start)
}

func (p *parser) number() (Node, error) {
	at := p.pos
	if p.src[p.pos] == '-' {
		p.pos++
	}
	dot := false
	for p.pos < len(p.src) && (p.src[p.pos] >= '0' && p.src[p.pos] <= '9' || p.src[p.pos] == '.' && !dot) {
		dot = dot || p.src[p.pos] == '.'
		p.pos++
	}
	text := p.src[at:p.pos]
	if dot {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, errorf(at, "bad number %q", text)
		}
		return &Lit{Val: f, At: at}, nil
	}
	i, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return nil, errorf(at, "bad number %q", text)
	}
	return &Lit{Val: i, At: at}, nil
}
