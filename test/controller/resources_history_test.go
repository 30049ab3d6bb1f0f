package controller

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator/emulatortest"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
	"github.com/kubectl-azure/kubectl-azure/pkg/state/statetest"
	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// TestContestSurvivesANewTermOnObjects: a tag another client keeps
// writing is found contested and left alone; the count and the back-off
// are in the object's status (status.history), so a new term of the loop
// (a new leader, a restarted pod, with no status file) goes on leaving it
// alone instead of fighting again.
func TestContestSurvivesANewTermOnObjects(t *testing.T) {
	f := newFront(t, harness.FastOptions())
	env := statetest.Shared(t)
	dc := installCRD(t, env)
	ns := env.NewNamespace(t)
	createObjects(t, dc, ns, map[string]map[string]any{
		"rg": yamlDoc(t, emulatortest.Group("rg-ch").YAML()),
		"id": yamlDoc(t, emulatortest.Identity("id-ch", "rg-ch", "tags: {env: prod}").YAML()),
	})
	o := fastLoop()
	o.ReadBudget, o.DriftPolicy = 0.5, reconcile.PolicyCorrect
	statePath := t.TempDir() + "/state.json"
	first := startObjectLoopAt(t, f, dc, ns, o, statePath)
	waitReady(t, dc, ns, 30*time.Second)

	id := identityID("rg-ch", "id-ch")
	fight, stopFight := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for fight.Err() == nil {
			req, _ := http.NewRequestWithContext(fight, http.MethodPut, f.URL+id+"?api-version=2023-01-31",
				strings.NewReader(`{"location":"westeurope","tags":{"env":"staging"}}`))
			req.Header.Set("User-Agent", "other-tool/1.0")
			req.Header.Set("Content-Type", "application/json")
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
			time.Sleep(30 * time.Millisecond)
		}
	}()
	defer func() { stopFight(); wg.Wait() }()
	res := dc.Resource(reconcile.ResourceGVR).Namespace(ns)
	var obj *unstructured.Unstructured
	deadline := time.Now().Add(30 * time.Second)
	for {
		var err error
		obj, err = res.Get(t.Context(), "id-ch", metav1.GetOptions{})
		if err == nil {
			st, _, _ := unstructured.NestedString(obj.Object, "status", "state")
			n, _, _ := unstructured.NestedInt64(obj.Object, "status", "history", "contested")
			if st == reconcile.StateContested && n >= 1 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("not contested within 30 s: %v", obj)
		}
		time.Sleep(50 * time.Millisecond)
	}
	first.stop()
	before := f.Writes(emulatortest.ClientLoop)

	second := startObjectLoopAt(t, f, dc, ns, o, statePath)
	time.Sleep(3 * time.Second) // many sweeps at 100 ms
	if n := f.Writes(emulatortest.ClientLoop) - before; n != 0 {
		t.Errorf("the new term wrote the contested tag %d more time(s)", n)
	}
	if st := stateOf(second.ctl.Snapshot(), id); st != reconcile.StateContested {
		t.Errorf("the new term sees the identity %q, want contested", st)
	}
}

// TestUnconvergeableSurvivesANewTermOnObjects: a tag Azure does not keep
// (the loop writes it back, the service keeps the value changed outside)
// is found unconvergeable once; the verdict is in the object's status
// (status.history.unconvergeable), so a new term of the loop, with no
// status file, leaves the object Stalled instead of reading the record
// (which now holds Azure's value) as in sync and reporting it Ready. A
// change of the object's manifest ends the verdict.
func TestUnconvergeableSurvivesANewTermOnObjects(t *testing.T) {
	id := identityID("rg-uc", "id-uc")
	a := harness.StartARM(t, harness.FastOptions())
	var refuse atomic.Bool
	f := &front{Front: emulatortest.StartFront(t, func() http.Handler {
		return keepsValue(a.Server().Handler(), id, &refuse, `"prod"`, `"staging"`)
	}, other), arm: a}
	env := statetest.Shared(t)
	dc := installCRD(t, env)
	ns := env.NewNamespace(t)
	createObjects(t, dc, ns, map[string]map[string]any{
		"rg": yamlDoc(t, emulatortest.Group("rg-uc").YAML()),
		"id": yamlDoc(t, emulatortest.Identity("id-uc", "rg-uc", "tags: {env: prod}").YAML()),
	})
	o := fastLoop()
	o.ReadBudget, o.DriftPolicy = 0.5, reconcile.PolicyCorrect
	statePath := t.TempDir() + "/state.json"
	first := startObjectLoopAt(t, f, dc, ns, o, statePath)
	waitReady(t, dc, ns, 30*time.Second)

	refuse.Store(true)
	putOutside(t, f.URL+id, `{"location":"westeurope","tags":{"env":"staging"}}`)
	res := dc.Resource(reconcile.ResourceGVR).Namespace(ns)
	stuck := func(obj *unstructured.Unstructured) bool {
		st, _, _ := unstructured.NestedString(obj.Object, "status", "state")
		m, _, _ := unstructured.NestedString(obj.Object, "status", "history", "unconvergeable", "manifest")
		c := conditionOf(obj, "Stalled")
		return st == reconcile.StateUnconvergeable && m != "" && c["status"] == "True" && c["reason"] == reconcile.ReasonUnconvergeable
	}
	obj := waitObject(t, res, "id-uc", 30*time.Second, stuck)
	paths, _, _ := unstructured.NestedStringSlice(obj.Object, "status", "history", "unconvergeable", "paths")
	if !slices.Equal(paths, []string{"tags.env"}) || strings.Contains(toYAML(obj.Object["status"]), "staging") {
		t.Errorf("the verdict's history: paths %q, status %s (paths only, never values)", paths, toYAML(obj.Object["status"]))
	}
	first.stop()
	before := f.Writes(emulatortest.ClientLoop)
	second := startObjectLoopAt(t, f, dc, ns, o, statePath)
	time.Sleep(3 * time.Second) // many sweeps at 100 ms, status passes at 100 ms
	if n := f.Writes(emulatortest.ClientLoop) - before; n != 0 {
		t.Errorf("the new term wrote the unconvergeable tag %d more time(s)", n)
	}
	if st := stateOf(second.ctl.Snapshot(), id); st != reconcile.StateUnconvergeable {
		t.Errorf("the new term sees the identity %q, want unconvergeable", st)
	}
	if got, err := res.Get(t.Context(), "id-uc", metav1.GetOptions{}); err != nil || !stuck(got) || readyNow(got) {
		t.Errorf("after the new term's sweeps the status is %v %s, want Stalled (Unconvergeable)", err, toYAML(got.Object["status"]))
	}

	// A new manifest is tried again (and Azure takes this value).
	if _, err := res.Patch(t.Context(), "id-uc", types.MergePatchType, []byte(`{"spec":{"body":{"tags":{"env":"dev"}}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	obj = waitObject(t, res, "id-uc", 30*time.Second, readyNow)
	if n := f.Writes(emulatortest.ClientLoop) - before; n != 1 {
		t.Errorf("the changed manifest was written %d times, want once", n)
	}
	if h, found, _ := unstructured.NestedMap(obj.Object, "status", "history", "unconvergeable"); found {
		t.Errorf("the ended verdict is still in the status: %v", h)
	}
}

// keepsValue is a service that does not keep a value the loop writes to
// id while refuse is set: its PUT and PATCH bodies have want replaced by
// kept before the emulator sees them.
func keepsValue(h http.Handler, id string, refuse *atomic.Bool, want, kept string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if refuse.Load() && (r.Method == http.MethodPut || r.Method == http.MethodPatch) && strings.EqualFold(r.URL.Path, id) &&
			emulatortest.ClientOf(r.UserAgent(), other) == emulatortest.ClientLoop {
			body, _ := io.ReadAll(r.Body)
			body = []byte(strings.ReplaceAll(string(body), want, kept))
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		}
		h.ServeHTTP(w, r)
	})
}

// putOutside writes body to url as another tool would.
func putOutside(t *testing.T, url, body string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPut, url+"?api-version=2023-01-31", strings.NewReader(body))
	req.Header.Set("User-Agent", "other-tool/1.0")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		t.Fatalf("the outside write: %s", resp.Status)
	}
}

// waitObject polls the object name until ok holds of it.
func waitObject(t *testing.T, res dynamic.ResourceInterface, name string, within time.Duration, ok func(*unstructured.Unstructured) bool) *unstructured.Unstructured {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		obj, err := res.Get(t.Context(), name, metav1.GetOptions{})
		if err == nil && ok(obj) {
			return obj
		}
		if time.Now().After(deadline) {
			if obj != nil {
				t.Fatalf("%s not as expected within %s: %s", name, within, toYAML(obj.Object["status"]))
			}
			t.Fatalf("%s not as expected within %s: %v", name, within, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
