package importer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

// bodyOrder is the order of the top-level body keys in a manifest: the
// ones people read first, then the rest alphabetically.
var bodyOrder = []string{"location", "extendedLocation", "kind", "sku", "plan", "identity", "zones", "tags", "properties"}

// render writes every resource's manifest document and picks file names.
func (res *Result) render() error {
	used := map[string]int{}
	for _, r := range res.Resources {
		doc, err := renderDoc(r)
		if err != nil {
			return fmt.Errorf("rendering the manifest of %s: %w", r.ID, err)
		}
		r.YAML = doc
		name := fileBase(r)
		used[name]++
		if n := used[name]; n > 1 {
			name = fmt.Sprintf("%s-%d", name, n)
		}
		r.File = name + ".yaml"
	}
	return nil
}

// WriteYAML writes the manifests as one multi-document YAML stream and
// records each one's origin.
func (res *Result) WriteYAML(w io.Writer) error {
	var buf bytes.Buffer
	for i, r := range res.Resources {
		if i > 0 {
			buf.WriteString("---\n")
		}
		buf.Write(r.YAML)
		r.Origin = fmt.Sprintf("<stdout>#%d", i)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteDir writes one file per resource into dir (created if needed) and
// records each one's origin. Existing files of the same name are replaced.
func (res *Result) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating --output-dir %s: %w", dir, err)
	}
	for _, r := range res.Resources {
		p := filepath.Join(dir, r.File)
		if err := os.WriteFile(p, r.YAML, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w; check the directory's permissions and free space", p, err)
		}
		r.Origin = p + "#0"
	}
	return nil
}

var unsafeFileChars = regexp.MustCompile(`[^a-z0-9._-]+`)

// fileBase names a resource's file after its type and name pairs:
// virtualnetworks-vnet1-subnets-default.
func fileBase(r *Resource) string {
	var parts []string
	if len(r.parsed.Types) == 0 {
		parts = []string{"resource", r.Name}
	}
	if r.parsed.IsResourceGroup() {
		parts = []string{"resourcegroup", r.Name}
	} else {
		for i, t := range r.parsed.Types {
			parts = append(parts, t, r.parsed.Names[i])
		}
	}
	s := unsafeFileChars.ReplaceAllString(strings.ToLower(strings.Join(parts, "-")), "-")
	s = strings.Trim(s, "-.")
	if len(s) > 120 {
		s = s[:120]
	}
	if s == "" {
		s = "resource"
	}
	return s
}

// renderDoc renders one manifest, with comments for what a reader must know:
// where it came from, which secrets are left out and how to supply them,
// and which inline children live in files of their own.
func renderDoc(r *Resource) ([]byte, error) {
	root := &yaml.Node{Kind: yaml.MappingNode}
	addScalar(root, "apiVersion", manifest.APIVersion)
	addScalar(root, "kind", manifest.Kind)
	meta := &yaml.Node{Kind: yaml.MappingNode}
	addScalar(meta, "name", r.Name)
	addPair(root, "metadata", meta)
	spec := &yaml.Node{Kind: yaml.MappingNode}
	addScalar(spec, "type", r.Type+"@"+r.APIVersion)
	if r.Placement.Field != "" {
		addScalar(spec, r.Placement.Field, r.Placement.Value)
	}
	body, err := bodyNode(r.Body)
	if err != nil {
		return nil, err
	}
	addPair(spec, "body", body)
	addPair(root, "spec", spec)
	root.HeadComment = headComment(r)

	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func headComment(r *Resource) string {
	var lines []string
	lines = append(lines, "Imported by kubectl azure import.")
	for _, d := range r.Dropped {
		lines = append(lines, d+": the items imported as resources of their own are left out here.")
	}
	if len(r.Unknown) > 0 {
		const show = 8
		list := r.Unknown
		more := ""
		if len(list) > show {
			list, more = list[:show], fmt.Sprintf(" and %d more", len(r.Unknown)-show)
		}
		lines = append(lines, "Left out (unmanaged), not declared by the schema of "+r.APIVersion+": "+strings.Join(list, ", ")+more+".",
			"Add one back to manage it (import --keep-unknown keeps them all).")
	}
	for _, p := range r.Placeholders {
		lines = append(lines, "spec.body."+p.Path+" is secret: it is read from the environment variable "+p.env["env"].(string)+
			" (or use {valueFrom: {secretKeyRef: {name: NAME, key: KEY}}}).")
	}
	for _, inv := range r.Invalid {
		lines = append(lines, "Left out (unmanaged): "+inv+". The live value does not validate against the schema of "+r.APIVersion+".")
	}
	if len(r.Secrets) > 0 {
		lines = append(lines, "Secrets are not imported (ARM does not return them). While a secret is absent",
			"here the plan leaves it unmanaged; to manage one, add it with valueFrom:")
		for _, s := range r.Secrets {
			parent, leaf := "spec.body", s
			if i := strings.LastIndex(s, "."); i >= 0 {
				parent, leaf = "spec.body."+s[:i], s[i+1:]
			}
			lines = append(lines, "  under "+parent+":",
				"    "+leaf+": {valueFrom: {env: "+envName(r.Name, s)+"}}  # or {valueFrom: {secretKeyRef: {name: NAME, key: KEY}}}")
		}
	}
	for i, l := range lines {
		lines[i] = "# " + l
	}
	return strings.Join(lines, "\n")
}

var envUnsafe = regexp.MustCompile(`[^A-Z0-9]+`)

// envName suggests an environment variable for a secret: NAME_LASTFIELD.
func envName(name, path string) string {
	last := path[strings.LastIndexAny(path, ".]")+1:]
	s := envUnsafe.ReplaceAllString(strings.ToUpper(name+"_"+last), "_")
	return strings.Trim(s, "_")
}

func addScalar(m *yaml.Node, k, v string) {
	n := &yaml.Node{}
	_ = n.Encode(v)
	addPair(m, k, n)
}

func addPair(m *yaml.Node, k string, v *yaml.Node) {
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, v)
}

// bodyNode renders the body with its top-level keys in bodyOrder.
func bodyNode(body map[string]any) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	rank := map[string]int{}
	for i, k := range bodyOrder {
		rank[k] = i + 1
	}
	keys := make([]string, 0, len(body))
	for k := range body {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		ri, rj := rank[keys[i]], rank[keys[j]]
		switch {
		case ri != 0 && rj != 0:
			return ri < rj
		case ri != 0 || rj != 0:
			return ri != 0
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys {
		v := &yaml.Node{}
		if err := v.Encode(forYAML(body[k])); err != nil {
			return nil, err
		}
		addPair(n, k, v)
	}
	if len(keys) == 0 {
		n.Style = yaml.FlowStyle
	}
	return n, nil
}

// forYAML copies a JSON value with whole numbers as integers. Numbers kept
// exact (json.Number, as the ARM client decodes them) are written as YAML
// numbers with their digits as ARM sent them: encoded as strings they would
// come back quoted ("4096"), which the loader rightly warns about.
func forYAML(v any) any {
	return bodypath.Map(v, func(v any) (any, bool) {
		switch n := v.(type) {
		case float64:
			return yamlNumber(n), true
		case json.Number:
			tag := "!!int"
			if strings.ContainsAny(string(n), ".eE") {
				tag = "!!float"
			}
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: string(n)}, true
		}
		return nil, false
	})
}

// resolve loads the rendered manifests with pkg/manifest, exactly as diff
// and apply will, and keeps each resolved body: that is what the next plan
// compares with, so it is what state must record. A manifest that does not
// load is an error here rather than in the user's next diff.
//
// When the loader refuses documents, bad maps their indexes to its messages.
func resolve(ctx context.Context, res *Result, validator manifest.SchemaValidator) (bad map[int]string, err error) {
	var all bytes.Buffer
	for i, r := range res.Resources {
		if i > 0 {
			all.WriteString("---\n")
		}
		all.Write(r.YAML)
	}
	// The placeholders' variables resolve to the live secrets, so state
	// records what Azure holds; the user's environment is not consulted.
	lookup := func(name string) (string, bool) {
		if v, ok := res.envValues[name]; ok {
			return v, true
		}
		return os.LookupEnv(name)
	}
	set, err := manifest.Load(ctx, manifest.LoadOptions{Filenames: []string{"-"}, Stdin: &all, Subscription: res.Subscription, Schema: validator, LookupEnv: lookup})
	if err != nil {
		var ve *manifest.ValidationError
		if errors.As(err, &ve) {
			bad = map[int]string{}
			for _, p := range ve.Problems {
				if p.Severity == manifest.SeverityWarning {
					continue // the loader returns warnings with its errors
				}
				if p.Index < 0 || p.Index >= len(res.Resources) {
					bad = nil
					break
				}
				msg := p.Message
				if p.Path != "" {
					msg = p.Path + ": " + msg
				}
				if prev, ok := bad[p.Index]; ok {
					msg = prev + "; " + msg
				}
				bad[p.Index] = msg
			}
		}
		return bad, fmt.Errorf("the emitted manifests do not load (nothing was recorded in state; this is a bug in import, please report it): %w", err)
	}
	for _, r := range res.Resources {
		lr := set.ByID(r.ID)
		if lr == nil {
			return nil, fmt.Errorf("the emitted manifest of %s does not resolve to that ID (nothing was recorded in state; this is a bug in import, please report it)", r.ID)
		}
		r.Resolved = lr.Body
		r.SecretPaths = lr.SecretPaths
	}
	return nil, nil
}
