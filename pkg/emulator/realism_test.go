package emulator_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/internal/shareddata"
	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator/internal/learn"
)

type corpusRecord = learn.Record

func readCorpus(t *testing.T) []corpusRecord {
	t.Helper()
	recs, err := learn.ReadRecords(shareddata.Path(t, "corpus", "azure-cli-extensions", "roundtrips.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// share is hits out of total.
type share struct{ hit, total int }

func (s share) String() string {
	if s.total == 0 {
		return "    -"
	}
	return fmt.Sprintf("%4.0f%% (%d/%d)", 100*float64(s.hit)/float64(s.total), s.hit, s.total)
}

func (s share) ratio() float64 { return float64(s.hit) / float64(s.total) }

// TestRealismReport replays every putBody of the azure-cli-extensions
// corpus against the emulator (corpus quirks), GETs it back and compares
// with the recorded getBody, for the 50 most frequent types:
//   - added: keys the recorded GET has and the PUT lacked (parent present),
//     that the emulator's GET has too;
//   - normalised: leaves present in both whose value ARM changed, that the
//     emulator changes to the same value (etag and systemData excluded:
//     they are fresh per write).
//
// The profile is learned from these same records, so this is an in-sample
// measure of how faithfully the profile is applied; see also the
// held-out half below.
func TestRealismReport(t *testing.T) {
	recs := readCorpus(t)
	types := top(recs, 50)
	srv := newRealismServer(t, nil)
	added, norm, perType := measure(t, srv, recs, types)
	report(t, "in-sample (profile learned from all records, as embedded)", added, norm, perType)
	if added.ratio() < 0.80 {
		t.Errorf("server-added keys reproduced: %v, want at least 80%%", added)
	}
	// The aim is 80%; the floor leaves room for the schema's secret and
	// write-only paths, which drop a few values ARM in fact echoed.
	if norm.ratio() < 0.75 {
		t.Errorf("normalised values reproduced: %v, want at least 75%%", norm)
	}

	// Held out: learn from the recordings of one half of the test files,
	// measure on the other half, and the other way round. This is what a
	// resource the corpus never saw can expect.
	var halves [2][]corpusRecord
	for _, r := range recs {
		file, _, _ := strings.Cut(r.Source, "#")
		h := 0
		for _, c := range file {
			h = (h*31 + int(c)) & 0xffff
		}
		halves[h%2] = append(halves[h%2], r)
	}
	var hoAdded, hoNorm share
	hoPerType := map[string]*typeShares{}
	for i := range halves {
		srv := newRealismServer(t, learn.Learn(halves[i]))
		a, n, pt := measure(t, srv, halves[1-i], types)
		hoAdded.hit, hoAdded.total = hoAdded.hit+a.hit, hoAdded.total+a.total
		hoNorm.hit, hoNorm.total = hoNorm.hit+n.hit, hoNorm.total+n.total
		for k, v := range pt {
			if hoPerType[k] == nil {
				hoPerType[k] = &typeShares{}
			}
			w := hoPerType[k]
			w.records += v.records
			w.added.hit, w.added.total = w.added.hit+v.added.hit, w.added.total+v.added.total
			w.norm.hit, w.norm.total = w.norm.hit+v.norm.hit, w.norm.total+v.norm.total
		}
	}
	report(t, "held out (2-fold by recording file)", hoAdded, hoNorm, hoPerType)
	if hoAdded.ratio() < 0.70 {
		t.Errorf("held-out server-added keys reproduced: %v, want at least 70%%", hoAdded)
	}
}

// newRealismServer is an emulator with the default options (embedded
// schema included) but no throttling and instant LROs.
func newRealismServer(t *testing.T, p *emulator.Profile) *emulator.Server {
	t.Helper()
	opts := emulator.DefaultOptions()
	opts.Throttle.Enabled = false
	opts.LRODuration = 0
	opts.Profile = p
	opts.SkipReferenceCheck = true // the replays reference resources created outside them
	srv, err := emulator.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

func top(recs []corpusRecord, n int) map[string]bool {
	count := map[string]int{}
	for _, r := range recs {
		count[r.ResourceType]++
	}
	types := make([]string, 0, len(count))
	for k := range count {
		types = append(types, k)
	}
	sort.Slice(types, func(i, j int) bool {
		if count[types[i]] != count[types[j]] {
			return count[types[i]] > count[types[j]]
		}
		return types[i] < types[j]
	})
	out := map[string]bool{}
	for i := 0; i < n && i < len(types); i++ {
		out[types[i]] = true
	}
	return out
}

type typeShares struct {
	records     int
	added, norm share
}

func measure(t *testing.T, srv *emulator.Server, recs []corpusRecord, types map[string]bool) (added, norm share, perType map[string]*typeShares) {
	t.Helper()
	perType = map[string]*typeShares{}
	h := srv.Handler()
	for _, r := range recs {
		if !types[r.ResourceType] {
			continue
		}
		srv.Reset()
		if parent := parentOf(r.ID); parent != "" {
			if err := srv.Seed(parent, r.APIVersion, map[string]any{"id": parent}); err != nil {
				t.Errorf("%s: seed parent %s: %v", r.Source, parent, err)
				continue
			}
		}
		b, _ := json.Marshal(r.PutBody)
		url := r.ID + "?api-version=" + r.APIVersion
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPut, url, bytes.NewReader(b)))
		if rec.Code >= 300 {
			t.Errorf("%s: PUT %s: %d %s", r.Source, r.ID, rec.Code, rec.Body.String())
			continue
		}
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, url, nil))
		var got map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != 200 {
			t.Errorf("%s: GET %s: %d %s", r.Source, r.ID, rec.Code, rec.Body.String())
			continue
		}
		ts := perType[r.ResourceType]
		if ts == nil {
			ts = &typeShares{}
			perType[r.ResourceType] = ts
		}
		ts.records++
		a, n := compare(r.PutBody, r.GetBody, got)
		ts.added.hit += a.hit
		ts.added.total += a.total
		ts.norm.hit += n.hit
		ts.norm.total += n.total
	}
	for _, ts := range perType {
		added.hit += ts.added.hit
		added.total += ts.added.total
		norm.hit += ts.norm.hit
		norm.total += ts.norm.total
	}
	return added, norm, perType
}

// compare scores one round trip: put is what was sent, want what ARM
// returned, got what the emulator returned.
func compare(put, want, got map[string]any) (added, norm share) {
	bodypath.Walk(want, func(n bodypath.Node) {
		if _, inPut := bodypath.Get(put, n.Concrete); !inPut {
			parent := bodypath.Parent(n.Concrete)
			if _, ok := bodypath.Get(put, parent); parent != "" && !ok {
				return // counted at its topmost added ancestor
			}
			added.total++
			if _, ok := bodypath.Get(got, n.Concrete); ok {
				added.hit++
			}
			return
		}
		if strings.HasPrefix(n.General, "etag") || strings.HasPrefix(n.General, "systemData") {
			return
		}
		pv, _ := bodypath.Get(put, n.Concrete)
		if !learn.IsLeaf(pv) || reflect.DeepEqual(pv, n.Value) {
			return
		}
		norm.total++
		if gv, ok := bodypath.Get(got, n.Concrete); ok && reflect.DeepEqual(gv, n.Value) {
			norm.hit++
		}
	})
	return added, norm
}

func report(t *testing.T, title string, added, norm share, perType map[string]*typeShares) {
	types := make([]string, 0, len(perType))
	for k := range perType {
		types = append(types, k)
	}
	sort.Slice(types, func(i, j int) bool {
		if perType[types[i]].records != perType[types[j]].records {
			return perType[types[i]].records > perType[types[j]].records
		}
		return types[i] < types[j]
	})
	var b strings.Builder
	fmt.Fprintf(&b, "emulator realism, %s, %d types\n", title, len(types))
	fmt.Fprintf(&b, "%-75s %5s  %-20s %-20s\n", "type", "recs", "server-added keys", "normalised values")
	for _, k := range types {
		ts := perType[k]
		fmt.Fprintf(&b, "%-75s %5d  %-20v %-20v\n", k, ts.records, ts.added, ts.norm)
	}
	fmt.Fprintf(&b, "%-75s %5s  %-20v %-20v\n", "TOTAL", "", added, norm)
	t.Log("\n" + b.String())
}

// parentOf is the resource (or group) an ID needs to exist, "" when only
// the subscription or tenant is needed.
func parentOf(id string) string {
	segs := strings.Split(strings.Trim(id, "/"), "/")
	if len(segs) < 4 {
		return ""
	}
	parent := segs[:len(segs)-2]
	if len(parent) >= 2 && strings.EqualFold(parent[len(parent)-2], "providers") {
		parent = parent[:len(parent)-2] // top of a provider block: its scope
	}
	switch {
	case len(parent) == 0, len(parent) == 2 && strings.EqualFold(parent[0], "subscriptions"):
		return ""
	}
	return "/" + strings.Join(parent, "/")
}

// TestEmbeddedProfileIsGenerated fails when the embedded profile is not
// what the generator makes from the corpus: run go generate ./pkg/emulator.
func TestEmbeddedProfileIsGenerated(t *testing.T) {
	want, err := json.Marshal(learn.Learn(readCorpus(t)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := emulator.EmbeddedProfile()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(p)
	if string(got) != string(want) {
		t.Fatal("embedded profile.json.gz differs from what internal/profilegen generates from the corpus; run go generate ./pkg/emulator")
	}
	if dflt := emulator.DefaultOptions(); dflt.Schema == nil {
		t.Error("DefaultOptions does not wire the embedded schema")
	}
}
