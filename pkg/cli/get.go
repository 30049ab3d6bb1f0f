package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// getOptions are the flags of `kubectl azure get`.
type getOptions struct {
	g          *GlobalOptions
	streams    genericiooptions.IOStreams
	manifests  manifestFlags
	printFlags *printer.PrintFlags
	refs       []string
	// printer is the chosen -o (Complete).
	printer *printer.Printer
	// full is the loaded set before refs narrowed it: what computed names
	// refer to may be left out.
	full        *manifest.Set
	apiVersions map[string]string
}

// liveResource is one resource as Azure holds it now.
type liveResource struct {
	ID         string         `json:"id"`
	Type       string         `json:"type"`
	APIVersion string         `json:"apiVersion"`
	Body       map[string]any `json:"body"`
	// NameKnownAfterApply marks a resource whose computed name cannot be
	// worked out from Azure yet (what it depends on does not exist): it is
	// listed, not read.
	NameKnownAfterApply bool `json:"nameKnownAfterApply,omitempty"`
}

func newGetCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	o := &getOptions{g: g, streams: s, manifests: newManifestFlags()}
	cmd := &cobra.Command{
		Use:   "get -f FILE|DIR | get TYPE/NAME...",
		Short: "Print live values of managed resources, read from Azure now (not from state)",
		Example: `  kubectl azure get -f infra/
  kubectl azure get Microsoft.Storage/storageAccounts/stdemo001 -o yaml
  kubectl azure get storageAccounts/stdemo001 -o jsonpath='{.body.properties.primaryEndpoints.blob}'`,
		RunE: runE(o),
	}
	o.printFlags = g.printFlags(cmd, printer.OutputText, printer.OutputJSON, printer.OutputYAML, printer.OutputName).WithTemplates(printer.OutputJSONPath)
	o.manifests.addFlags(cmd.Flags())
	return cmd
}

// Complete takes the TYPE/NAME arguments and the printer, parsing an
// -o jsonpath template before any request.
func (o *getOptions) Complete(_ *cobra.Command, args []string) error {
	o.refs = args
	p, err := o.printFlags.ToPrinter(printer.Options{Secrets: o.g.runSecrets()})
	if err != nil {
		return withCode(ExitValidation, err)
	}
	o.printer = p
	return nil
}

// Validate rejects a missing selection before any request.
func (o *getOptions) Validate() error {
	if len(o.refs) == 0 && !o.manifests.given() {
		return withCode(ExitValidation, fmt.Errorf("nothing to get: use -f FILE|DIR, -k DIR, or name recorded resources as TYPE/NAME"))
	}
	return nil
}

func (o *getOptions) Run(ctx context.Context) error {
	set, err := o.resources(ctx)
	if err != nil {
		return err
	}
	c, err := o.g.armClient(o.streams.ErrOut)
	if err != nil {
		return err
	}
	reg, err := o.g.schemas()
	if err != nil {
		return err
	}
	// Bodies read so far, unmasked, answer the references of computed
	// names; they are never printed as they are.
	read := map[string]map[string]any{}
	get := func(id, apiVersion string) (map[string]any, error) {
		if b, ok := read[armid.Key(id)]; ok {
			return b, nil
		}
		resp, err := c.Get(ctx, id, apiVersion)
		if err != nil {
			return nil, err
		}
		read[armid.Key(id)] = resp.Body
		return resp.Body, nil
	}
	var live []liveResource
	for _, r := range set.Resources {
		id := r.ID
		if r.NameDeferred != nil {
			name, known := deferredGetName(r, o.versions(set), get)
			if !known {
				fmt.Fprintf(o.streams.ErrOut, "%s: name known after apply (%s has no value in Azure yet); the other resources are printed\n",
					printer.CleanText(o.g.runSecrets(), printer.DisplayName(r.ID, r.Type)), printer.CleanText(o.g.runSecrets(), r.NameDeferred.Expr))
				live = append(live, liveResource{ID: r.ID, Type: r.Type, APIVersion: r.APIVersion, Body: map[string]any{}, NameKnownAfterApply: true})
				continue
			}
			id = r.IDForName(name)
		}
		raw, err := get(id, r.APIVersion)
		if err != nil {
			return withCode(ExitError, fmt.Errorf("reading %s: %w", printer.DisplayName(id, r.Type), err))
		}
		t, _ := reg.Lookup(r.Type, r.APIVersion)
		live = append(live, liveResource{ID: id, Type: r.Type, APIVersion: r.APIVersion, Body: liveMasked(id, t, r, raw)})
	}
	return o.print(live)
}

// versions maps every declared resource (also those refs left out) to its
// api-version, to read what a computed name refers to.
func (o *getOptions) versions(set *manifest.Set) map[string]string {
	if o.apiVersions != nil {
		return o.apiVersions
	}
	o.apiVersions = map[string]string{}
	for _, s := range []*manifest.Set{o.full, set} {
		if s == nil {
			continue
		}
		for _, r := range s.Resources {
			o.apiVersions[armid.Key(r.ID)] = r.APIVersion
		}
	}
	return o.apiVersions
}

// deferredGetName computes a name that depends on live values (a role
// assignment named ${guid:...principalId}) from the referenced resources as
// Azure holds them now. known is false when one of them, or the value, is
// not there: the name is known only after apply.
func deferredGetName(r *manifest.Resource, versions map[string]string, get func(id, apiVersion string) (map[string]any, error)) (string, bool) {
	name, known, err := r.NameDeferred.Resolve(func(ref manifest.ValueRef) (any, bool) {
		ver, ok := versions[armid.Key(ref.Target)]
		if !ok {
			return nil, false
		}
		body, err := get(ref.Target, ver)
		if err != nil {
			return nil, false
		}
		return manifest.LookupPath(body, ref.Path)
	})
	if err != nil || !known {
		return "", false
	}
	return fmt.Sprint(name), true
}

// resources are the manifests' resources, narrowed to refs, or the
// recorded resources refs name.
func (o *getOptions) resources(ctx context.Context) (*manifest.Set, error) {
	if !o.manifests.given() {
		st, err := o.g.openState(ctx)
		if err != nil {
			return nil, err
		}
		defer st.Close()
		return recordedSet(ctx, st, o.refs)
	}
	set, err := o.g.load(ctx, o.manifests.load, o.streams.ErrOut)
	if err != nil {
		return nil, err
	}
	o.full = set
	if len(o.refs) > 0 {
		return selectRefs(set, o.refs)
	}
	return set, nil
}

// print writes the resources in the chosen format; the text is scrubbed of
// every registered secret value before it leaves.
func (o *getOptions) print(live []liveResource) error {
	var buf bytes.Buffer
	err := o.format(&buf, live)
	if _, werr := io.WriteString(o.streams.Out, o.g.runSecrets().Scrub(buf.String())); err == nil {
		err = werr
	}
	return err
}

func (o *getOptions) format(w io.Writer, live []liveResource) error {
	switch o.printer.Format() {
	case printer.OutputJSONPath:
		for _, r := range live {
			if r.NameKnownAfterApply {
				continue // nothing read: stderr said why
			}
			if err := o.printer.PrintObject(w, r); err != nil {
				return withCode(ExitValidation, fmt.Errorf("-o jsonpath on %s: %w", r.ID, err))
			}
		}
		return nil
	case printer.OutputJSON, printer.OutputYAML:
		return o.printer.PrintObject(w, map[string]any{"resources": live})
	case printer.OutputName:
		for _, r := range live {
			fmt.Fprintln(w, printer.CleanText(o.g.runSecrets(), printer.DisplayName(r.ID, r.Type)))
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tLOCATION\tPROVISIONING STATE")
	for _, r := range live {
		loc, _ := r.Body["location"].(string)
		state := ""
		if r.NameKnownAfterApply {
			state = "name known after apply"
		}
		if props, ok := r.Body["properties"].(map[string]any); ok {
			state, _ = props["provisioningState"].(string)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", printer.CleanText(o.g.runSecrets(), printer.DisplayName(r.ID, r.Type)), o.dash(loc), o.dash(state))
	}
	return tw.Flush()
}

func (o *getOptions) dash(s string) string {
	if s == "" {
		return "-"
	}
	return printer.CleanText(o.g.runSecrets(), s)
}

// getSecretPaths are the body paths get hides for one resource beyond what
// the secret rule knows from its type, names and containers: paths filled
// from valueFrom (a listKeys value routed into a tag), paths whose
// ${ref:...} reads a secret, and paths state holds hashed (get TYPE/NAME
// reads the record's last-applied body).
// liveMasked is the live body get prints: what the resource's secret rule
// hides, judged as the plan judges it (diff.RuleFacts reads the schema t,
// which may be nil), is secret.Placeholder.
func liveMasked(id string, t *schema.Type, r *manifest.Resource, raw map[string]any) map[string]any {
	body, _ := secret.ForID(id, diff.RuleFacts(t), getSecretPaths(r)...).Mask(raw, secret.Placeholder).(map[string]any)
	if body == nil {
		body = map[string]any{}
	}
	return body
}

func getSecretPaths(r *manifest.Resource) []string {
	paths := append([]string(nil), r.SecretPaths...)
	for p, d := range r.Deferred {
		for _, ref := range d.Refs {
			if secret.Ref(ref.Target, ref.Path) {
				paths = append(paths, p)
				break
			}
		}
	}
	for p := range r.Actions {
		paths = append(paths, p)
	}
	return append(paths, secret.HashedPaths(r.Body)...)
}
