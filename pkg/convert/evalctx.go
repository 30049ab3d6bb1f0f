package convert

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert/expr"
)

// evalCtx is where one template value is evaluated: its deployment, its
// JSON path (for problems), the copy loops around it, and whether
// parameter-default-only functions (newGuid, utcNow) are allowed.
type evalCtx struct {
	d         *deployment
	path      string
	loops     map[string]int64
	cur       string // the innermost loop, for copyIndex() without a name
	inDefault bool
	fnParams  map[string]any // inside a user function: its parameters
}

// evalError is a problem at a JSON path of the template.
type evalError struct {
	path string
	msg  string
	// deferred: the value is known only at deploy time (the template is
	// fine; the converter cannot express it).
	deferred bool
}

func (e *evalError) Error() string { return e.path + ": " + e.msg }

func (e *evalCtx) errorf(path, format string, args ...any) error {
	return &evalError{path: path, msg: fmt.Sprintf(format, args...)}
}

func (e *evalCtx) with(path string) *evalCtx {
	c := *e
	c.path = path
	return &c
}

func (e *evalCtx) withLoop(name string, i int64) *evalCtx {
	c := *e
	c.loops = make(map[string]int64, len(e.loops)+1)
	for k, v := range e.loops {
		c.loops[k] = v
	}
	c.loops[strings.ToLower(name)] = i
	c.cur = strings.ToLower(name)
	return &c
}

// value evaluates a template value at path: expressions in strings (and
// in object keys), property copy loops, and everything inside.
func (e *evalCtx) value(v any, path string) (any, error) {
	switch x := v.(type) {
	case string:
		return e.str(x, path)
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			r, err := e.value(item, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case map[string]any:
		return e.object(x, path)
	}
	return v, nil
}

func (e *evalCtx) object(x map[string]any, path string) (any, error) {
	out := make(map[string]any, len(x))
	for k, item := range x {
		p := joinPath(path, k)
		if k == "copy" && isPropertyCopy(item) {
			if err := e.propertyCopy(item.([]any), p, out); err != nil {
				return nil, err
			}
			continue
		}
		key := k
		if expr.IsExpression(k) {
			kv, err := e.str(k, p)
			if err != nil {
				return nil, err
			}
			ks, err := e.d.r.keyString(kv)
			if err != nil {
				return nil, e.errorf(p, "a property name must be a string: %v", err)
			}
			key = ks
		} else {
			key = expr.Unescape(k)
		}
		r, err := e.value(item, p)
		if err != nil {
			return nil, err
		}
		out[key] = r
	}
	return out, nil
}

// keyPrefix marks a property name known only at deploy time; the number
// after it indexes run.keys. No template name starts with a NUL.
const keyPrefix = "\x00key:"

// keyString is an evaluated property name; a name known only at deploy
// time keeps its placeholder text (rendered later).
func (r *run) keyString(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case expr.Unknown:
		r.keys = append(r.keys, x)
		return fmt.Sprintf("%s%d", keyPrefix, len(r.keys)-1), nil
	}
	return "", fmt.Errorf("got %s", expr.TypeName(v))
}

// isPropertyCopy reports whether a "copy" member is ARM's property loop
// (an array of {name, count, input}) rather than a property named copy.
func isPropertyCopy(v any) bool {
	arr, ok := v.([]any)
	if !ok || len(arr) == 0 {
		return false
	}
	for _, item := range arr {
		m, ok := item.(map[string]any)
		if !ok {
			return false
		}
		if _, ok := m["input"]; !ok {
			return false
		}
		if _, ok := m["name"]; !ok {
			return false
		}
	}
	return true
}

// propertyCopy fills out[name] with count instances of input for every
// loop of a "copy" member.
func (e *evalCtx) propertyCopy(loops []any, path string, out map[string]any) error {
	for i, l := range loops {
		m := l.(map[string]any)
		p := fmt.Sprintf("%s[%d]", path, i)
		name, count, err := e.loopHeader(m, p)
		if err != nil {
			return err
		}
		items := make([]any, 0, count)
		for j := int64(0); j < count; j++ {
			v, err := e.withLoop(name, j).value(m["input"], joinPath(p, "input"))
			if err != nil {
				return err
			}
			items = append(items, v)
		}
		out[name] = items
	}
	return nil
}

// loopHeader reads a copy loop's name and count (which must be known).
func (e *evalCtx) loopHeader(m map[string]any, path string) (string, int64, error) {
	nv, err := e.value(m["name"], joinPath(path, "name"))
	if err != nil {
		return "", 0, err
	}
	name, ok := nv.(string)
	if !ok || name == "" {
		return "", 0, e.errorf(joinPath(path, "name"), "a copy loop needs a name")
	}
	cv, err := e.value(m["count"], joinPath(path, "count"))
	if err != nil {
		return "", 0, err
	}
	cv, known := expr.Known(cv)
	count, isInt := cv.(int64)
	switch {
	case !known:
		return "", 0, &evalError{path: joinPath(path, "count"), msg: "the copy count is known only at deploy time", deferred: true}
	case !isInt || count < 0 || count > 800:
		return "", 0, e.errorf(joinPath(path, "count"), "the copy count must be an integer from 0 to 800, got %v", cv)
	}
	return name, count, nil
}

// str evaluates one template string.
func (e *evalCtx) str(s, path string) (any, error) {
	if !expr.IsExpression(s) {
		return expr.Unescape(s), nil
	}
	n, err := e.d.r.parse(s)
	if err != nil {
		return nil, e.errorf(path, "%s: %v (%s)", oneLine(s), err, armRefuses)
	}
	c := &expr.Ctx{Funcs: e.funcs}
	e2 := e.with(path)
	c.Funcs = e2.funcs
	v, err := c.Eval(n)
	if err != nil {
		var ee *evalError
		if errors.As(err, &ee) {
			return nil, err
		}
		var de *expr.DeferredError
		if errors.As(err, &de) {
			return nil, &evalError{path: path, msg: fmt.Sprintf("%s: %v", oneLine(s), err), deferred: true}
		}
		return nil, e.errorf(path, "%s: %v", oneLine(s), err)
	}
	return v, nil
}

// armRefuses marks a problem ARM's own validation of the template shares:
// the deployment fails with InvalidTemplate before anything is written,
// so it is the template's fault, not the conversion's.
const armRefuses = "ARM refuses the template: InvalidTemplate"

// oneLine is an expression as a message quotes it: a problem is one line,
// and an expression broken over lines would bury the reason after it.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// loop returns the value of copyIndex(name) for the loop named (or the
// innermost).
func (e *evalCtx) loop(name string) (int64, bool) {
	if name == "" {
		name = e.cur
	}
	v, ok := e.loops[strings.ToLower(name)]
	return v, ok
}
