// Command gen regenerates the embedded schema index. It is run by
// `go generate ./pkg/schema` (and `make schema`):
//
//	go run ./internal/gen -bicep PATH -specs PATH -out data
//
// Inputs (flags, else environment, else the shared data folder beside
// the repository):
//
//   - -bicep / KUBECTL_AZURE_BICEP_TYPES: the Bicep type index, a checkout
//     of github.com/Azure/bicep-types-az or a .tar.gz of its generated/
//     folder. The committed index was built from commit 1f896de2
//     (2026-08-20), itself generated from Azure/azure-rest-api-specs at
//     b7170cade0. It decides which (type, api-version) pairs exist.
//   - -specs / KUBECTL_AZURE_SPECS: the ARM OpenAPI specs, a checkout of
//     github.com/Azure/azure-rest-api-specs or a .tar.gz of one. The
//     committed index used the stable specs of commit cbbe228f
//     (2024-07-08). They add identifiers, create-only, PATCH, defaults.
//
// With -bicep "none" only the Swagger is read (the --schema-dir mode).
// docs/schema.md describes the process.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/kubectl-azure/kubectl-azure/internal/shareddata"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema/internal/specgen"
)

func main() {
	specs := flag.String("specs", os.Getenv("KUBECTL_AZURE_SPECS"), "azure-rest-api-specs directory or .tar.gz (default: $KUBECTL_AZURE_SPECS, else the shared azure-specs archive)")
	bicep := flag.String("bicep", os.Getenv("KUBECTL_AZURE_BICEP_TYPES"), `bicep-types-az directory or .tar.gz, or "none" (default: $KUBECTL_AZURE_BICEP_TYPES, else the shared bicep-types archive)`)
	out := flag.String("out", "data", "output directory for the index")
	flag.Parse()
	if err := run(*specs, *bicep, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(specs, bicep, out string) error {
	if specs == "" || bicep == "" {
		dir, err := shareddata.Dir()
		if err != nil {
			return fmt.Errorf("%w; or pass -specs PATH and -bicep PATH", err)
		}
		if specs == "" {
			specs = filepath.Join(dir, "azure-specs", "azure-specs-stable.tar.gz")
		}
		if bicep == "" {
			bicep = filepath.Join(dir, "bicep-types", "bicep-types-az.tar.gz")
		}
	}
	start := time.Now()
	src, err := specgen.OpenSource(specs)
	if err != nil {
		return err
	}
	// Write beside the target and swap, so a failed run leaves the
	// committed index untouched.
	tmp := out + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	var st specgen.Stats
	if bicep == "none" {
		st, err = specgen.Run(src, tmp)
	} else {
		st, err = specgen.RunMerged(src, bicep, tmp)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	if err := os.Rename(tmp, out); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "gen: wrote %s: %d types, %d (type, api-version) pairs from %d spec files in %s (%d $refs into missing files answered from common-types)\n",
		out, st.Types, st.Pairs, len(src.Files()), time.Since(start).Round(time.Millisecond), st.Fallbacks)
	return nil
}
