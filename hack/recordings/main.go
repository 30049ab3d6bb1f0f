// Command recordings extracts PUT→GET round trips of ARM resources from
// recorded HTTP sessions (the Azure PowerShell modules' test recordings) into
// the JSON-lines format of testdata/corpus: for each successful PUT, the next
// GET of the same resource that had finished provisioning.
//
//	go run ./hack/recordings -root ../azure-powershell -o roundtrips.jsonl.gz \
//	    -counts counts_by_provider.tsv ../azure-powershell/src/Network
//
// Arguments are recording files or folders (searched for *.json). See
// README.md beside this file.
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	out := flag.String("o", "roundtrips.jsonl.gz", "output file (gzipped JSON lines)")
	counts := flag.String("counts", "", "also write per-provider counts to this TSV file")
	root := flag.String("root", "", "local folder holding the recorded repository: source paths are made relative to it")
	prefix := flag.String("source", "azure-powershell", "prefix of every record's source field")
	fromList := flag.Bool("from-list", false, "when no GET of the resource follows its PUT, use its item in a later GET of its collection (records get getFrom: list)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: recordings [flags] FILE|DIR...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Args(), *root, *prefix, *out, *counts, *fromList); err != nil {
		fmt.Fprintln(os.Stderr, "recordings:", err)
		os.Exit(1)
	}
}

func run(args []string, root, prefix, out, counts string, fromList bool) error {
	files, err := recordingFiles(args)
	if err != nil {
		return err
	}
	var all []pair
	for _, f := range files {
		entries, err := readRecording(f)
		if err != nil {
			// One unreadable file must not cost the rest: say which and go on.
			fmt.Fprintf(os.Stderr, "recordings: skipping %s: %v\n", f, err)
			continue
		}
		ps := extract(entries, fromList)
		src := sourcePath(f, root)
		for i := range ps {
			ps[i].Source = fmt.Sprintf("%s:%s#%d", prefix, src, i)
			ps[i].File = src
		}
		all = append(all, ps...)
	}
	if err := writeJSONL(out, all); err != nil {
		return err
	}
	if counts != "" {
		if err := writeCounts(counts, all); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "recordings: %d pairs from %d files, %d types\n", len(all), len(files), len(typesOf(all)))
	return nil
}

// recordingFiles expands folders to the *.json files under them, sorted so
// output is reproducible.
func recordingFiles(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, a)
			continue
		}
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".json") {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(files)
	return files, nil
}

func sourcePath(f, root string) string {
	if root != "" {
		if rel, err := filepath.Rel(root, f); err == nil && !strings.HasPrefix(rel, "..") {
			f = rel
		}
	}
	return filepath.ToSlash(f)
}

func writeJSONL(path string, ps []pair) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(f)
	bw := bufio.NewWriter(zw)
	werr := encodePairs(bw, ps)
	for _, c := range []func() error{bw.Flush, zw.Close, f.Close} {
		if err := c(); err != nil && werr == nil {
			werr = err
		}
	}
	return werr
}

func writeCounts(path string, ps []pair) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	werr := countsTSV(f, ps)
	if err := f.Close(); err != nil && werr == nil {
		werr = err
	}
	return werr
}

// countsTSV writes records and distinct resource types per provider, most
// records first, in the layout of the other corpus folders.
func countsTSV(w io.Writer, ps []pair) error {
	recs := map[string]int{}
	types := map[string]map[string]bool{}
	for _, p := range ps {
		pv := strings.ToLower(p.Provider)
		recs[pv]++
		if types[pv] == nil {
			types[pv] = map[string]bool{}
		}
		types[pv][strings.ToLower(p.ResourceType)] = true
	}
	var provs []string
	for p := range recs {
		provs = append(provs, p)
	}
	sort.Slice(provs, func(i, j int) bool {
		if recs[provs[i]] != recs[provs[j]] {
			return recs[provs[i]] > recs[provs[j]]
		}
		return provs[i] < provs[j]
	})
	if _, err := fmt.Fprintln(w, "provider\trecords\tresource_types"); err != nil {
		return err
	}
	for _, p := range provs {
		if _, err := fmt.Fprintf(w, "%s\t%d\t%d\n", p, recs[p], len(types[p])); err != nil {
			return err
		}
	}
	return nil
}

func typesOf(ps []pair) map[string]bool {
	m := map[string]bool{}
	for _, p := range ps {
		m[strings.ToLower(p.ResourceType)] = true
	}
	return m
}
