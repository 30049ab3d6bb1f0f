package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// listState prints `state list` as a table people read: NAME, TYPE and
// GROUP first, the full ID (what scripts and `state show` can take) last;
// -o wide adds the api-version, origin and serial. The machine formats
// (name, json, yaml) are the state package's.
func listState(ctx context.Context, w io.Writer, st state.Store, format string, sec *secret.Registry) error {
	if format != "" && format != state.FormatTable && format != state.FormatWide {
		return state.List(ctx, w, st, format)
	}
	wide := format == state.FormatWide
	recs, err := state.Heads(ctx, st)
	if err != nil {
		return err
	}
	intents, err := st.Intents(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	cols := []string{"NAME", "TYPE", "GROUP", "SET", "UPDATED", "ID"}
	if wide {
		cols = []string{"NAME", "TYPE", "GROUP", "SET", "API VERSION", "ORIGIN", "SERIAL", "UPDATED", "ID"}
	}
	fmt.Fprintln(tw, strings.Join(cols, "\t"))
	for _, r := range recs {
		name, group := r.ID, ""
		if id, err := armid.Parse(r.ID); err == nil {
			name, group = strings.Join(id.Names, "/"), id.ResourceGroup
		}
		set := r.Set
		if set == "" {
			set = state.DefaultSet
		}
		row := []string{name, r.Type, group, set, r.Updated.UTC().Format(time.RFC3339), r.ID}
		if wide {
			row = []string{name, r.Type, group, set, r.APIVersion, r.Origin, strconv.FormatInt(r.Serial, 10), r.Updated.UTC().Format(time.RFC3339), r.ID}
		}
		for i, c := range row {
			if c == "" {
				c = "-"
			}
			row[i] = printer.CleanLine(sec, c)
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, in := range intents {
		fmt.Fprintf(w, "pending: %s of %s started %s was not confirmed; the next apply repairs it\n",
			in.Op, printer.CleanLine(sec, in.ID), in.Started.UTC().Format(time.RFC3339))
	}
	return nil
}
