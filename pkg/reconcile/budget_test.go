package reconcile

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

func TestParseBudget(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		bad  bool
	}{
		{in: "5%", want: 0.05},
		{in: " 5 % ", want: 0.05},
		{in: "5", want: 0.05},
		{in: "0.05", want: 0.05},
		{in: "100%", want: 1},
		{in: "0%", bad: true},
		{in: "150%", bad: true},
		{in: "-1", bad: true},
		{in: "five", bad: true},
	} {
		got, err := ParseBudget(tc.in)
		if (err != nil) != tc.bad || (!tc.bad && got != tc.want) {
			t.Errorf("ParseBudget(%q) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

// bucketServer answers every GET with a remaining-reads header it is
// told, counting requests.
type bucketServer struct {
	mu        sync.Mutex
	remaining int
	gets      int
}

func (b *bucketServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	b.gets++
	rem := b.remaining
	b.mu.Unlock()
	w.Header().Set("x-ms-ratelimit-remaining-subscription-reads", strconv.Itoa(rem))
	w.WriteHeader(http.StatusOK)
}

func (b *bucketServer) set(rem int) {
	b.mu.Lock()
	b.remaining = rem
	b.mu.Unlock()
}

func get(t *testing.T, b *Budget, url string, ctx context.Context) error {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := b.RoundTrip(req)
	if err == nil {
		resp.Body.Close()
	}
	return err
}

func TestBudgetIsAShareOfTheMeasuredBucket(t *testing.T) {
	srv := &bucketServer{remaining: 999}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	b := NewBudget(nil, 0.05, nil)
	if err := get(t, b, hs.URL, t.Context()); err != nil {
		t.Fatal(err)
	}
	size, rem := b.Measured()
	if size != 1000 || rem != 999 {
		t.Fatalf("measured size %v remaining %v, want 1000 and 999", size, rem)
	}
	// 5% of a 1000-token bucket refilled at 100/s: 5 reads/s.
	if r := b.Rate(); r != 5 {
		t.Fatalf("rate %v reads/s, want 5", r)
	}
}

func TestBudgetBacksOffWhenOthersDrainTheBucket(t *testing.T) {
	srv := &bucketServer{remaining: 249}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	b := NewBudget(nil, 0.2, nil)
	if err := get(t, b, hs.URL, t.Context()); err != nil {
		t.Fatal(err)
	}
	full := b.Rate()
	if full != 5 { // 20% of 25/s
		t.Fatalf("rate %v, want 5", full)
	}
	// Another client leaves a quarter of the bucket: the budget halves.
	srv.set(62)
	if err := get(t, b, hs.URL, t.Context()); err != nil {
		t.Fatal(err)
	}
	if r := b.Rate(); r >= full*0.6 || r <= 0 {
		t.Fatalf("rate %v after the bucket dropped to a quarter, want about half of %v", r, full)
	}
	// Nearly empty: the next read waits for the bucket to refill to half
	// (about 5 s at 25/s), so it does not come before a short deadline.
	srv.set(3)
	if err := get(t, b, hs.URL, t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	before := srv.gets
	err := get(t, b, hs.URL, ctx)
	if !errors.Is(err, context.DeadlineExceeded) || srv.gets != before {
		t.Fatalf("a read went out with the bucket nearly empty (err %v)", err)
	}
}

func TestBudgetStandsBackAfterA429(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer hs.Close()
	var codes []int
	b := NewBudget(nil, 1, func(_ string, code int) { codes = append(codes, code) })
	if err := get(t, b, hs.URL, t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if err := get(t, b, hs.URL, ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a read went out right after a 429: %v", err)
	}
	if len(codes) != 1 || codes[0] != 429 {
		t.Fatalf("observed %v", codes)
	}
}

func TestTrackerDiscardsObservationsDuringWrites(t *testing.T) {
	tr := NewTracker()
	before := tr.Mark()
	if tr.Stale(before, "a") {
		t.Fatal("nothing was written")
	}
	end := tr.Begin("a")
	if !tr.Stale(before, "a") || tr.Stale(before, "b") {
		t.Fatal("a is being written; b is not")
	}
	during := tr.Mark()
	if !tr.Stale(during, "a") {
		t.Fatal("an observation started while a was written is stale")
	}
	end()
	end() // idempotent
	if !tr.Stale(during, "a") {
		t.Fatal("the write ended after the observation started: still stale")
	}
	if tr.Stale(tr.Mark(), "a") {
		t.Fatal("an observation started after the write is good")
	}
}

type fakeSource struct {
	fp   string
	set  *manifest.Set
	err  error
	load int
}

func (f *fakeSource) Fingerprint(context.Context) (string, error) { return f.fp, nil }
func (f *fakeSource) Load(context.Context) (*manifest.Set, error) {
	f.load++
	return f.set, f.err
}
func (f *fakeSource) String() string { return "fake://" }

func TestReflectorKeepsTheLastGoodSet(t *testing.T) {
	good := &manifest.Set{Resources: []*manifest.Resource{{ID: "/subscriptions/s/resourceGroups/a"}}}
	src := &fakeSource{fp: "1", set: good}
	r := NewReflector(src)
	if changed, err := r.Sync(t.Context()); !changed || err != nil {
		t.Fatalf("first load: %v %v", changed, err)
	}
	// Same fingerprint: not read again.
	if changed, _ := r.Sync(t.Context()); changed || src.load != 1 {
		t.Fatalf("unchanged source read again (%d loads)", src.load)
	}
	// Invalid: refused, last good kept, error with file and line.
	bad := &manifest.ValidationError{Problems: []manifest.Problem{{File: "infra.yaml", Line: 7, Message: "broken"}}}
	src.fp, src.set, src.err = "2", nil, bad
	if changed, err := r.Sync(t.Context()); changed || err == nil {
		t.Fatalf("invalid set taken: %v %v", changed, err)
	}
	set, _, err := r.Current()
	if set != good || err == nil {
		t.Fatalf("current = %v, %v; want the good set and the error", set, err)
	}
	if ps := Problems(err); len(ps) != 1 || ps[0].File != "infra.yaml" || ps[0].Line != 7 {
		t.Fatalf("problems = %+v", ps)
	}
	// Empty: refused too.
	src.fp, src.set, src.err = "3", &manifest.Set{}, nil
	if _, err := r.Sync(t.Context()); !errors.Is(err, ErrEmptySet) {
		t.Fatalf("empty set: %v", err)
	}
	if set, _, _ := r.Current(); set != good {
		t.Fatal("the empty set replaced the good one")
	}
	// Fixed: taken, error cleared.
	fixed := &manifest.Set{Resources: []*manifest.Resource{{ID: "/subscriptions/s/resourceGroups/b"}}}
	src.fp, src.set = "4", fixed
	if changed, err := r.Sync(t.Context()); !changed || err != nil {
		t.Fatalf("fixed set: %v %v", changed, err)
	}
	if set, _, err := r.Current(); set != fixed || err != nil {
		t.Fatalf("current = %v, %v", set, err)
	}
	// Stopped mid-load (Ctrl-C): the load fails with the context, which
	// says nothing of the manifests; the status must not call them refused.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	src.fp, src.set, src.err = "5", nil, context.Canceled
	if _, err := r.Sync(ctx); err == nil {
		t.Fatal("a cancelled load succeeded")
	}
	if set, _, err := r.Current(); set != fixed || err != nil {
		t.Fatalf("after a cancelled load: current = %v, %v; want the good set and no error", set, err)
	}
}

func TestPolicyAnnotationWins(t *testing.T) {
	c := &Controller{Options: Options{DriftPolicy: PolicyDetect}}
	for _, tc := range []struct {
		ann, want string
	}{
		{"", PolicyDetect},
		{"correct", PolicyCorrect},
		{"detect", PolicyDetect},
		{"bogus", PolicyDetect}, // the loader refuses it; never acted on
	} {
		r := &manifest.Resource{Annotations: map[string]string{}}
		if tc.ann != "" {
			r.Annotations[AnnotationDriftPolicy] = tc.ann
		}
		if got := c.PolicyFor(r); got != tc.want {
			t.Errorf("annotation %q: policy %s, want %s", tc.ann, got, tc.want)
		}
	}
}

func TestOverlaps(t *testing.T) {
	for _, tc := range []struct {
		a, b []string
		want bool
	}{
		{[]string{"tags.env"}, []string{"tags.env"}, true},
		{[]string{"tags"}, []string{"tags.env"}, true},
		{[]string{"properties.rules"}, []string{"properties.rules[name=a].priority"}, true},
		{[]string{"tags.env"}, []string{"tags.environment"}, false},
		{[]string{"tags.env"}, []string{"location"}, false},
		{[]string{`tags."a.b"`}, []string{"tags.a"}, false},
		{[]string{"properties.rules[name=a]"}, []string{"properties.rules[name=b].priority"}, false},
	} {
		if got := overlaps(tc.a, tc.b); got != tc.want {
			t.Errorf("overlaps(%v, %v) = %v", tc.a, tc.b, got)
		}
	}
}

func TestDirFingerprintIgnoresHiddenAndSkippedFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.yaml", "a")
	src := &DirSource{Paths: []string{dir}, Skip: []string{filepath.Join(dir, "status.json")}}
	fp := func() string {
		t.Helper()
		s, err := src.Fingerprint(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first := fp()
	write("status.json", "{}")
	write(".status.json.123", "{}")
	write(".kubectl-azure/state.json", "{}")
	if fp() != first {
		t.Fatal("status, temporary and state files changed the fingerprint")
	}
	write("b.yaml", "b")
	if fp() == first {
		t.Fatal("a new manifest did not change the fingerprint")
	}
}

// TestBudgetNeverOvershootsItsShareInAWindow: the token bucket alone lets
// its whole burst out on top of its rate, so the reads of a window
// overshoot the share; the budget's own measured spend holds them.
func TestBudgetNeverOvershootsItsShareInAWindow(t *testing.T) {
	srv := &bucketServer{remaining: 249}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	b := NewBudget(nil, 0.05, nil) // 250 tokens refilled at 25/s: 1.25 reads/s, burst 12
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Second)
	defer cancel()
	sent := 0
	for get(t, b, hs.URL, ctx) == nil {
		sent++
	}
	// 12.5 reads per 10 s window: 12. The bucket alone lets 12 + 4 × 1.25 = 17 out.
	if sent > 12 {
		t.Fatalf("%d reads in 4 s, want at most 12 (5%% of the refill over the 10 s window)", sent)
	}
	if sent < 10 {
		t.Fatalf("only %d reads in 4 s: the budget holds back more than its share", sent)
	}
}

func TestSweepPartsKeepResourceGroupsWhole(t *testing.T) {
	sub := "/subscriptions/s"
	set := &manifest.Set{}
	for g := range 4 {
		rg := fmt.Sprintf("%s/resourceGroups/rg-%d", sub, g)
		set.Resources = append(set.Resources, &manifest.Resource{ID: rg})
		for i := range 2 {
			set.Resources = append(set.Resources, &manifest.Resource{ID: fmt.Sprintf("%s/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-%d", rg, i)})
		}
	}
	parts := sweepParts(set, 5)
	var got [][]string
	for _, p := range parts {
		var ids []string
		for _, r := range p.Resources[:p.own] {
			ids = append(ids, container(r.ID))
		}
		got = append(got, slices.Compact(ids))
	}
	// The groups themselves first (one list), then their contents, two
	// groups' worth to a part of at most 5.
	rg := func(g int) string { return fmt.Sprintf("/subscriptions/s/resourcegroups/rg-%d", g) }
	want := [][]string{{rg(0), rg(1), rg(2), rg(3)}, {rg(0), rg(1)}, {rg(2), rg(3)}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parts (by resource group) %v, want %v", got, want)
	}
	if n := len(sweepParts(set, 12)); n != 1 {
		t.Fatalf("a set within the size is cut into %d parts", n)
	}
}

// TestBudgetLetsAConfirmationThroughAFullWindow: a read confirming a drift
// waits for the token bucket but not for the measured spend.
func TestBudgetLetsAConfirmationThroughAFullWindow(t *testing.T) {
	srv := &bucketServer{remaining: 249}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	b := NewBudget(nil, 0.05, nil)
	b.sent = make([]time.Time, 12) // the window is full: 12 reads just now
	for i := range b.sent {
		b.sent[i] = time.Now()
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	if err := get(t, b, hs.URL, confirming(ctx)); err != nil {
		t.Fatalf("the confirmation was held: %v", err)
	}
	short, cancel2 := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel2()
	if err := get(t, b, hs.URL, short); err == nil {
		t.Fatal("a sweep read went through a full window")
	}
}

// TestBudgetKeepsItsBackOffAcrossAShareChange: the loop changes the share
// after its first sweep; a bucket other clients drained still slows it,
// and a 429 still holds the next read, whatever the share.
func TestBudgetKeepsItsBackOffAcrossAShareChange(t *testing.T) {
	srv := &bucketServer{remaining: 249}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	b := NewBudget(nil, 0.5, nil)
	if err := get(t, b, hs.URL, t.Context()); err != nil {
		t.Fatal(err)
	}
	if r := b.Rate(); r != 12.5 { // 50% of 25/s
		t.Fatalf("rate %v at 50%%, want 12.5", r)
	}
	b.SetFraction(0.05)
	if r, f := b.Rate(), b.Fraction(); r != 1.25 || f != 0.05 {
		t.Fatalf("rate %v, fraction %v after the step down, want 1.25 and 0.05", r, f)
	}
	// Another client leaves a quarter of the bucket: the budget halves,
	// and stays halved when the share goes up again.
	srv.set(62)
	if err := get(t, b, hs.URL, t.Context()); err != nil {
		t.Fatal(err)
	}
	b.SetFraction(0.5)
	if r := b.Rate(); r >= 12.5*0.6 || r <= 0 {
		t.Fatalf("rate %v at 50%% with the bucket at a quarter, want about half of 12.5", r)
	}
	// A 429 holds the next read at any share.
	hs429 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer hs429.Close()
	if err := get(t, b, hs429.URL, t.Context()); err != nil {
		t.Fatal(err)
	}
	b.SetFraction(1)
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	before := srv.gets
	if err := get(t, b, hs.URL, ctx); !errors.Is(err, context.DeadlineExceeded) || srv.gets != before {
		t.Fatalf("a read went out right after a 429 once the share was raised: %v", err)
	}
}

// TestBudgetStepDownHoldsTheInitialSpend: reads sent at the initial share
// count in the measured spend, so right after the step down the budget
// holds reads until the last window is within the steady share.
func TestBudgetStepDownHoldsTheInitialSpend(t *testing.T) {
	srv := &bucketServer{remaining: 249}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	b := NewBudget(nil, 0.5, nil)
	for range 30 { // within 50%'s window (125), far over 5%'s (12)
		if err := get(t, b, hs.URL, t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	b.SetFraction(0.05)
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	if err := get(t, b, hs.URL, ctx); err == nil {
		t.Fatal("a read went out at the steady share with 30 reads in the last window")
	}
}
