package controller

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

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
