package printer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/client-go/util/jsonpath"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// OutputWide adds columns to a table (state list), as kubectl -o wide does.
const OutputWide = "wide"

// OutputJSONPath is the format that carries a template: -o jsonpath=TEMPLATE.
const OutputJSONPath = "jsonpath"

// PrintFlags is one command's -o: the formats the command accepts and the
// printer for the chosen one, so every command validates -o the same way
// and before it reads or sends anything.
type PrintFlags struct {
	// OutputFormat points at the -o value. Commands share the root's
	// persistent -o, so it may come before or after the command's name.
	OutputFormat *string
	// AllowedFormats are the -o values the command accepts; text, when
	// listed, is also what an empty value means.
	AllowedFormats []string
	// TemplateFormats are formats given as NAME=TEMPLATE (OutputJSONPath).
	TemplateFormats []string
}

// NewPrintFlags returns print flags accepting formats, with -o not yet set.
func NewPrintFlags(formats ...string) *PrintFlags {
	out := ""
	return &PrintFlags{OutputFormat: &out, AllowedFormats: formats}
}

// WithTemplates also accepts NAME=TEMPLATE for each of names.
func (f *PrintFlags) WithTemplates(names ...string) *PrintFlags {
	f.TemplateFormats = append(f.TemplateFormats, names...)
	return f
}

// WithOutput makes f read the -o value bound elsewhere (the root command's).
func (f *PrintFlags) WithOutput(output *string) *PrintFlags {
	f.OutputFormat = output
	return f
}

// AddFlags binds -o/--output to f.OutputFormat.
func (f *PrintFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVarP(f.OutputFormat, "output", "o", *f.OutputFormat, "output format: "+strings.Join(f.Formats(), "|"))
}

// Formats lists what -o accepts, templates as NAME=TEMPLATE: for help,
// errors and shell completion.
func (f *PrintFlags) Formats() []string {
	out := slices.Clone(f.AllowedFormats)
	for _, t := range f.TemplateFormats {
		out = append(out, t+"=TEMPLATE")
	}
	return out
}

// Format is the chosen -o value, text when none was given.
func (f *PrintFlags) Format() string {
	if f.OutputFormat == nil || *f.OutputFormat == "" {
		return OutputText
	}
	return *f.OutputFormat
}

// Validate reports an -o value the command does not accept, naming the
// ones it does.
func (f *PrintFlags) Validate() error {
	_, err := f.ToPrinter(Options{})
	return err
}

// ToPrinter returns the printer for the chosen format; opts carries the
// rest of the rendering choices (colour, explain, operation). An unknown
// format, or a template that does not parse, is an error listing what -o
// accepts.
func (f *PrintFlags) ToPrinter(opts Options) (*Printer, error) {
	format := f.Format()
	if name, tmpl, ok := strings.Cut(format, "="); ok && slices.Contains(f.TemplateFormats, name) {
		jp := jsonpath.New(name)
		if err := jp.Parse(tmpl); err != nil {
			return nil, fmt.Errorf("-o %s: %w", name, err)
		}
		opts.Output = name
		return newPrinter(opts, jp)
	}
	if !slices.Contains(f.AllowedFormats, format) {
		return nil, &UnknownFormatError{Format: format, Allowed: f.Formats()}
	}
	opts.Output = format
	return newPrinter(opts, nil)
}

func newPrinter(opts Options, jp *jsonpath.JSONPath) (*Printer, error) {
	opts = opts.withDefaults()
	if err := opts.validateRendering(); err != nil {
		return nil, err
	}
	return &Printer{opts: opts, jsonPath: jp}, nil
}

// UnknownFormatError is an -o value the command does not accept.
type UnknownFormatError struct {
	Format  string
	Allowed []string
	// Command names the command in the message, when set.
	Command string
}

func (e *UnknownFormatError) Error() string {
	cmd := ""
	if e.Command != "" {
		cmd = " for " + e.Command
	}
	return fmt.Sprintf("unknown output format %q%s: use -o %s", e.Format, cmd, strings.Join(e.Allowed, "|"))
}

// Printer renders in one -o format. Documents every command shares (plans,
// results, problems, lists of manifests, any JSON or YAML value) it renders
// itself; a command's own table is the command's, chosen by Format.
type Printer struct {
	opts     Options
	jsonPath *jsonpath.JSONPath
}

// Format is the chosen -o format (jsonpath for a template).
func (p *Printer) Format() string { return p.opts.Output }

// Options are the rendering options, Output being the chosen format.
func (p *Printer) Options() Options { return p.opts }

// Machine reports whether stdout carries a document for a program (json,
// yaml, name, a template): progress, prompts and notes then go to stderr.
func (p *Printer) Machine() bool {
	switch p.opts.Output {
	case OutputJSON, OutputYAML, OutputName, OutputJSONPath:
		return true
	}
	return false
}

// Document reports whether the format is a JSON or YAML document.
func (p *Printer) Document() bool {
	return p.opts.Output == OutputJSON || p.opts.Output == OutputYAML
}

// PrintPlan renders a plan.
func (p *Printer) PrintPlan(w io.Writer, pl *plan.Plan) error { return Print(w, pl, p.opts) }

// PrintResult renders an apply or delete result.
func (p *Printer) PrintResult(w io.Writer, r plan.Result) error { return PrintResult(w, r, p.opts) }

// PrintManifests renders validated manifest resources.
func (p *Printer) PrintManifests(w io.Writer, rs []ManifestResource) error {
	return PrintManifests(w, rs, p.opts)
}

// PrintProblems renders a failure summary and its problems.
func (p *Printer) PrintProblems(w io.Writer, summary string, ps []Problem) error {
	return PrintProblems(w, summary, ps, p.opts)
}

// PrintObject writes v as a JSON or YAML document, or, for a template,
// the template applied to v and a newline. Keys are v's JSON names.
func (p *Printer) PrintObject(w io.Writer, v any) error {
	switch {
	case p.jsonPath != nil:
		// The template walks plain JSON values: the round trip keeps
		// numbers exact.
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("encoding as JSON: %w", err)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var doc any
		if err := dec.Decode(&doc); err != nil {
			return err
		}
		if err := p.jsonPath.Execute(w, doc); err != nil {
			return err
		}
		_, err = fmt.Fprintln(w)
		return err
	case p.opts.Output == OutputYAML:
		return printYAML(w, v)
	case p.opts.Output == OutputJSON:
		return printJSON(w, v)
	}
	return fmt.Errorf("-o %s is not a document format: the command prints it itself", p.opts.Output)
}
