package state

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"
)

// countingGetter hands out the kubeconfig of the test environment with a
// transport that counts every request the backend sends, by verb and
// resource.
type countingGetter struct {
	genericclioptions.RESTClientGetter
	mu     sync.Mutex
	counts map[string]int
}

func (g *countingGetter) ToRESTConfig() (*rest.Config, error) {
	cfg, err := g.RESTClientGetter.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			parts := strings.Split(strings.TrimSuffix(r.URL.Path, "/"), "/")
			res := "?"
			for i, p := range parts {
				if p == "namespaces" && i+2 < len(parts) {
					res = parts[i+2]
				}
			}
			g.mu.Lock()
			g.counts[r.Method+" "+res]++
			g.mu.Unlock()
			return rt.RoundTrip(r)
		})
	})
	return cfg, nil
}

func (g *countingGetter) total() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, c := range g.counts {
		n += c
	}
	return n
}

func (g *countingGetter) String() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var parts []string
	for k, c := range g.counts {
		parts = append(parts, fmt.Sprintf("%s=%d", k, c))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// maxCallsPerResource bounds the Kubernetes API calls an apply of 1,000
// creates costs the backend (issue 34: 4.24 before records were cached
// and intents group-committed).
const maxCallsPerResource = 1.5

// TestKubeApplyCallsPerResource runs the state side of an apply of 1,000
// creates as pkg/apply drives it (lock, settle intents, list, then for
// every resource an intent before the write and the record after it, many
// at once) and counts the API calls.
func TestKubeApplyCallsPerResource(t *testing.T) {
	e := requireEnv(t)
	ns := newNamespace(t, e)
	ctx := context.Background()
	g := &countingGetter{RESTClientGetter: e.ConfigFlags(), counts: map[string]int{}}
	st, err := Open(ctx, KubernetesScheme+ns+"/apply", Options{KubeConfig: g})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	start := time.Now()
	unlock, err := st.Lock(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if in, err := st.Intents(ctx); err != nil || len(in) != 0 {
		t.Fatalf("intents of a new set: %v %v", in, err)
	}
	if recs, err := st.List(ctx); err != nil || len(recs) != 0 {
		t.Fatalf("records of a new set: %d %v", len(recs), err)
	}
	const n = 1000
	writeConcurrently(t, n, 32, func(i int) error {
		id := spreadVnetID(i)
		r := testRecord(id)
		in := *r
		in.Baseline = nil
		if err := st.BeginIntent(ctx, Intent{ID: id, Op: OpPut, Record: &in}); err != nil {
			return err
		}
		time.Sleep(time.Millisecond) // the ARM write
		return st.Put(ctx, r)
	})
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	calls := g.total()
	per := float64(calls) / n
	fmt.Fprintf(os.Stderr, "CALLS kubernetes backend: apply of %d: %d API calls, %.2f per resource, %s (%s)\n", n, calls, per, took.Round(time.Millisecond), g)
	if per > maxCallsPerResource {
		t.Errorf("%.2f API calls per resource, want at most %.2f", per, maxCallsPerResource)
	}
	// Everything landed and nothing is left pending.
	other := openKubeT(t, e, ns, "apply", Options{})
	recs, err := other.List(ctx)
	if err != nil || len(recs) != n {
		t.Fatalf("listed %d records (%v), want %d", len(recs), err, n)
	}
	if in, err := other.Intents(ctx); err != nil || len(in) != 0 {
		t.Fatalf("%d intents left after the run (%v)", len(in), err)
	}
}

// TestKubeWaitingIsQuiet: a client held back by its request budget must
// not print client-go's "client-side throttling" lines on stderr (issue 34).
func TestKubeWaitingIsQuiet(t *testing.T) {
	e := requireEnv(t)
	ns := newNamespace(t, e)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=paced", "HELPER_STATE="+KubernetesScheme+ns+"/quiet",
		"HELPER_KUBECONFIG="+e.Kubeconfig, "HELPER_QPS=0.5")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("helper: %v\n%s", err, stderr.String())
	}
	if took := time.Since(start); took < 4*time.Second {
		t.Fatalf("the helper took %s: it was not held back, the test proves nothing", took)
	}
	if !strings.Contains(stdout.String(), "DONE") {
		t.Fatalf("helper did not finish: %s", stdout.String())
	}
	if strings.Contains(stderr.String(), "throttling") || strings.Contains(stderr.String(), "Waited") {
		t.Fatalf("client-go's throttling messages reached stderr:\n%s", stderr.String())
	}
}

// TestKubeJournalIntents: an intent is durable (visible to another
// process) when BeginIntent returns, whether it went to the journal
// ConfigMap or, too large for it, to its resource's ConfigMap; a run that
// ends leaves none behind.
func TestKubeJournalIntents(t *testing.T) {
	e := requireEnv(t)
	ns := newNamespace(t, e)
	ctx := context.Background()
	st := openKubeT(t, e, ns, "jnl", Options{})
	reader := openKubeT(t, e, ns, "jnl", Options{})
	unlock, err := st.Lock(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	small, large := testID, strings.Replace(testID, "stdemo001", "stdemo002", 1)
	big := testRecord(large)
	big.LastApplied["pad"] = randomHex(journalMax) // incompressible: cannot go in the journal
	for _, in := range []Intent{{ID: small, Op: OpPut, Record: testRecord(small)}, {ID: large, Op: OpPut, Record: big}} {
		if err := st.BeginIntent(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	seen := func() []string {
		t.Helper()
		ins, err := reader.Intents(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, in := range ins {
			ids = append(ids, in.ID)
		}
		sort.Strings(ids)
		return ids
	}
	if got := seen(); len(got) != 2 {
		t.Fatalf("another process sees intents %v, want both", got)
	}
	if cm, err := e.Clientset.CoreV1().ConfigMaps(ns).Get(ctx, ConfigMapName("jnl", large), metav1.GetOptions{}); err != nil || cm.Annotations[AnnIntent] == "" {
		t.Fatalf("the large intent should be on its resource's ConfigMap: %v", err)
	}
	if err := st.Put(ctx, testRecord(small)); err != nil {
		t.Fatal(err)
	}
	if err := st.CommitIntent(ctx, large); err != nil {
		t.Fatal(err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if got := seen(); len(got) != 0 {
		t.Fatalf("intents left after the run: %v", got)
	}
	if _, err := e.Clientset.CoreV1().ConfigMaps(ns).Get(ctx, "azstate-jnl-journal", metav1.GetOptions{}); err == nil {
		t.Fatal("the journal ConfigMap outlived a run that left no intent")
	}
	if _, err := e.Clientset.CoreV1().ConfigMaps(ns).Get(ctx, ConfigMapName("jnl", large), metav1.GetOptions{}); err == nil {
		t.Fatal("the ConfigMap that held only an intent outlived its commit")
	}
}
