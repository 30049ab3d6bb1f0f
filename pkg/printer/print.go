package printer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
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
	safe := sanitize(p, opts)
	switch strings.ToLower(opts.Output) {
	case OutputJSON:
		return printPlanJSON(w, safe)
	case OutputYAML:
		return printYAML(w, safe)
	case OutputMarkdown:
		return printMarkdown(w, safe, opts)
	case OutputName:
		return printNames(w, safe)
	default:
		return printText(w, safe, opts)
	}
}

// sanitize returns a copy of p that every renderer works from, so no format
// can leak a secret, move the terminal, or print null where the contract
// promises a list: sensitive values are replaced, values Azure generates
// during the apply carry the marker, prose is scrubbed of known secrets and
// control characters, nil lists become empty, JSON gets each resource's
// RFC 6902 operations, and the summary is recomputed so it always agrees
// with the resources. p is not modified.
func sanitize(p *plan.Plan, opts Options) *plan.Plan {
	out := *p
	if out.FormatVersion == "" {
		out.FormatVersion = plan.FormatVersion
	}
	sec := opts.Secrets
	out.Warnings = cleanAll(sec, p.Warnings)
	out.Undeclared = cleanAll(sec, p.Undeclared)
	if p.Problems != nil {
		out.Problems = cleanProblems(sec, p.Problems)
	}
	out.Resources = make([]plan.Resource, len(p.Resources))
	for i, r := range p.Resources {
		changes := make([]plan.Change, len(r.Changes))
		for j, c := range r.Changes {
			if c.Sensitive {
				c.Before, c.After = maskedBefore(c), plan.Sensitive{}
			}
			if c.KnownAfterApply {
				c.After = plan.KnownAfterApply
			}
			c.Reason = CleanText(sec, c.Reason)
			changes[j] = c
		}
		r.Changes = changes
		r.Reason = CleanText(sec, r.Reason)
		r.Origin = CleanText(sec, r.Origin)
		r.Name = CleanText(sec, r.Name)
		if opts.Output == OutputJSON && len(r.Operations) == 0 {
			r.Operations = operations(r)
		}
		if opts.Output != OutputJSON {
			r.Operations = nil
		}
		out.Resources[i] = r
	}
	out.Summarize()
	return &out
}

// maskedBefore is what a sensitive change shows as its before: the mask,
// except where the service returns nothing to mask (an unverifiable value
// has no before, and saying "(sensitive)" there would claim one).
func maskedBefore(c plan.Change) any {
	if c.Before == nil && c.Cause == plan.CauseUnverifiable {
		return nil
	}
	return plan.Sensitive{}
}

func cleanAll(secrets *secret.Registry, ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = CleanText(secrets, s)
	}
	return out
}

// printNames prints TYPE/NAME of each resource with something to do, as
// kubectl's -o name does.
func printNames(w io.Writer, p *plan.Plan) error {
	bw := bufio.NewWriter(w)
	for _, r := range p.Resources {
		if !isNoOp(r.Action) {
			fmt.Fprintf(bw, "%s %s\n", armid.Printable(DisplayName(r.ID, r.Type)), r.Action)
		}
	}
	return bw.Flush()
}

// Header is the line naming what a plan targets: subscription(s), state
// location and set. It is "" when the plan names none of them.
func Header(p *plan.Plan, secrets *secret.Registry) string {
	return strings.Join(headerParts(p, secrets), "; ")
}

// headerParts are the header's items, already cleaned for printing.
func headerParts(p *plan.Plan, secrets *secret.Registry) []string {
	var parts []string
	subs := p.Subscriptions
	if len(subs) == 0 && p.Subscription != "" {
		subs = []string{p.Subscription}
	}
	switch len(subs) {
	case 0:
	case 1:
		parts = append(parts, "Subscription: "+subs[0])
	default:
		parts = append(parts, "Subscriptions: "+strings.Join(subs, ", "))
	}
	if p.State != "" {
		st := "State: " + p.State
		if p.Set != "" {
			// The set is what --prune and delete work within; say so where
			// the name first appears, since "set" alone means nothing yet.
			st += " (manifest set " + strconv.Quote(p.Set) + ": --prune deletes only its records)"
		}
		parts = append(parts, st)
	}
	for i := range parts {
		parts[i] = CleanText(secrets, parts[i])
	}
	return parts
}

// printPlanJSON writes what printJSON would, one resource at a time: a
// plan of 10,000 resources is megabytes of JSON, which printJSON would
// build whole, twice (compact, then indented), before writing any of it.
func printPlanJSON(w io.Writer, p *plan.Plan) error {
	env := *p
	env.Resources = nil
	var head bytes.Buffer
	if err := printJSON(&head, &env); err != nil {
		return err
	}
	// The envelope with "resources": null; the resources go in its place.
	const hole = `"resources": null`
	i := bytes.Index(head.Bytes(), []byte("\n  "+hole))
	if i < 0 {
		return fmt.Errorf("encoding as JSON: no resources member in the plan envelope")
	}
	i += len("\n  ")
	bw := bufio.NewWriter(w)
	bw.Write(head.Bytes()[:i])
	if len(p.Resources) == 0 {
		bw.WriteString(`"resources": []`)
	} else {
		bw.WriteString(`"resources": [`)
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetIndent("    ", "  ")
		enc.SetEscapeHTML(false)
		for j := range p.Resources {
			buf.Reset()
			if err := enc.Encode(&p.Resources[j]); err != nil {
				return fmt.Errorf("encoding as JSON: %w", err)
			}
			bw.WriteString("\n    ")
			bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
			if j < len(p.Resources)-1 {
				bw.WriteByte(',')
			}
		}
		bw.WriteString("\n  ]")
	}
	bw.Write(head.Bytes()[i+len(hole):])
	return bw.Flush()
}

func printJSON(w io.Writer, p any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// Values are ARM bodies (URLs, connection strings): keep them readable.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return fmt.Errorf("encoding as JSON: %w", err)
	}
	return nil
}

func printYAML(w io.Writer, p any) error {
	// sigs.k8s.io/yaml goes through the JSON tags, so the YAML keys are
	// exactly the JSON contract's.
	b, err := yaml.Marshal(p)
	if err != nil {
		return fmt.Errorf("encoding as YAML: %w", err)
	}
	_, err = w.Write(b)
	return err
}
