package manifest

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Input bounds. A manifest set is text a person wrote; anything larger is a
// mistake (-f /dev/zero, a log file) or an attack (an alias bomb), and is
// refused before it can exhaust memory. docs/manifests.md documents them.
const (
	// MaxFileBytes bounds one file or standard input.
	MaxFileBytes = 16 << 20
	// MaxTotalBytes bounds everything one run reads.
	MaxTotalBytes = 64 << 20
	// maxNodes bounds the values of one document after alias expansion.
	maxNodes = 1 << 20
	// maxDepth bounds nesting; ARM bodies are far shallower.
	maxDepth = 200
)

// lineMap maps a document path ("spec.body.properties.x", "[2]" for array
// items) to the 1-based file line of its key or item.
type lineMap map[string]int

// lineOf returns the line of path or of its nearest ancestor that has one.
func (m lineMap) lineOf(path string) int {
	for p := path; ; {
		if n, ok := m[p]; ok {
			return n
		}
		if p == "" {
			return 0
		}
		p = parentDocPath(p)
	}
}

// parentDocPath drops the last segment of a document path.
func parentDocPath(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return ""
	}
	return p[:i]
}

// jsonNumberRE is the JSON number grammar: literals that match are kept
// byte for byte, so 12345678901234567890 and 0.10 reach ARM as written.
var jsonNumberRE = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// converter turns a yaml.Node tree into JSON values (numbers as
// json.Number), bounding alias expansion. With lines set it also records
// the line of every path; without, it builds no paths at all.
type converter struct {
	lines  lineMap
	offset int // file line of the document's first line, minus one
	nodes  int
	intern *interner // nil: no sharing
}

// decodeError is a problem in one document, at a file line.
type decodeError struct {
	line int
	msg  string
}

func (e *decodeError) Error() string { return e.msg }

// fail returns the error for a problem at node n, with its file line.
func (c *converter) fail(n *yaml.Node, format string, args ...any) error {
	line := n.Line + c.offset
	return &decodeError{line, fmt.Sprintf("line %d: ", line) + fmt.Sprintf(format, args...)}
}

// convert decodes one YAML document. Errors are *decodeError.
func (c *converter) convert(n *yaml.Node) (any, error) {
	return c.value(n, "", 0)
}

func (c *converter) value(n *yaml.Node, path string, depth int) (any, error) {
	c.nodes++
	if c.nodes > maxNodes {
		return nil, c.fail(n, "the document expands to more than %d values (too many aliases?); split it or remove the aliases", maxNodes)
	}
	if depth > maxDepth {
		return nil, c.fail(n, "nesting deeper than %d levels", maxDepth)
	}
	if c.lines != nil {
		if _, seen := c.lines[path]; !seen {
			c.lines[path] = n.Line + c.offset
		}
	}
	switch n.Kind {
	case 0: // an empty document or comments only
		return nil, nil
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0], path, depth)
	case yaml.AliasNode:
		return c.value(n.Alias, path, depth+1)
	case yaml.SequenceNode:
		out := make([]any, len(n.Content))
		for i, item := range n.Content {
			v, err := c.value(item, c.itemPath(path, i), depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
				return nil, c.fail(k, "merge keys (<<) are not supported; write the fields out")
			}
			if k.Kind != yaml.ScalarNode {
				return nil, c.fail(k, "mapping keys must be strings")
			}
			key := c.intern.key(k.Value)
			if _, dup := out[key]; dup {
				return nil, c.fail(k, "key %q is already defined in this mapping", key)
			}
			var kp string
			if c.lines != nil {
				kp = joinPath(path, key)
				c.lines[kp] = k.Line + c.offset
			}
			val, err := c.value(v, kp, depth+1)
			if err != nil {
				return nil, err
			}
			out[key] = val
		}
		return out, nil
	case yaml.ScalarNode:
		return c.scalar(n)
	}
	return nil, c.fail(n, "unsupported YAML node")
}

// itemPath is the path of item i of the sequence at path, when lines are
// recorded.
func (c *converter) itemPath(path string, i int) string {
	if c.lines == nil {
		return ""
	}
	return fmt.Sprintf("%s[%d]", path, i)
}

func (c *converter) scalar(n *yaml.Node) (any, error) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		b, err := strconv.ParseBool(strings.ToLower(n.Value))
		if err != nil {
			return nil, c.fail(n, "%q is not a boolean", n.Value)
		}
		return b, nil
	case "!!int":
		if jsonNumberRE.MatchString(n.Value) {
			return c.intern.number(n.Value), nil
		}
		// YAML spellings JSON lacks: 0x1F, 0o17, +5, 1_000.
		var z big.Int
		lit := strings.TrimPrefix(strings.ReplaceAll(n.Value, "_", ""), "+")
		if _, ok := z.SetString(lit, 0); !ok {
			return nil, c.fail(n, "%q is not an integer", n.Value)
		}
		return json.Number(z.String()), nil
	case "!!float":
		if jsonNumberRE.MatchString(n.Value) {
			return c.intern.number(n.Value), nil
		}
		lit := strings.TrimPrefix(strings.ReplaceAll(n.Value, "_", ""), "+")
		if jsonNumberRE.MatchString(lit) {
			return json.Number(lit), nil
		}
		if f, ok := new(big.Float).SetString(lit); ok && !f.IsInf() {
			return json.Number(f.Text('g', -1)), nil
		}
		return nil, c.fail(n, "%s is not a number JSON can carry (infinity and NaN have no JSON form); quote it if it is a string", n.Value)
	}
	// A plain number beyond float64's range (1e400) resolves to a string
	// in the YAML library; it is still a number in the manifest.
	const quoted = yaml.SingleQuotedStyle | yaml.DoubleQuotedStyle | yaml.LiteralStyle | yaml.FoldedStyle | yaml.TaggedStyle
	if n.Style&quoted == 0 && jsonNumberRE.MatchString(n.Value) {
		return c.intern.number(n.Value), nil
	}
	// Strings, and timestamps or binary, which ARM bodies carry as strings.
	return c.intern.str(n.Value), nil
}

// decodeYAML decodes one raw document; firstLine is its first file line.
// The line table is built only when withLines is set: most documents never
// need it, and on large sets it would outweigh the values themselves.
func decodeYAML(text []byte, firstLine int, in *interner, withLines bool) (any, lineMap, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(text, &root); err != nil {
		msg := yamlMessage(err, firstLine)
		line := firstLine
		if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		return nil, nil, &decodeError{line, msg}
	}
	c := &converter{offset: firstLine - 1, intern: in}
	if withLines {
		c.lines = lineMap{}
	}
	v, err := c.convert(&root)
	if err != nil {
		return nil, nil, err
	}
	return v, c.lines, nil
}

// An interner keeps strings of at most maxInternLen bytes (keys, names,
// types, locations and tag values repeat across documents; long strings,
// scripts or certificates, seldom do) and at most maxInterned of each
// kind, so a set of unique values costs no more than a bounded table.
const (
	maxInternLen = 128
	maxInterned  = 1 << 16
)

// interner makes the documents of one load share their repeated strings
// and the interface values holding them, so ten thousand resources in one
// location hold one "westeurope". Strings are immutable, so sharing is
// invisible to callers. A nil *interner shares nothing.
type interner struct {
	keys    map[string]string
	strs    map[string]any
	numbers map[string]any
}

func newInterner() *interner {
	return &interner{keys: map[string]string{}, strs: map[string]any{}, numbers: map[string]any{}}
}

func (in *interner) key(s string) string {
	if in == nil || len(s) > maxInternLen {
		return s
	}
	if k, ok := in.keys[s]; ok {
		return k
	}
	if len(in.keys) < maxInterned {
		in.keys[s] = s
	}
	return s
}

func (in *interner) str(s string) any {
	if in == nil || len(s) > maxInternLen {
		return s
	}
	return shared(in.strs, s, func() any { return s })
}

func (in *interner) number(s string) any {
	if in == nil || len(s) > maxInternLen {
		return json.Number(s)
	}
	return shared(in.numbers, s, func() any { return json.Number(s) })
}

// shared returns table's value for s, adding box() while there is room.
func shared(table map[string]any, s string, box func() any) any {
	if v, ok := table[s]; ok {
		return v
	}
	v := box()
	if len(table) < maxInterned {
		table[s] = v
	}
	return v
}
