package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// Shell completion beyond subcommands: resource names from state for the
// commands that take TYPE/NAME, types and api-versions for explain, and
// the -o values each command accepts. Completion never writes, never asks
// Azure and never fails loudly: on any problem it offers nothing.

// completeRecorded offers the TYPE/NAME of every resource recorded in the
// state --state names, as plans print them.
func (g *GlobalOptions) completeRecorded(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	st, err := g.openStateReadOnly(ctx)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer st.Close()
	recs, err := state.Heads(ctx, st)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, r := range recs {
		name := printer.CleanLine(g.runSecrets(), printer.DisplayName(r.ID, r.Type))
		if hasPrefixFold(name, toComplete) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out, cobra.ShellCompDirectiveNoFileComp
}

// openStateReadOnly opens --state for completion: a shell completes on
// every Tab, often in directories that hold no state, so nothing may be
// created (no state directory, key, lock or Secret).
func (g *GlobalOptions) openStateReadOnly(ctx context.Context) (state.Store, error) {
	o := state.DefaultOptions()
	o.KubeConfig = g.KubeFlags
	o.Secrets = g.runSecrets()
	o.ReadOnly = true
	return state.Open(ctx, g.State, o)
}

// completeExplain offers providers ("Microsoft.Storage/"), then their types,
// then after '@' the api-versions the schema index knows for the type.
func (g *GlobalOptions) completeExplain(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	reg, err := g.schemas()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	if typ, _, ok := strings.Cut(toComplete, "@"); ok {
		var out []string
		for _, v := range reg.Versions(typ) {
			if c := typ + "@" + v; hasPrefixFold(c, toComplete) {
				out = append(out, c)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	if ns, _, ok := strings.Cut(toComplete, "/"); ok {
		var out []string
		for _, t := range reg.TypesOf(ns) {
			if hasPrefixFold(t, toComplete) {
				out = append(out, t)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, p := range reg.Providers() {
		if hasPrefixFold(p, toComplete) {
			out = append(out, p+"/")
		}
	}
	// A provider alone is an argument too, but a type is what people want
	// next: no space after the slash.
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// completeOutput offers the -o values of the command being completed.
func (g *GlobalOptions) completeOutput(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	f := g.printFlagsOf(cmd)
	allowed := slices.Clone(f.AllowedFormats)
	for _, t := range f.TemplateFormats {
		allowed = append(allowed, t+"=")
	}
	var out []string
	for _, o := range allowed {
		if strings.HasPrefix(o, toComplete) {
			out = append(out, o)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// addCompletions wires completion into the command tree, including the
// commands whose files other code owns (get), by name.
func addCompletions(root *cobra.Command, g *GlobalOptions) {
	_ = root.RegisterFlagCompletionFunc("output", g.completeOutput)
	fixed := map[string][]string{
		"auth":        authModes,
		"cloud":       {"public", "china", "usgov"},
		"annotations": {"auto", printer.AnnotationsGitHub, printer.AnnotationsNone},
	}
	for flag, values := range fixed {
		_ = root.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
	}
	for _, c := range root.Commands() {
		if c.Flags().Lookup("replace") != nil {
			_ = c.RegisterFlagCompletionFunc("replace", g.completeRecorded)
		}
		switch c.Name() {
		case "get", "delete":
			if c.ValidArgsFunction == nil {
				c.ValidArgsFunction = g.completeRecorded
			}
		case "explain":
			if c.ValidArgsFunction == nil {
				c.ValidArgsFunction = g.completeExplain
			}
		case "state":
			for _, s := range c.Commands() {
				if (s.Name() == "show" || s.Name() == "rm" || s.Name() == "mv") && s.ValidArgsFunction == nil {
					s.ValidArgsFunction = g.completeRecorded
				}
			}
		}
	}
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// kubectlCompleteScript is the kubectl_complete-azure helper: kubectl (1.26
// and later) runs it, found on PATH, to complete `kubectl azure ...`, and
// expects cobra's __complete answer.
const kubectlCompleteScript = `#!/usr/bin/env sh
# Completion for "kubectl azure": kubectl runs this (found on PATH as
# kubectl_complete-azure) and expects the plugin's own completion answer.
exec kubectl-azure __complete "$@"
`

// writeKubectlComplete prints the helper script (hidden subcommand
// "completion kubectl"; release packaging installs its output next to the
// binary as kubectl_complete-azure, mode 0755).
func writeKubectlComplete(w io.Writer) error {
	_, err := fmt.Fprint(w, kubectlCompleteScript)
	return err
}
