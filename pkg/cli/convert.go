package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert"
	"github.com/kubectl-azure/kubectl-azure/pkg/convert/expr"
	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
)

// convertOptions are `kubectl azure convert`'s flags.
type convertOptions struct {
	g       *GlobalOptions
	streams genericiooptions.IOStreams

	file          string
	paramFiles    []string
	params        []string
	resourceGroup string
	location      string
	outputDir     string
	partial       bool
	format        string
	linked        []string
	links         []convert.Link
}

func newConvertCommand(g *GlobalOptions, streams genericiooptions.IOStreams) *cobra.Command {
	o := &convertOptions{g: g, streams: streams}
	cmd := &cobra.Command{
		Use:   "convert FILE",
		Short: "Convert an ARM template or Bicep file into manifests",
		Long: `Convert an ARM template (or a .bicep / .bicepparam file, compiled with the
bicep CLI) into manifests: the template's expressions are evaluated where
their values are known now, and what only a deployment knows becomes a
placeholder (${ref:...}, valueFrom). Anything that cannot be translated
exactly is reported with its file, JSON path and line, and nothing is
written (exit 2), unless --partial.

Linked templates (templateLink) are read from local copies, never
downloaded: --linked-templates URL_PREFIX=DIR reads a link whose URI starts
with URL_PREFIX from DIR and inlines it as a nested deployment. A
relativePath link is read relative to the linking template's file, and a
template under a mapped DIR is taken to be deployed from its URL, so
_artifactsLocation defaulted from deployment().properties.templateLink
resolves to the files beside it.`,
		Example: `  kubectl azure convert azuredeploy.json --parameters azuredeploy.parameters.json --resource-group rg-demo --location westeurope
  kubectl azure convert main.bicep --param prefix=demo --resource-group rg-demo --location westeurope --output-dir infra/
  kubectl azure convert quickstarts/app/azuredeploy.json --resource-group rg-demo --location westeurope \
      --linked-templates https://raw.githubusercontent.com/Azure/azure-quickstart-templates/master/=.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return withCode(ExitValidation, fmt.Errorf("convert takes one FILE (an ARM template or a .bicep/.bicepparam file), got %d", len(args)))
			}
			return nil
		},
		RunE: runE(o),
	}
	g.printFlags(cmd, printer.OutputText, printer.OutputYAML, printer.OutputJSON)
	fs := cmd.Flags()
	fs.StringArrayVar(&o.paramFiles, "parameters", nil, "an ARM parameters file (repeatable; later files win)")
	fs.StringArrayVar(&o.params, "param", nil, "a parameter value NAME=VALUE (repeatable; VALUE is read as JSON unless the parameter is a string)")
	fs.StringVar(&o.resourceGroup, "resource-group", "", "the resource group a resource-group template deploys to (emitted as a document)")
	fs.StringVar(&o.location, "location", "", "the group's location: resourceGroup().location")
	fs.StringVar(&o.outputDir, "output-dir", "", "write one file per resource group or module into this directory instead of one stream on stdout")
	fs.StringArrayVar(&o.linked, "linked-templates", nil, "URL_PREFIX=DIR: read linked templates whose URI starts with URL_PREFIX from DIR (repeatable; nothing is downloaded)")
	fs.BoolVar(&o.partial, "partial", false, "write what converted and report the rest as warnings (exit 0)")
	return cmd
}

func (o *convertOptions) Complete(cmd *cobra.Command, args []string) error {
	o.file = args[0]
	o.format = o.g.Output
	if o.format == printer.OutputText {
		if f := cmd.Flags().Lookup("output"); f != nil && f.Changed {
			return withCode(ExitValidation, errors.New("convert writes -o yaml or -o json"))
		}
		o.format = printer.OutputYAML
	}
	return nil
}

func (o *convertOptions) Validate() error {
	for _, p := range o.params {
		if name, _, ok := strings.Cut(p, "="); !ok || name == "" {
			return withCode(ExitValidation, fmt.Errorf("--param %q: want NAME=VALUE", p))
		}
	}
	o.links = nil
	for _, s := range o.linked {
		l, err := convert.ParseLink(s)
		if err != nil {
			return withCode(ExitValidation, err)
		}
		if fi, err := os.Stat(l.Dir); err != nil || !fi.IsDir() {
			return withCode(ExitValidation, fmt.Errorf("--linked-templates %q: %s is not a directory", s, l.Dir))
		}
		o.links = append(o.links, l)
	}
	return nil
}

func (o *convertOptions) Run(ctx context.Context) error {
	data, paramData, err := o.readTemplate(ctx)
	if err != nil {
		return err
	}
	t, err := convert.Parse(o.file, data)
	if err != nil {
		return withCode(ExitValidation, err)
	}
	params, err := o.parameters(t, paramData)
	if err != nil {
		return withCode(ExitValidation, err)
	}
	res, err := t.Convert(ctx, convert.Options{Partial: o.partial, Links: o.links, Scope: convert.Scope{
		Subscription: o.g.Subscription, ResourceGroup: o.resourceGroup, Location: o.location, Parameters: params,
	}})
	if err != nil {
		if isValidation(err) {
			return withCode(ExitValidation, err)
		}
		return err
	}
	o.report(res)
	if o.outputDir != "" {
		return o.writeDir(res.Manifests)
	}
	return convert.Write(o.streams.Out, res.Manifests, o.format)
}

// readTemplate reads FILE; Bicep is compiled first.
func (o *convertOptions) readTemplate(ctx context.Context) ([]byte, []byte, error) {
	ext := strings.ToLower(filepath.Ext(o.file))
	if ext != ".bicep" && ext != ".bicepparam" {
		data, err := os.ReadFile(o.file)
		if err != nil {
			return nil, nil, withCode(ExitValidation, err)
		}
		return data, nil, nil
	}
	out, err := compileBicep(ctx, o.file, ext == ".bicepparam")
	if err != nil {
		return nil, nil, withCode(ExitValidation, err)
	}
	if ext == ".bicep" {
		return out, nil, nil
	}
	var both struct {
		ParametersJSON string `json:"parametersJson"`
		TemplateJSON   string `json:"templateJson"`
	}
	if err := json.Unmarshal(out, &both); err != nil || both.TemplateJSON == "" {
		return nil, nil, withCode(ExitValidation, fmt.Errorf("%s: bicep build-params gave no template (is the using clause a local .bicep file?)", o.file))
	}
	return []byte(both.TemplateJSON), []byte(both.ParametersJSON), nil
}

// compileBicep runs `bicep build --stdout` (or build-params), or the
// Azure CLI's copy of it.
func compileBicep(ctx context.Context, file string, params bool) ([]byte, error) {
	sub := "build"
	if params {
		sub = "build-params"
	}
	var cmd *exec.Cmd
	if p, err := exec.LookPath("bicep"); err == nil {
		cmd = exec.CommandContext(ctx, p, sub, "--stdout", file)
	} else if p, err := exec.LookPath("az"); err == nil {
		cmd = exec.CommandContext(ctx, p, "bicep", sub, "--stdout", "--file", file)
	} else {
		return nil, fmt.Errorf("%s: converting Bicep needs the bicep CLI (or the Azure CLI) on PATH; install it, or run `bicep %s %s --outfile out.json` elsewhere and convert out.json", file, sub, file)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: bicep %s failed: %v\n%s", file, sub, err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// parameters merges parameter files (later wins) and --param values.
func (o *convertOptions) parameters(t *convert.Template, fromBicep []byte) (map[string]any, error) {
	out := map[string]any{}
	merge := func(file string, data []byte) error {
		ps, err := convert.ParseParameters(file, data)
		if err != nil {
			return err
		}
		for k, v := range ps {
			out[k] = v
		}
		return nil
	}
	if fromBicep != nil {
		if err := merge(o.file, fromBicep); err != nil {
			return nil, err
		}
	}
	for _, f := range o.paramFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if err := merge(f, data); err != nil {
			return nil, err
		}
	}
	for _, p := range o.params {
		name, value, _ := strings.Cut(p, "=")
		typ := t.ParameterType(name)
		if typ == "" {
			return nil, fmt.Errorf("--param %s: the template has no parameter %q", name, name)
		}
		out[name] = paramValue(typ, value)
	}
	return out, nil
}

// paramValue reads a --param value as JSON unless the parameter is a string.
func paramValue(typ, value string) any {
	if typ == "string" || typ == "securestring" {
		return value
	}
	dec := json.NewDecoder(strings.NewReader(value))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return value
	}
	return expr.FromJSON(v)
}

// report prints on stderr what the manifests need and what was left out.
func (o *convertOptions) report(res *convert.Result) {
	w := o.streams.ErrOut
	for _, p := range res.Warnings {
		fmt.Fprintln(w, "warning: "+p.String())
	}
	for _, n := range res.Notes {
		fmt.Fprintln(w, "note: "+n)
	}
	for _, e := range res.Env {
		fmt.Fprintf(w, "secret: parameter %s is read from environment variable %s when the manifests are loaded\n", e.Param, e.Name)
	}
	for _, out := range res.Outputs {
		if out.Get != "" && out.Transform != "" {
			fmt.Fprintf(w, "output %s: %s (after apply: %s, then transform: %s)\n", out.Name, out.Value, out.Get, out.Transform)
			continue
		}
		if out.Get != "" {
			fmt.Fprintf(w, "output %s: %s (after apply: %s)\n", out.Name, out.Value, out.Get)
			continue
		}
		fmt.Fprintf(w, "output %s: %s\n", out.Name, out.Value)
	}
}

var unsafeFileChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// writeDir writes one file per group or module, only after everything
// converted.
func (o *convertOptions) writeDir(ms []convert.Manifest) error {
	byFile := map[string][]convert.Manifest{}
	var order []string
	for _, m := range ms {
		name := unsafeFileChars.ReplaceAllString(m.File, "-")
		if name == "" || name == "." || name == ".." {
			name = "resources"
		}
		if _, ok := byFile[name]; !ok {
			order = append(order, name)
		}
		byFile[name] = append(byFile[name], m)
	}
	if err := os.MkdirAll(o.outputDir, 0o755); err != nil {
		return err
	}
	ext := ".yaml"
	if o.format == printer.OutputJSON {
		ext = ".json"
	}
	for _, name := range order {
		var buf bytes.Buffer
		if err := convert.Write(&buf, byFile[name], o.format); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(o.outputDir, name+ext), buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
