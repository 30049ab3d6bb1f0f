package printer

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// Print renders p to w in opts.Output format.
func Print(w io.Writer, p *plan.Plan, opts Options) error {
	opts = opts.withDefaults()
	if err := opts.Validate(); err != nil {
		return err
	}
	if p == nil {
		p = &plan.Plan{}
	}
	safe := sanitize(p)
	switch strings.ToLower(opts.Output) {
	case OutputJSON:
		return printJSON(w, safe)
	case OutputYAML:
		return printYAML(w, safe)
	case OutputMarkdown:
		return printMarkdown(w, safe, opts)
	default:
		return printText(w, safe, opts)
	}
}

// sanitize returns a copy of p that every renderer works from, so no format
// can leak a secret or print null where the contract promises a list:
// sensitive values are replaced, nil lists become empty, and the summary is
// recomputed so it always agrees with the resources. p is not modified.
func sanitize(p *plan.Plan) *plan.Plan {
	out := *p
	if out.FormatVersion == "" {
		out.FormatVersion = plan.FormatVersion
	}
	out.Resources = make([]plan.Resource, len(p.Resources))
	for i, r := range p.Resources {
		changes := make([]plan.Change, len(r.Changes))
		for j, c := range r.Changes {
			if c.Sensitive {
				c.Before, c.After = plan.Sensitive, plan.Sensitive
			}
			changes[j] = c
		}
		r.Changes = changes
		out.Resources[i] = r
	}
	out.Summarize()
	return &out
}

func printJSON(w io.Writer, p *plan.Plan) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// Values are ARM bodies (URLs, connection strings): keep them readable.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return fmt.Errorf("encoding plan as JSON: %w", err)
	}
	return nil
}

func printYAML(w io.Writer, p *plan.Plan) error {
	// sigs.k8s.io/yaml goes through the JSON tags, so the YAML keys are
	// exactly the JSON contract's.
	b, err := yaml.Marshal(p)
	if err != nil {
		return fmt.Errorf("encoding plan as YAML: %w", err)
	}
	_, err = w.Write(b)
	return err
}
