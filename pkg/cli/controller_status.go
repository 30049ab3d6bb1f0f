package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// statusOptions are `kubectl azure status`'s (also `controller status`).
type statusOptions struct {
	g          *GlobalOptions
	streams    genericiooptions.IOStreams
	printFlags *printer.PrintFlags
	path       string

	printer *printer.Printer
}

// newStatusCommand is `kubectl azure status` (also `controller status`):
// what the loop last saw, read from its status file.
func newStatusCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	o := &statusOptions{g: g, streams: s}
	cmd := &cobra.Command{
		Use:   "status --status-file PATH [-o json]",
		Short: "Show what apply --watch or the controller last saw of every resource (exit 1 when any is not in sync)",
		Example: `  kubectl azure status --status-file status.json
  kubectl azure status --status-file status.json -o json | jq '.resources[] | select(.state != "in-sync")'`,
		Args: cobra.NoArgs,
		RunE: runE(o),
	}
	o.printFlags = g.printFlags(cmd, printer.OutputText, printer.OutputJSON)
	cmd.Flags().StringVar(&o.path, "status-file", "", "the status file written by apply --watch or the controller")
	return cmd
}

func (o *statusOptions) Complete(*cobra.Command, []string) error {
	p, err := o.printFlags.ToPrinter(printer.Options{Secrets: o.g.runSecrets()})
	if err != nil {
		return withCode(ExitValidation, err)
	}
	o.printer = p
	return nil
}

func (o *statusOptions) Validate() error {
	if o.path == "" {
		return withCode(ExitValidation, errors.New("--status-file is required: the file apply --watch or the controller keeps"))
	}
	return nil
}

func (o *statusOptions) Run(context.Context) error {
	st, err := reconcile.ReadStatus(o.path)
	if err != nil {
		return withCode(ExitError, fmt.Errorf("reading the status file %s: %w", o.path, err))
	}
	if o.printer.Document() {
		err = o.printer.PrintObject(o.streams.Out, st)
	} else {
		err = printStatus(o.streams.Out, st, time.Now(), o.g.runSecrets())
	}
	if err != nil {
		return err
	}
	if !st.InSync() {
		return errChanges
	}
	return nil
}

func printStatus(w io.Writer, st *reconcile.Status, now time.Time, sec *secret.Registry) error {
	fmt.Fprintf(w, "Observed %s ago (policy %s). %d resource(s).\n", now.Sub(st.ObservedAt).Round(time.Second), st.Policy, len(st.Resources))
	if st.Source.Error != "" {
		fmt.Fprintf(w, "Manifests refused (the last good set is observed): %s\n", printer.CleanText(sec, st.Source.Error))
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RESOURCE\tSTATE\tSEEN\tDETAIL")
	for _, r := range st.Resources {
		var paths []string
		for _, c := range r.Changes {
			paths = append(paths, c.Path)
		}
		detail := strings.Join(paths, ", ")
		if r.Message != "" {
			detail = strings.TrimPrefix(detail+": ", ": ") + r.Message
		}
		seen := "-"
		if !r.LastObserved.IsZero() {
			seen = now.Sub(r.LastObserved).Round(time.Second).String() + " ago"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", printer.CleanText(sec, printer.DisplayName(r.ID, "")), r.State, seen, printer.CleanText(sec, detail))
	}
	return tw.Flush()
}
