package expr

import (
	"fmt"
	"strings"
)

// Values are JSON values: nil, bool, int64, float64, string, []any,
// map[string]any, plus *Lambda and Unknown.

// Func is one function. Its arguments are evaluated unless it is a special
// form of the evaluator (if, lambda).
type Func func(c *Ctx, args []any) (any, error)

// Funcs looks up a function by its lower-cased name; the caller's
// functions come first, then the built-ins.
type Funcs func(name string) (Func, bool)

// Unknown is a value known only when the template is deployed (a
// reference(), a listKeys(), an ID whose subscription is not given). The
// caller defines what each one is; the evaluator carries it through
// accesses and string building.
type Unknown interface {
	// Access returns the value at a member (string) or index (int64).
	Access(key any) (any, error)
	// Describe names the value for messages ("reference(st)").
	Describe() string
}

// Resolver is an Unknown that may still be known at convert time (an ID
// when the subscription is given); functions that need a concrete value
// (toLower, a hash) ask it.
type Resolver interface {
	Resolve() (any, bool)
}

// Concat is a string built from literals and unknown values, in order.
type Concat struct{ Parts []any }

// Hash is uniqueString() or guid() over arguments some of which are
// unknown.
type Hash struct {
	Func string // "uniqueString" or "guid"
	Args []any
}

func (c *Concat) Access(any) (any, error) {
	return nil, fmt.Errorf("cannot read a property of a string known only at deploy time (%s)", c.Describe())
}
func (c *Concat) Describe() string {
	var b strings.Builder
	for _, p := range c.Parts {
		if s, ok := p.(string); ok {
			b.WriteString(s)
		} else {
			b.WriteString("{" + p.(Unknown).Describe() + "}")
		}
	}
	return b.String()
}

// Encoded is base64() of a string known only at deploy time. A manifest
// can say it only of a whole value (valueFrom.template with encoding:
// base64); inside a longer string it stays beyond a manifest.
type Encoded struct{ Of any }

func (e *Encoded) Access(any) (any, error) {
	return nil, fmt.Errorf("cannot read a property of base64(...)")
}
func (e *Encoded) Describe() string { return "base64(" + describe(e.Of) + ")" }

func (h *Hash) Access(any) (any, error) {
	return nil, fmt.Errorf("cannot read a property of %s()", h.Func)
}
func (h *Hash) Describe() string { return h.Func + "(...)" }

// Lambda is lambda('x', ..., body) with the variables it closed over.
type Lambda struct {
	Params []string
	Body   Node
	vars   map[string]any
}

// DeferredError says a value needed at convert time is known only at deploy
// time.
type DeferredError struct {
	Func string
	What string
}

func (e *DeferredError) Error() string {
	return fmt.Sprintf("%s needs a value known only at deploy time (%s)", e.Func, e.What)
}

// Ctx is one evaluation: the functions and the lambda variables in scope.
type Ctx struct {
	Funcs Funcs
	vars  map[string]any
	// Func is the name of the function being called, for messages.
	Func string
	// Node is the node being evaluated, for positions.
	depth int
}

// Eval evaluates a parsed expression.
func (c *Ctx) Eval(n Node) (any, error) {
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > 4*maxDepth {
		return nil, errorf(n.Pos(), "expression evaluation nested too deeply")
	}
	switch n := n.(type) {
	case *Lit:
		return n.Val, nil
	case *Access:
		x, err := c.Eval(n.X)
		if err != nil {
			return nil, err
		}
		k, err := c.Eval(n.Key)
		if err != nil {
			return nil, err
		}
		v, err := Index(x, k)
		if err != nil {
			return nil, at(n.At, err)
		}
		return v, nil
	case *Call:
		return c.call(n)
	}
	return nil, errorf(n.Pos(), "unknown node")
}

func (c *Ctx) call(n *Call) (any, error) {
	name := strings.ToLower(n.Name)
	switch name {
	case "if":
		return c.evalIf(n)
	case "lambda":
		return c.evalLambda(n)
	case "lambdavariables":
		return c.lambdaVar(n)
	}
	f, ok := c.Funcs(name)
	if !ok {
		if f, ok = builtins[name]; !ok {
			return nil, errorf(n.At, "unknown function %s()", n.Name)
		}
	}
	args := make([]any, len(n.Args))
	for i, a := range n.Args {
		v, err := c.Eval(a)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	saved := c.Func
	c.Func = n.Name
	v, err := f(c, args)
	c.Func = saved
	if err != nil {
		var e *Error
		if asError(err, &e) {
			return nil, err
		}
		if _, ok := err.(*DeferredError); ok {
			return nil, err
		}
		return nil, &Error{At: n.At, Msg: n.Name + ": " + err.Error()}
	}
	return v, nil
}

func asError(err error, target **Error) bool {
	e, ok := err.(*Error)
	if ok {
		*target = e
	}
	return ok
}

func at(pos int, err error) error {
	if _, ok := err.(*Error); ok {
		return err
	}
	return &Error{At: pos, Msg: err.Error()}
}

// evalIf evaluates only the branch the condition picks, as ARM does.
func (c *Ctx) evalIf(n *Call) (any, error) {
	if len(n.Args) != 3 {
		return nil, errorf(n.At, "if takes 3 arguments, got %d", len(n.Args))
	}
	cond, err := c.Eval(n.Args[0])
	if err != nil {
		return nil, err
	}
	b, err := Bool(cond)
	if err != nil {
		return nil, at(n.At, fmt.Errorf("if: %w", err))
	}
	if b {
		return c.Eval(n.Args[1])
	}
	return c.Eval(n.Args[2])
}

func (c *Ctx) evalLambda(n *Call) (any, error) {
	if len(n.Args) < 2 {
		return nil, errorf(n.At, "lambda takes its variable names and a body")
	}
	l := &Lambda{Body: n.Args[len(n.Args)-1], vars: c.vars}
	for _, a := range n.Args[:len(n.Args)-1] {
		lit, ok := a.(*Lit)
		s, isStr := lit.Val.(string)
		if !ok || !isStr {
			return nil, errorf(a.Pos(), "lambda variable names must be string literals")
		}
		l.Params = append(l.Params, s)
	}
	return l, nil
}

func (c *Ctx) lambdaVar(n *Call) (any, error) {
	if len(n.Args) != 1 {
		return nil, errorf(n.At, "lambdaVariables takes one name")
	}
	v, err := c.Eval(n.Args[0])
	if err != nil {
		return nil, err
	}
	name, _ := v.(string)
	if val, ok := c.vars[name]; ok {
		return val, nil
	}
	return nil, errorf(n.At, "lambdaVariables('%s'): no such lambda variable in scope", name)
}

// Apply calls a lambda with its arguments.
func (c *Ctx) Apply(l *Lambda, args ...any) (any, error) {
	if len(args) < len(l.Params) {
		return nil, fmt.Errorf("the lambda takes %d arguments, got %d", len(l.Params), len(args))
	}
	vars := make(map[string]any, len(l.vars)+len(l.Params))
	for k, v := range l.vars {
		vars[k] = v
	}
	for i, p := range l.Params {
		vars[p] = args[i]
	}
	saved := c.vars
	c.vars = vars
	defer func() { c.vars = saved }()
	return c.Eval(l.Body)
}

// Index is x[k] or x.k: array items by integer, object members by name
// (case-insensitively, as ARM reads properties).
func Index(x, k any) (any, error) {
	switch x := x.(type) {
	case map[string]any:
		name, ok := k.(string)
		if !ok {
			return nil, fmt.Errorf("an object member needs a string name, got %s", TypeName(k))
		}
		if v, ok := Member(x, name); ok {
			return v, nil
		}
		return nil, fmt.Errorf("the object has no property %q (it has %s)", name, keyList(x))
	case []any:
		i, ok := k.(int64)
		if !ok {
			return nil, fmt.Errorf("an array index must be an integer, got %s", TypeName(k))
		}
		if i < 0 || i >= int64(len(x)) {
			return nil, fmt.Errorf("index %d is out of range (the array has %d items)", i, len(x))
		}
		return x[i], nil
	case Unknown:
		return x.Access(k)
	case nil:
		return nil, fmt.Errorf("cannot read %v of null", k)
	}
	return nil, fmt.Errorf("cannot read %v of a %s", k, TypeName(x))
}

// Member reads an object member, exactly first, then ignoring case.
func Member(m map[string]any, name string) (any, bool) {
	if v, ok := m[name]; ok {
		return v, true
	}
	for k, v := range m {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return nil, false
}

func keyList(m map[string]any) string {
	keys := SortedKeys(m)
	if len(keys) == 0 {
		return "no properties"
	}
	if len(keys) > 8 {
		keys = append(keys[:8], "...")
	}
	return strings.Join(keys, ", ")
}

// Resolve is the string when every part is known at convert time.
func (c *Concat) Resolve() (any, bool) {
	var b strings.Builder
	for _, p := range c.Parts {
		v, ok := Known(p)
		if !ok {
			return nil, false
		}
		s, err := String(v)
		if err != nil {
			return nil, false
		}
		b.WriteString(s)
	}
	return b.String(), true
}

// Resolve computes the hash when every argument is known at convert time.
func (h *Hash) Resolve() (any, bool) {
	v, err := hashFunc(h.Func)(&Ctx{Funcs: noFuncs}, h.Args)
	if err != nil {
		return nil, false
	}
	if _, still := v.(*Hash); still {
		return nil, false
	}
	return v, true
}

func noFuncs(string) (Func, bool) { return nil, false }

// Transformed is replace() or split()[i] over a string known only at
// deploy time. A manifest can say it of a whole value (valueFrom.template
// with transform steps, applied at apply time with ARM's semantics);
// inside a longer string it stays beyond a manifest.
type Transformed struct {
	Of    any
	Steps []Step
}

// Step is one transform: Replace (every Old becomes New), else the
// Index-th part of a split at any of Seps (-1: the last, last()).
type Step struct {
	Replace  bool
	Old, New string
	Seps     []string
	Index    int64
}

func (t *Transformed) Access(any) (any, error) {
	return nil, fmt.Errorf("cannot read a property of a string function's result")
}

func (t *Transformed) Describe() string {
	s := describe(t.Of)
	for _, st := range t.Steps {
		if st.Replace {
			s = fmt.Sprintf("replace(%s, %q, %q)", s, st.Old, st.New)
		} else {
			s = fmt.Sprintf("split(%s, %q)[%d]", s, st.Seps, st.Index)
		}
	}
	return s
}

// then is t (or a new Transformed over v) with one more step.
func then(v any, st Step) *Transformed {
	if t, ok := v.(*Transformed); ok {
		return &Transformed{Of: t.Of, Steps: append(append([]Step{}, t.Steps...), st)}
	}
	return &Transformed{Of: v, Steps: []Step{st}}
}

// Parts is split() of a string known only at deploy time: an item of it
// is a Transformed; anything else about it (its length) is not known.
type Parts struct {
	Of   any
	Seps []string
}

func (p *Parts) Access(k any) (any, error) {
	i, ok := k.(int64)
	if !ok || i < 0 {
		return nil, fmt.Errorf("an item of split(...) is read by a non-negative index, got %v", k)
	}
	return then(p.Of, Step{Seps: p.Seps, Index: i}), nil
}

func (p *Parts) Describe() string { return fmt.Sprintf("split(%s, %q)", describe(p.Of), p.Seps) }
