// Command gen regenerates the embedded schema index from the ARM OpenAPI
// specs. It is run by `go generate ./pkg/schema` (and `make schema`):
//
//	go run ./internal/gen -specs PATH -out data
//
// PATH is an azure-rest-api-specs checkout or a .tar.gz of one; it
// defaults to the project's shared specs archive.
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
	specs := flag.String("specs", "", "azure-rest-api-specs directory or .tar.gz (default: the shared azure-specs archive)")
	out := flag.String("out", "data", "output directory for the index")
	flag.Parse()
	if err := run(*specs, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(specs, out string) error {
	if specs == "" {
		dir, err := shareddata.Dir()
		if err != nil {
			return fmt.Errorf("%w; or pass -specs PATH", err)
		}
		specs = filepath.Join(dir, "azure-specs", "azure-specs-stable.tar.gz")
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
	st, err := specgen.Run(src, tmp)
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
