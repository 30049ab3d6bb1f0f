package controller

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
	"github.com/kubectl-azure/kubectl-azure/pkg/state/statetest"
	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// objectLoop is a loop on a kubernetes:// source with its status writer.
type objectLoop struct {
	ctl    *reconcile.Controller
	status *reconcile.KubeStatus
	// stop ends the loop (also at the test's end).
	stop func()
}

func startObjectLoop(t *testing.T, f *front, dc dynamic.Interface, ns string, o reconcile.Options) *objectLoop {
	t.Helper()
	return startObjectLoopAt(t, f, dc, ns, o, filepath.Join(t.TempDir(), "state.json"))
}

// startObjectLoopAt is startObjectLoop on the state file statePath.
func startObjectLoopAt(t *testing.T, f *front, dc dynamic.Interface, ns string, o reconcile.Options, statePath string) *objectLoop {
	t.Helper()
	src := kubeSource(t, dc, ns)
	ctl, _, err := newController(f.URL, t.TempDir(), statePath, o, loopConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ctl.Reflector = reconcile.NewReflector(src)
	ctl.Events = reconcile.ObjectEvents(kubeClient(t, statetest.Shared(t), nil), src, ctl, nil, "test",
		func(err error) { t.Errorf("posting an Event: %v", err) })
	ks := &reconcile.KubeStatus{Client: dc, Source: src, Controller: ctl, Store: ctl.Store, Interval: 100 * time.Millisecond,
		OnError: func(err error) { t.Logf("status: %v", err) }}
	ctl.History = ks.History
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 2)
	go func() { done <- ctl.Run(ctx) }()
	go func() { ks.Run(ctx); done <- nil }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			for range 2 {
				select {
				case err := <-done:
					if err != nil {
						t.Errorf("the loop ended with %v", err)
					}
				case <-time.After(30 * time.Second):
					t.Errorf("the loop did not stop")
				}
			}
			ctl.Store.Close()
		})
	}
	t.Cleanup(stop)
	return &objectLoop{ctl: ctl, status: ks, stop: stop}
}

// TestLandingZoneObjectsBecomeReady: the landing zone created as objects
// on the real kube-apiserver is created in the emulated ARM by the
// controller; every object reaches Ready=True with observedGeneration
// current (kubectl wait --for=condition=Ready); steady state writes no
// status; an edit is applied and observed at its new generation; an
// invalid edit is Stalled with the loader's message while the others stay
// Ready.
func TestLandingZoneObjectsBecomeReady(t *testing.T) {
	f := newFront(t, harness.FastOptions())
	env := statetest.Shared(t)
	dc := installCRD(t, env)
	ns := env.NewNamespace(t)
	createObjects(t, dc, ns, landingZoneDocs(t))
	o := fastLoop()
	o.ReadBudget = 0.5
	l := startObjectLoop(t, f, dc, ns, o)

	objs := waitReady(t, dc, ns, 60*time.Second)
	live := f.arm.LiveIDs()
	for _, obj := range objs {
		id, _, _ := unstructured.NestedString(obj.Object, "status", "id")
		applied, _, _ := unstructured.NestedString(obj.Object, "status", "lastApplied")
		if !live[strings.ToLower(id)] && !live[id] {
			t.Errorf("%s: status.id %q is not a live resource", obj.GetName(), id)
		}
		if applied == "" || condition(&obj, "Stalled") != "False" || condition(&obj, "Reconciling") != "False" || condition(&obj, "Drifted") != "False" {
			t.Errorf("%s: status %s", obj.GetName(), toYAML(obj.Object["status"]))
		}
	}

	// Steady state: sweeps go on, the statuses stay as written.
	settled := l.status.Writes()
	time.Sleep(2 * time.Second)
	if n := l.status.Writes() - settled; n != 0 {
		t.Errorf("%d status writes in steady state, want none", n)
	}

	res := dc.Resource(reconcile.ResourceGVR).Namespace(ns)
	rgID := "/subscriptions/" + harness.Sub + "/resourceGroups/rg-demo"
	rgWrites := f.WritesOf(rgID)
	before := l.status.Writes()
	rg, err := res.Patch(t.Context(), "rg-demo", types.MergePatchType, []byte(`{"spec":{"body":{"tags":{"owner":"platform"}}}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rg.GetGeneration() != 2 {
		t.Fatalf("generation %d after the edit", rg.GetGeneration())
	}
	waitReady(t, dc, ns, 30*time.Second)
	if n := f.WritesOf(rgID) - rgWrites; n != 1 {
		t.Errorf("the edit was written %d times, want once", n)
	}
	// The edit moves rg-demo's status through at most four phases, each
	// written once (Loading, Pending, Applying, Ready); the other objects'
	// statuses are left alone, so they add nothing.
	if n := l.status.Writes() - before; n > 4 {
		t.Errorf("%d status writes for one edit of one object", n)
	}

	if _, err := res.Patch(t.Context(), "stdemo001", types.MergePatchType, []byte(`{"spec":{"type":"Microsoft.Storage/storageAccounts"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	var st *unstructured.Unstructured
	waitFor(t, func() bool {
		st, err = res.Get(t.Context(), "stdemo001", metav1.GetOptions{})
		return err == nil && condition(st, "Stalled") == "True"
	})
	c := conditionOf(st, "Stalled")
	og, _, _ := unstructured.NestedInt64(st.Object, "status", "observedGeneration")
	if c["reason"] != reconcile.ReasonInvalid || !strings.Contains(c["message"].(string), "spec.type") || !strings.Contains(c["message"].(string), "line ") ||
		og != st.GetGeneration() || condition(st, "Ready") != "False" {
		t.Errorf("the invalid object's status: %s", toYAML(st.Object["status"]))
	}
	got, err := res.Get(t.Context(), "rg-demo", metav1.GetOptions{})
	if err != nil || !readyNow(got) {
		t.Errorf("another object's invalid edit changed rg-demo's status: %v %s", err, toYAML(got.Object["status"]))
	}
}
