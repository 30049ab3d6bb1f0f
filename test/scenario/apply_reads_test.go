package scenario

import (
	"context"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"net/http"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/apply/armclient"
	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
	"github.com/kubectl-azure/kubectl-azure/plugins"
	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// getLog counts the GETs a client sends, by what they read, so a test
// failing its bound says where the reads went.
type getLog struct {
	next http.RoundTripper
	mu   sync.Mutex
	gets map[string]int
}

func (l *getLog) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet {
		l.mu.Lock()
		l.gets[getKind(r.URL.Path)]++
		l.mu.Unlock()
	}
	return l.next.RoundTrip(r)
}

// getKind names a GET by the shape of its path: an operation poll, a list
// of a collection, or a read of one resource of a type.
func getKind(path string) string {
	p := strings.ToLower(strings.Trim(path, "/"))
	if strings.Contains(p, "/operations/") || strings.Contains(p, "operationstatuses") || strings.Contains(p, "operationresults") || strings.HasPrefix(p, "_emulator") {
		return "poll"
	}
	segs := strings.Split(p, "/")
	i := len(segs) - 1
	if i >= 0 && (len(segs)%2 == 1) {
		return "list " + segs[i]
	}
	if i >= 1 {
		return "get " + segs[i-1]
	}
	return "get " + p
}

func (l *getLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	keys := make([]string, 0, len(l.gets))
	for k := range l.gets {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString("\n  " + k + ": ")
		b.WriteString(strconv.Itoa(l.gets[k]))
	}
	return b.String()
}

// TestApplyMixedReads bounds the reads of a first apply of the mixed
// layout (issue 34): the baseline of a write comes from the write's own
// answer or the final GET of its long-running operation, not from a GET
// per resource, and a first apply does not GET every resource to learn
// that it is absent. Runs in-process against the emulator, in `make test`.
func TestApplyMixedReads(t *testing.T) {
	const groups = 3
	dir := filepath.Join(t.TempDir(), "infra")
	n := writeMixed(t, dir, "rd", groups)
	a := harness.StartARM(t, harness.FastOptions())
	log := &getLog{next: http.DefaultTransport, gets: map[string]int{}}
	state := filepath.Join(t.TempDir(), "state.json")
	before := a.Stats()
	out, err := harness.ApplyWithClient(context.Background(), t, a.URL, state, dir, func(o *arm.Options) {
		o.HTTPClient = &http.Client{Transport: log}
	})
	if err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	after := a.Stats()
	gets := after.Requests["GET"] - before.Requests["GET"]
	puts := after.Requests["PUT"] - before.Requests["PUT"]
	t.Logf("%d resources: %d GETs, %d PUTs, %d polls; by kind:%s", n, gets, puts, after.Requests["POLL"]-before.Requests["POLL"], log)
	if puts != int64(n) {
		t.Errorf("%d PUTs for %d creates", puts, n)
	}
	// The baselines recorded from the writes' answers are what a read
	// shows: a second apply finds nothing to write.
	before = a.Stats()
	if out, err := harness.ApplyWithClient(context.Background(), t, a.URL, state, dir, nil); err != nil {
		t.Fatalf("second apply: %v\n%s", err, out)
	}
	if w := harness.Writes(a.Stats()) - harness.Writes(before); w != 0 {
		t.Errorf("second apply wrote %d times, want 0 (the first apply's baselines differ from what Azure shows)", w)
	}
	// Issue 34's bound is 1,200 GETs for 1,050 creates; the reads that
	// remain are the final GETs of long-running operations (the write's
	// answer) and a few lists.
	if max := int64(n) * 12 / 10; gets > max {
		t.Errorf("%d GETs for %d creates, want at most %d", gets, n, max)
	}
}

// deleteWith runs what `delete -f dir --yes` runs, in-process, with the
// client's requests sent through rt.
func deleteWith(t *testing.T, endpoint, statePath, dir string, rt http.RoundTripper) error {
	t.Helper()
	ctx := context.Background()
	o := arm.DefaultOptions()
	o.Endpoint = endpoint
	o.HTTPClient = &http.Client{Transport: rt}
	c, err := arm.New(o)
	if err != nil {
		t.Fatal(err)
	}
	lo := manifest.NewLoadOptions()
	lo.Filenames = []string{dir}
	lo.Subscription = harness.Sub
	set, err := manifest.Load(ctx, lo)
	if err != nil {
		t.Fatal(err)
	}
	st, err := state.Open(ctx, statePath, state.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	opts := apply.DefaultOptions()
	opts.Mode = plan.ModeDelete
	eng := &apply.Engine{Client: armclient.New(c), Store: st, Schemas: schema.Default(), Plugins: plugins.For, Options: opts}
	p, err := eng.Plan(ctx, set)
	if err != nil {
		return err
	}
	_, err = eng.Execute(ctx, p)
	return err
}

// TestDeleteMixedReads bounds the reads of deleting whole groups of the
// mixed layout: what a group's DELETE takes is known from the group's
// listing and the child listings the cascade check needs, not from a
// listing per child type of every resource.
func TestDeleteMixedReads(t *testing.T) {
	const groups = 2
	dir := filepath.Join(t.TempDir(), "infra")
	n := writeMixed(t, dir, "dl", groups)
	a := harness.StartARM(t, harness.FastOptions())
	state := filepath.Join(t.TempDir(), "state.json")
	if out, err := harness.ApplyWithClient(context.Background(), t, a.URL, state, dir, nil); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	log := &getLog{next: http.DefaultTransport, gets: map[string]int{}}
	before := a.Stats()
	if err := deleteWith(t, a.URL, state, dir, log); err != nil {
		t.Fatalf("delete: %v", err)
	}
	after := a.Stats()
	gets := after.Requests["GET"] - before.Requests["GET"]
	dels := after.Requests["DELETE"] - before.Requests["DELETE"]
	t.Logf("%d resources: %d GETs, %d DELETEs; by kind:%s", n, gets, dels, log)
	if len(a.LiveIDs()) != 0 {
		t.Errorf("left in Azure after delete: %v", a.LiveIDs())
	}
	if dels != groups {
		t.Errorf("%d DELETEs, want one per group (%d)", dels, groups)
	}
	// The collections the vnets' and NSGs' bodies hold inline, and the
	// NSGs' default rules, are not listed.
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, k := range []string{"list subnets", "list virtualnetworkpeerings", "list securityrules", "list defaultsecurityrules"} {
		if log.gets[k] > 0 {
			t.Errorf("%s: %d requests, want none", k, log.gets[k])
		}
	}
}
