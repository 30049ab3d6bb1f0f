package importer_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/internal/shareddata"
	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/importer"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

type corpusRecord struct {
	Source       string         `json:"source"`
	ResourceType string         `json:"resourceType"`
	APIVersion   string         `json:"apiVersion"`
	ID           string         `json:"id"`
	GetBody      map[string]any `json:"getBody"`
}

func readCorpus(t *testing.T) []corpusRecord {
	t.Helper()
	f, err := os.Open(shareddata.Path(t, "corpus", "azure-cli-extensions", "roundtrips.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 64<<20)
	var out []corpusRecord
	for sc.Scan() {
		var r corpusRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("corpus line %d: %v", len(out)+1, err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// rounds splits the records so that no ARM ID appears twice in a round:
// the corpus holds several GETs of the same resource, and the emulator
// holds one body per ID.
func rounds(recs []corpusRecord) [][]corpusRecord {
	seen := map[string]int{}
	var out [][]corpusRecord
	for _, r := range recs {
		k := strings.ToLower(strings.TrimSuffix(r.ID, "/"))
		n := seen[k]
		seen[k]++
		for len(out) <= n {
			out = append(out, nil)
		}
		out[n] = append(out[n], r)
	}
	return out
}

// TestCorpusImportRoundTrip seeds the emulator verbatim with every getBody
// of the azure-cli-extensions corpus, imports them all by ID, and plans the
// emitted manifests with the apply engine: the first diff after import
// must be a no-op for at least 99% of them. It also plans the same
// manifests without state (how they compare with Azure on their own),
// and checks that no emitted body holds a path the schema marks readonly.
func TestCorpusImportRoundTrip(t *testing.T) {
	recs := readCorpus(t)
	srv := startEmulator(t, false)
	c := armClient(t, srv.URL(), false)
	reg := schema.Default()
	ctx := context.Background()

	var (
		total, noop, stateless int
		notNoop, notQuiet      []string
		failures, readonly     []string
	)
	for ri, round := range rounds(recs) {
		srv.Reset()
		o := importer.DefaultOptions()
		o.Subscription = testSub
		o.APIVersions = map[string]string{}
		bySource := map[string]string{}
		for _, r := range round {
			if err := srv.Seed(r.ID, r.APIVersion, r.GetBody); err != nil {
				failures = append(failures, fmt.Sprintf("%s: seed: %v", r.Source, err))
				continue
			}
			o.IDs = append(o.IDs, r.ID)
			bySource[strings.ToLower(r.ID)] = r.Source
			// Types the schema index does not know need a pinned version,
			// as a user would pass with --api-version TYPE=VERSION.
			if len(reg.Versions(r.ResourceType)) == 0 && !strings.EqualFold(r.ResourceType, armid.ResourceGroupType) {
				if _, ok := o.APIVersions[strings.ToLower(r.ResourceType)]; !ok {
					o.APIVersions[strings.ToLower(r.ResourceType)] = r.APIVersion
				}
			}
		}
		im := newImporter(c, o)
		res, err := im.Read(ctx)
		if err != nil {
			t.Fatalf("round %d: import: %v", ri, err)
		}
		for _, f := range res.Failed {
			failures = append(failures, f.Error())
		}
		st := newMemStore()
		if err := im.Record(ctx, st, res, 0); err != nil {
			t.Fatalf("round %d: record: %v", ri, err)
		}
		for _, r := range res.Resources {
			for _, p := range readonlyPaths(reg, r) {
				readonly = append(readonly, fmt.Sprintf("%s (%s): %s", bySource[strings.ToLower(r.ID)], r.Type, p))
			}
		}
		set := loadYAMLEnv(t, yamlOf(t, res), importer.EnvValues(res))
		after := planSet(t, c, st, set)
		fresh := planSet(t, c, newMemStore(), set)
		quiet := map[string]bool{}
		for _, pr := range fresh.Resources {
			if len(pr.Changes) == 0 {
				quiet[strings.ToLower(pr.ID)] = true
			}
		}
		for _, pr := range after.Resources {
			total++
			src := bySource[strings.ToLower(pr.ID)]
			if pr.Action == plan.ActionNoOp && len(pr.Changes) == 0 {
				noop++
			} else {
				notNoop = append(notNoop, fmt.Sprintf("%s (%s): %s %s", src, pr.Type, pr.Action, describeChanges(pr.Changes)))
			}
			if quiet[strings.ToLower(pr.ID)] {
				stateless++
			} else {
				for _, fr := range fresh.Resources {
					if strings.EqualFold(fr.ID, pr.ID) {
						notQuiet = append(notQuiet, fmt.Sprintf("%s (%s): %s", src, pr.Type, describeChanges(fr.Changes)))
					}
				}
			}
		}
	}
	want := len(recs)
	share := float64(noop) / float64(want)
	t.Logf("corpus: %d records, %d imported, first diff after import no-op: %d (%.2f%% of all records)", want, total, noop, 100*share)
	t.Logf("same manifests planned without state (D vs live only): %d quiet (%.2f%%)", stateless, 100*float64(stateless)/float64(want))
	sort.Strings(notNoop)
	for _, s := range notNoop {
		t.Logf("  not no-op: %s", s)
	}
	for _, s := range failures {
		t.Logf("  not imported: %s", s)
	}
	if v := os.Getenv("IMPORT_CORPUS_VERBOSE"); v != "" {
		sort.Strings(notQuiet)
		for _, s := range notQuiet {
			t.Logf("  stateless change: %s", s)
		}
	}
	if share < 0.99 {
		t.Errorf("no-op share %.2f%% < 99%%", 100*share)
	}
	sort.Strings(readonly)
	for _, s := range readonly {
		t.Errorf("readonly path emitted: %s", s)
	}
}

// readonlyPaths lists the paths of r's emitted body that the schema marks
// readonly (or that sit under a readonly path), plus envelope fields.
func readonlyPaths(reg *schema.Registry, r *importer.Resource) []string {
	var out []string
	for _, k := range []string{"id", "name", "type", "etag", "systemData"} {
		if _, ok := r.Resolved[k]; ok {
			out = append(out, k+" (envelope)")
		}
	}
	t, _ := reg.Lookup(r.Type, r.APIVersion)
	var walk func(segs []string, v any)
	walk = func(segs []string, v any) {
		if len(segs) > 0 {
			if segs[len(segs)-1] == "provisioningState" {
				out = append(out, schema.JoinPath(segs)+" (provisioningState)")
				return
			}
			if t != nil {
				if _, p := t.Resolve(segs); p != nil && p.ReadOnly {
					out = append(out, schema.JoinPath(segs))
					return
				}
			}
		}
		switch x := v.(type) {
		case map[string]any:
			for k, cv := range x {
				walk(append(append([]string(nil), segs...), k), cv)
			}
		case []any:
			for i, cv := range x {
				walk(append(append([]string(nil), segs...), fmt.Sprintf("[%d]", i)), cv)
			}
		}
	}
	walk(nil, r.Resolved)
	return out
}
