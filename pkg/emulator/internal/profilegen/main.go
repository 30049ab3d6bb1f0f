// Command profilegen writes the emulator's embedded profile from the
// azure-cli-extensions round trips of ../shared/corpus. Run it with
// `go generate ./pkg/emulator`.
package main

import (
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kubectl-azure/kubectl-azure/internal/shareddata"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator/internal/learn"
)

func main() {
	out := flag.String("o", "profile.json.gz", "output file (gzip-compressed JSON)")
	corpus := flag.String("corpus", "", "corpus folder (default: the shared data folder's corpus)")
	flag.Parse()
	if err := run(*corpus, *out); err != nil {
		fmt.Fprintln(os.Stderr, "profilegen:", err)
		os.Exit(1)
	}
}

func run(corpus, out string) error {
	if corpus == "" {
		d, err := shareddata.Dir()
		if err != nil {
			return err
		}
		corpus = filepath.Join(d, "corpus")
	}
	recs, err := learn.ReadRecords(filepath.Join(corpus, "azure-cli-extensions", "roundtrips.jsonl.gz"))
	if err != nil {
		return err
	}
	prof := learn.Learn(recs)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	if err := json.NewEncoder(zw).Encode(prof); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	st, err := os.Stat(out)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "profilegen: %d records, %d types, %d locations -> %s (%d bytes)\n",
		len(recs), len(prof.Types), len(prof.Locations), out, st.Size())
	return nil
}
