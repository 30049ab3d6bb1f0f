// Command mixedgen writes the mixed benchmark layout (issue 34's workload:
// groups × 20 resources of 11 types) for kubectl-azure or for Terraform
// with the azapi provider, so the peer comparison in
// docs/peer-comparison.md runs both tools on the same resources.
//
//	go run ./test/internal/layout/mixedgen -groups 50 -format manifests -o DIR
//	go run ./test/internal/layout/mixedgen -groups 50 -format azapi -o DIR
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kubectl-azure/kubectl-azure/test/internal/layout"
)

func main() {
	groups := flag.Int("groups", 50, "resource groups (each holds 20 resources)")
	prefix := flag.String("prefix", "mx", "name prefix of groups and storage accounts")
	format := flag.String("format", "manifests", "manifests (mixed.yaml) or azapi (main.tf)")
	out := flag.String("o", ".", "directory to write into (created if missing)")
	flag.Parse()
	if err := run(*groups, *prefix, *format, *out); err != nil {
		fmt.Fprintln(os.Stderr, "mixedgen:", err)
		os.Exit(2)
	}
}

func run(groups int, prefix, format, out string) error {
	if groups < 1 || groups > 10000 {
		return fmt.Errorf("-groups %d: give 1 to 10000", groups)
	}
	rs := layout.Mixed(prefix, groups)
	var b bytes.Buffer
	var name string
	switch format {
	case "manifests":
		name = "mixed.yaml"
		if err := layout.WriteManifests(&b, rs); err != nil {
			return err
		}
	case "azapi":
		name = "main.tf"
		if err := layout.WriteAzapi(&b, rs); err != nil {
			return err
		}
	default:
		return fmt.Errorf("-format %q: use manifests or azapi", format)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	path := filepath.Join(out, name)
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s exists; choose an empty directory (nothing was written)", path)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %d resources to %s\n", len(rs), path)
	return nil
}
