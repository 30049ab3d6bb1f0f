package controller

import (
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator/emulatortest"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
	"github.com/kubectl-azure/kubectl-azure/pkg/state/statetest"
	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// TestDriftShowsOnTheObject: under detect, a tag changed in Azure outside
// this tool makes the object Drifted=True (reason DriftDetected, the path
// named, no value) and Ready=False, and nothing is written back.
func TestDriftShowsOnTheObject(t *testing.T) {
	f := newFront(t, harness.FastOptions())
	env := statetest.Shared(t)
	dc := installCRD(t, env)
	ns := env.NewNamespace(t)
	createObjects(t, dc, ns, map[string]map[string]any{
		"rg": yamlDoc(t, emulatortest.Group("rg-dr").YAML()),
		"id": yamlDoc(t, emulatortest.Identity("id-dr", "rg-dr", "tags: {env: prod}").YAML()),
	})
	o := fastLoop()
	o.ReadBudget = 0.5
	startObjectLoop(t, f, dc, ns, o)
	waitReady(t, dc, ns, 30*time.Second)

	id := "/subscriptions/" + harness.Sub + "/resourceGroups/rg-dr/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-dr"
	writes := f.WritesOf(id)
	req, _ := http.NewRequest(http.MethodPut, f.URL+id+"?api-version=2023-01-31",
		strings.NewReader(`{"location":"westeurope","tags":{"env":"Hand-Edited-Value"}}`))
	req.Header.Set("User-Agent", "portal/1.0")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		t.Fatalf("changing the tag outside: %d", resp.StatusCode)
	}
	res := dc.Resource(reconcile.ResourceGVR).Namespace(ns)
	var obj *unstructured.Unstructured
	waitFor(t, func() bool {
		obj, err = res.Get(t.Context(), "id-dr", metav1.GetOptions{})
		return err == nil && condition(obj, "Drifted") == "True"
	})
	d := conditionOf(obj, "Drifted")
	msg, _ := d["message"].(string)
	if d["reason"] != reconcile.ReasonDriftDetected || !strings.Contains(msg, "tags.env") || strings.Contains(msg, "Hand-Edited-Value") {
		t.Errorf("Drifted: %v", d)
	}
	if condition(obj, "Ready") != "False" {
		t.Errorf("a drifted object is Ready: %s", toYAML(obj.Object["status"]))
	}
	if n := f.WritesOf(id) - writes; n != 1 { // the outside write alone
		t.Errorf("%d writes to the identity after the drift, want only the outside one (detect)", n)
	}
	waitFor(t, func() bool {
		evs, err := kubeClient(t, env, nil).CoreV1().Events(ns).List(t.Context(), metav1.ListOptions{})
		if err != nil {
			return false
		}
		for _, ev := range evs.Items {
			if ev.Reason == reconcile.EventDriftDetected && ev.InvolvedObject.Kind == "Resource" && ev.InvolvedObject.Name == "id-dr" &&
				ev.InvolvedObject.UID == obj.GetUID() && !strings.Contains(ev.Message, "Hand-Edited-Value") {
				return true
			}
		}
		return false
	})
	if rg, err := res.Get(t.Context(), "rg-dr", metav1.GetOptions{}); err != nil || !readyNow(rg) {
		t.Errorf("the group's status moved with its identity's drift: %v", err)
	}
}
