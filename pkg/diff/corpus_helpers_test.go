package diff_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/internal/shareddata"
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/plugins"
)

// record is one PUT/GET round trip of the corpus (see its README).
type record struct {
	Source        string         `json:"source"`
	ResourceType  string         `json:"resourceType"`
	Provider      string         `json:"provider"`
	APIVersion    string         `json:"apiVersion"`
	GetAPIVersion string         `json:"getApiVersion"`
	ID            string         `json:"id"`
	PutBody       map[string]any `json:"putBody"`
	GetBody       map[string]any `json:"getBody"`
}

var (
	corpusMu    sync.Mutex
	corpusCache = map[string][]record{}
)

// loadCorpus reads a gzipped JSON-lines round-trip file from ../shared.
func loadCorpus(t testing.TB, elem ...string) []record {
	t.Helper()
	p := shareddata.Path(t, elem...)
	corpusMu.Lock()
	defer corpusMu.Unlock()
	if rs, ok := corpusCache[p]; ok {
		return rs
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []record
	for sc.Scan() {
		// Numbers as the tool decodes them (json.Number), so the corpus
		// exercises the same comparisons a real run makes.
		var r record
		d := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		d.UseNumber()
		if err := d.Decode(&r); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if r.Provider == "" {
			r.Provider = strings.SplitN(r.ResourceType, "/", 2)[0]
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	corpusCache[p] = out
	return out
}

func cliCorpus(t testing.TB) []record {
	return loadCorpus(t, "corpus", "azure-cli-extensions", "roundtrips.jsonl.gz")
}

func specCorpus(t testing.TB) []record {
	return loadCorpus(t, "corpus", "rest-api-specs-examples", "put_examples.jsonl.gz")
}

func lookupSchema(r record) *schema.Type {
	s, _ := schema.Default().Lookup(r.ResourceType, r.APIVersion)
	return s
}

// input builds the state-less comparison the corpus measures: D = putBody,
// S = getBody.
func input(r record, withPlugins bool) diff.Input {
	in := diff.Input{Desired: r.PutBody, Live: r.GetBody, Schema: lookupSchema(r)}
	if withPlugins {
		in.Plugin = plugins.For(r.ResourceType)
	}
	return in
}

// claimed lists the changes that claim live differs from the manifest: all
// but the unverifiable ones (on a first plan, values live does not return,
// planned to be written once and never claimed as a difference).
func claimed(res diff.Result) []plan.Change {
	var out []plan.Change
	for _, c := range res.Changes {
		if c.Cause != diff.CauseUnverifiable {
			out = append(out, c)
		}
	}
	return out
}

// quiet reports whether a first plan claims no difference.
func quiet(res diff.Result) bool { return len(claimed(res)) == 0 }

// exclusion says why a record is not a fair quiet-rate sample, or "".
func exclusion(r record) string {
	switch {
	case r.PutBody == nil:
		return "PUT had no JSON object body (nothing desired to compare)"
	case r.GetBody == nil:
		return "GET returned no JSON object body"
	}
	return ""
}

// tally accumulates a rate per provider.
type tally struct {
	ok, total map[string]int
}

func newTally() *tally { return &tally{ok: map[string]int{}, total: map[string]int{}} }

func (t *tally) add(provider string, ok bool) {
	p := strings.ToLower(provider)
	t.total[p]++
	t.total["ALL"]++
	if ok {
		t.ok[p]++
		t.ok["ALL"]++
	}
}

func (t *tally) rate(p string) float64 {
	if t.total[p] == 0 {
		return 1
	}
	return float64(t.ok[p]) / float64(t.total[p])
}

func (t *tally) report() string {
	var ps []string
	for p := range t.total {
		if p != "ALL" {
			ps = append(ps, p)
		}
	}
	sort.Slice(ps, func(i, j int) bool {
		if t.total[ps[i]] != t.total[ps[j]] {
			return t.total[ps[i]] > t.total[ps[j]]
		}
		return ps[i] < ps[j]
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%-40s %6s %6s %7s\n", "provider", "ok", "total", "rate")
	for _, p := range append([]string{"ALL"}, ps...) {
		fmt.Fprintf(&b, "%-40s %6d %6d %6.2f%%\n", p, t.ok[p], t.total[p], 100*t.rate(p))
	}
	return b.String()
}

// causes ranks noise by (type, schema-ish path) with example sources.
type causes struct {
	n       map[string]int
	sources map[string][]string
}

func newCauses() *causes { return &causes{n: map[string]int{}, sources: map[string][]string{}} }

func (c *causes) add(typ, path, source string) {
	k := typ + " " + genericPath(path)
	c.n[k]++
	if len(c.sources[k]) < 3 {
		c.sources[k] = append(c.sources[k], source)
	}
}

func (c *causes) top(n int) string {
	var ks []string
	for k := range c.n {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		if c.n[ks[i]] != c.n[ks[j]] {
			return c.n[ks[i]] > c.n[ks[j]]
		}
		return ks[i] < ks[j]
	})
	if len(ks) > n {
		ks = ks[:n]
	}
	var b strings.Builder
	for i, k := range ks {
		fmt.Fprintf(&b, "%2d. %4d  %s\n        e.g. %s\n", i+1, c.n[k], k, strings.Join(c.sources[k], "\n             "))
	}
	return b.String()
}

// genericPath drops array keys so the same path in many records groups,
// and unquotes quoted member names (tags."a.b" -> tags.a.b).
func genericPath(p string) string {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '[':
			if depth == 0 {
				b.WriteString("[]")
			}
			depth++
		case c == ']':
			depth--
		case depth > 0:
			// inside an item key: dropped, but skip quoted runs whole
			if c == '"' {
				i = skipQuoted(p, i)
			}
		case c == '"':
			j := skipQuoted(p, i)
			if u, err := strconv.Unquote(p[i : j+1]); err == nil {
				b.WriteString(u)
			}
			i = j
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// skipQuoted returns the index of the quote closing the one at i.
func skipQuoted(p string, i int) int {
	for j := i + 1; j < len(p); j++ {
		if p[j] == '\\' {
			j++
			continue
		}
		if p[j] == '"' {
			return j
		}
	}
	return len(p) - 1
}
