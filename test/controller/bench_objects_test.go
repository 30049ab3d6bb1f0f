//go:build unix

package controller

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
	"github.com/kubectl-azure/kubectl-azure/pkg/state/statetest"
	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// BenchmarkObjects10000 is the controller on 10,000 Resource objects of a
// kubernetes:// source on the repository's kube-apiserver (100 groups of
// 99 identities, applied beforehand), the emulator with ARM's buckets and
// 40 ms latency, default 5% read budget. It reports the first sync (loop
// start until every object is Ready at its generation, finalizer and
// status written), the status writes per object in a steady state of
// sweeps with nothing changing, and the test process's RSS at the end of
// the steady state (loop, informer and emulator together; the API server
// is a process of its own; the peak of the set-up's apply is not the
// loop's).
//
//	go test -run '^$' -bench 'Objects10000$' -benchtime 1x -timeout 40m ./test/controller
func BenchmarkObjects10000(b *testing.B) { benchObjects(b, 100, time.Minute) }

// BenchmarkObjects2000 is the same with 2,000 objects: quick enough to
// profile (-cpuprofile, -memprofile) while showing what grows with n.
func BenchmarkObjects2000(b *testing.B) { benchObjects(b, 20, 20*time.Second) }

// BenchmarkObjects1000 is the same with 1,000 objects.
func BenchmarkObjects1000(b *testing.B) { benchObjects(b, 10, 20*time.Second) }

// objectsFixture is the objects benchmarks' set-up: groups × 99
// identities applied beforehand, the emulator then given ARM's latency,
// and the manifests created as Resource objects in a new namespace (with
// the finalizer, through the controller's webhook).
type objectsFixture struct {
	f         *front
	statePath string
	env       *statetest.Env
	ns        string
	fast      dynamic.Interface // the test's own client: no client-side limit
	n         int               // objects
}

func newObjectsFixture(b *testing.B, groups int) objectsFixture {
	setup := harness.FastOptions()
	setup.Throttle.Reads = emulator.Bucket{Size: 100000, Refill: 100000}
	setup.Throttle.Writes = emulator.Bucket{Size: 100000, Refill: 100000}
	f := newFront(b, setup)
	dir, statePath := managed(b, f, "o", groups, 99)
	armLike := harness.FastOptions()
	armLike.Latency = 40 * time.Millisecond
	f.arm.Reconfigure(armLike)

	env := statetest.Shared(b)
	installCRD(b, env)
	ns := env.NewNamespace(b)
	cfg, err := env.ConfigFlags().ToRESTConfig()
	if err != nil {
		b.Fatal(err)
	}
	cfg.QPS, cfg.Burst = -1, 0
	fast := dynamic.NewForConfigOrDie(cfg)
	docs := splitDocs(b, filepath.Join(dir, "groups.yaml"))
	// The controller's webhook is up before the objects are applied, as
	// after `controller install --webhook ...`: they are stored with the
	// finalizer.
	finalizerWebhook(b, env, ns)
	createMany(b, fast, ns, docs)
	return objectsFixture{f: f, statePath: statePath, env: env, ns: ns, fast: fast, n: len(docs)}
}

func benchObjects(b *testing.B, groups int, steady time.Duration) {
	fx := newObjectsFixture(b, groups)
	f, statePath, env, ns, fast, n := fx.f, fx.statePath, fx.env, fx.ns, fx.fast, fx.n

	o := reconcile.DefaultOptions()
	o.SourceInterval = time.Second
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		var kubeWrites atomic.Int64
		dc := countingClient(b, env, &kubeWrites) // the controller's client: its own QPS (reconcile.KubeQPS)
		src := kubeSource(b, dc, ns)
		ctl, _, err := newController(f.URL, b.TempDir(), statePath, o, loopConfig{})
		if err != nil {
			b.Fatal(err)
		}
		ctl.Reflector = reconcile.NewReflector(src)
		ks := &reconcile.KubeStatus{Client: dc, Source: src, Controller: ctl, Store: ctl.Store}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); _ = ctl.Run(ctx) }()
		go func() { defer wg.Done(); ks.Run(ctx) }()
		l := &loop{ctl: ctl}
		if _, ok := waitState(b, l, 10*time.Minute, inSync(n)); !ok {
			b.Fatal("the loop is not in sync within 10 minutes")
		}
		loopSync := time.Since(start)
		waitAllReady(b, fast, ns, n, 10*time.Minute)
		firstSync := time.Since(start)
		firstWrites := kubeWrites.Load()

		settled := ks.Writes()
		time.Sleep(steady)
		perObject := float64(ks.Writes()-settled) / float64(n)
		resident := rss()
		cancel()
		wg.Wait()
		ctl.Store.Close()
		b.ReportMetric(firstSync.Seconds(), "s-first-sync")
		b.ReportMetric(loopSync.Seconds(), "s-loop-in-sync")
		b.ReportMetric(perObject, "status-writes/object-steady")
		b.ReportMetric(float64(ks.Writes())/float64(n), "status-writes/object-total")
		b.ReportMetric(resident/(1<<20), "MB-RSS")
		// Every request that changes an object (finalizer, status): what
		// bounds a first sync once the API server is the slower side.
		b.ReportMetric(float64(firstWrites)/float64(n), "kube-writes/object-first-sync")
	}
}

// finalizerWebhook serves the controller's mutating webhook from this
// process and registers it for ns, until the benchmark ends.
func finalizerWebhook(b testing.TB, env *statetest.Env, ns string) {
	addr, certs := serveWebhook(b, http.NotFoundHandler())
	ctx := b.Context()
	url := "https://" + addr + reconcile.MutatePath
	fail, none, timeout := admissionregistrationv1.Fail, admissionregistrationv1.SideEffectClassNone, int32(10)
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "bench-" + ns},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:         "finalizer.resources.azure.kubectl.io",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: certs.CA},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"azure.kubectl.io"}, APIVersions: []string{"v1alpha1"}, Resources: []string{"resources"}},
			}},
			NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
			FailurePolicy:           &fail,
			SideEffects:             &none,
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          &timeout,
		}}}
	mwcs := env.Clientset.AdmissionregistrationV1().MutatingWebhookConfigurations()
	if _, err := mwcs.Create(ctx, mwc, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = mwcs.Delete(context.Background(), mwc.Name, metav1.DeleteOptions{}) })
	// The API server starts calling a new webhook within a moment: wait
	// until a probe object is stored with the finalizer.
	dc := dynClient(b, env)
	probe := yamlDocB(b, groupYAML("webhook-probe"))
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		u, err := dc.Resource(reconcile.ResourceGVR).Namespace(ns).Create(ctx, &unstructured.Unstructured{Object: probe}, metav1.CreateOptions{})
		if err != nil {
			b.Fatal(err)
		}
		has := slices.Contains(u.GetFinalizers(), reconcile.Finalizer)
		u.SetFinalizers(nil)
		if _, err := dc.Resource(reconcile.ResourceGVR).Namespace(ns).Update(ctx, u, metav1.UpdateOptions{}); err != nil {
			b.Fatal(err)
		}
		if err := dc.Resource(reconcile.ResourceGVR).Namespace(ns).Delete(ctx, u.GetName(), metav1.DeleteOptions{}); err != nil {
			b.Fatal(err)
		}
		if has {
			return
		}
		if time.Now().After(deadline) {
			b.Fatal("the API server does not call the finalizer webhook")
		}
	}
}

func yamlDocB(b testing.TB, s string) map[string]any {
	var m map[string]any
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		b.Fatal(err)
	}
	return m
}

// countingClient is dynClient that also counts the requests it sends
// that are not reads.
func countingClient(b *testing.B, env *statetest.Env, writes *atomic.Int64) dynamic.Interface {
	cfg, err := env.ConfigFlags().ToRESTConfig()
	if err != nil {
		b.Fatal(err)
	}
	cfg.QPS, cfg.Burst = reconcile.KubeQPS, reconcile.KubeBurst // as the controller's
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.Method != http.MethodGet {
				writes.Add(1)
			}
			return rt.RoundTrip(r)
		})
	})
	return dynamic.NewForConfigOrDie(cfg)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// splitDocs reads a multi-document manifest file.
func splitDocs(b *testing.B, file string) []map[string]any {
	raw, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	var out []map[string]any
	for _, part := range strings.Split("\n"+string(raw), "\n---\n") {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(part), &m); err != nil {
			b.Fatal(err)
		}
		if m != nil {
			out = append(out, m)
		}
	}
	return out
}

// createMany creates the objects with a few requests in flight.
func createMany(b *testing.B, dc dynamic.Interface, ns string, docs []map[string]any) {
	work := make(chan map[string]any)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range work {
				u := &unstructured.Unstructured{Object: d}
				u.SetNamespace(ns)
				if _, err := dc.Resource(reconcile.ResourceGVR).Namespace(ns).Create(context.Background(), u, metav1.CreateOptions{}); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
				}
			}
		}()
	}
	for _, d := range docs {
		work <- d
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		b.Fatal(firstErr)
	}
}

// waitAllReady waits until n objects of ns are Ready at their generation.
func waitAllReady(b *testing.B, dc dynamic.Interface, ns string, n int, within time.Duration) {
	deadline := time.Now().Add(within)
	for {
		l, err := dc.Resource(reconcile.ResourceGVR).Namespace(ns).List(context.Background(), metav1.ListOptions{})
		if err == nil {
			ready := 0
			for i := range l.Items {
				if readyNow(&l.Items[i]) {
					ready++
				}
			}
			if ready == n {
				return
			}
			if time.Now().After(deadline) {
				b.Fatalf("%d of %d objects Ready within %s", ready, n, within)
			}
		}
		time.Sleep(time.Second)
	}
}

// rss is the process's resident set now (VmRSS), in bytes.
func rss() float64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb * 1024
		}
	}
	return 0
}

// serveWebhook serves h as the controller's webhook server does, from this
// process on a loopback port, with a CA made for 127.0.0.1, until the test
// ends; it returns the address and the certificates (CA for caBundle).
func serveWebhook(tb testing.TB, h http.Handler) (string, *reconcile.Certs) {
	tb.Helper()
	certs, err := reconcile.SelfSignedCA(nil, []net.IP{net.ParseIP("127.0.0.1")}, time.Hour)
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if err := os.WriteFile(certFile, certs.Cert, 0o600); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(keyFile, certs.Key, 0o600); err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	addr, err := reconcile.ServeWebhook(ctx, "127.0.0.1:0", certFile, keyFile, h)
	if err != nil {
		tb.Fatal(err)
	}
	return addr, certs
}
