package convert

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert/expr"
)

// Write writes manifests as one stream: YAML documents, or (json) JSON
// documents, separated by "---" lines either way.
func Write(w io.Writer, ms []Manifest, format string) error {
	for i, m := range ms {
		if i > 0 {
			if _, err := io.WriteString(w, "---\n"); err != nil {
				return err
			}
		}
		b, err := Marshal(m, format)
		if err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// Marshal writes one manifest.
func Marshal(m Manifest, format string) ([]byte, error) {
	if format == "json" {
		var buf bytes.Buffer
		buf.WriteString(jsonValue(m.Doc, ""))
		buf.WriteByte('\n')
		return buf.Bytes(), nil
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(yamlNode(m.Doc)); err != nil {
		return nil, err
	}
	return buf.Bytes(), enc.Close()
}

func yamlNode(v any) *yaml.Node {
	switch x := v.(type) {
	case Ordered:
		n := &yaml.Node{Kind: yaml.MappingNode}
		for _, k := range x.Keys {
			n.Content = append(n.Content, strNode(k), yamlNode(x.Values[k]))
		}
		return n
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode}
		if len(x) == 0 {
			n.Style = yaml.FlowStyle
		}
		for _, k := range expr.SortedKeys(x) {
			n.Content = append(n.Content, strNode(k), yamlNode(x[k]))
		}
		return n
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		if len(x) == 0 {
			n.Style = yaml.FlowStyle
		}
		for _, e := range x {
			n.Content = append(n.Content, yamlNode(e))
		}
		return n
	case string:
		return strNode(x)
	case int64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(x, 10)}
	case float64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: floatText(x)}
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(x)}
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	}
	return strNode(fmt.Sprint(v))
}

func floatText(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// strNode is a string scalar; yaml quotes it where it would read as
// another type.
func strNode(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if len(s) > 60 || bytes.ContainsAny([]byte(s), "\n") {
		if bytes.ContainsAny([]byte(s), "\n") {
			n.Style = yaml.LiteralStyle
		}
	}
	return n
}

// jsonValue writes v as indented JSON, envelope keys in order.
func jsonValue(v any, indent string) string {
	switch x := v.(type) {
	case Ordered:
		m := make(map[string]any, len(x.Keys))
		var b bytes.Buffer
		b.WriteString("{\n")
		for i, k := range x.Keys {
			m[k] = x.Values[k]
			kb, _ := json.Marshal(k)
			fmt.Fprintf(&b, "%s  %s: %s", indent, kb, jsonValue(x.Values[k], indent+"  "))
			if i < len(x.Keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
		return b.String()
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(indent, "  ")
	_ = enc.Encode(v)
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}
