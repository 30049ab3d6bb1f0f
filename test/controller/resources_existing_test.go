package controller

import (
	"os"
	"path/filepath"
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

// existingIdentity declares another team's identity, which this set only
// reads.
func existingIdentity(object, name string) string {
	return `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata:
  name: ` + object + `
  annotations: {azure.kubectl.io/existing: "true"}
spec:
  type: Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31
  name: ` + name + `
  resourceGroup: rg-shx
`
}

// readingGroup is a group this set manages, tagged with the existing
// identity's principalId.
const readingGroup = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: rg-app-ex}
spec:
  type: Microsoft.Resources/resourceGroups@2021-04-01
  body:
    location: westeurope
    tags:
      principal: ${ref:id-shx.properties.principalId}
`

// TestExistingObjectGetsStatus: an object annotated existing gets a status
// of its own on the real kube-apiserver: Ready=True (Exists) once read,
// with its ID, provisioningState and the value the set reads from it; one
// naming a resource that is absent is Ready=False and Stalled (NotFound)
// with the fix in its message. The loop never writes either.
func TestExistingObjectGetsStatus(t *testing.T) {
	f := newFront(t, harness.FastOptions())
	// Another team's group and identity, applied with their own state.
	other := t.TempDir()
	for name, doc := range map[string]string{"rg.yaml": emulatortest.Group("rg-shx").YAML(), "id.yaml": emulatortest.Identity("id-shx", "rg-shx").YAML()} {
		if err := os.WriteFile(filepath.Join(other, name), []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	applied(t, f, other)
	idID := identityID("rg-shx", "id-shx")

	env := statetest.Shared(t)
	dc := installCRD(t, env)
	ns := env.NewNamespace(t)
	createObjects(t, dc, ns, map[string]map[string]any{
		"id": yamlDoc(t, existingIdentity("id-shx", "id-shx")),
		"rg": yamlDoc(t, readingGroup),
	})
	o := fastLoop()
	l := startObjectLoop(t, f, dc, ns, o)
	waitReady(t, dc, ns, 60*time.Second)

	var principal string
	for _, r := range f.arm.Live() {
		if strings.EqualFold(r.ID, idID) {
			principal, _, _ = unstructured.NestedString(r.Body, "properties", "principalId")
		}
	}
	res := dc.Resource(reconcile.ResourceGVR).Namespace(ns)
	obj, err := res.Get(t.Context(), "id-shx", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := obj.Object["status"]
	ready := conditionOf(obj, reconcile.ConditionReady)
	if ready["status"] != "True" || ready["reason"] != reconcile.ReasonExists {
		t.Errorf("existing object's Ready %v, want True (%s)\n%s", ready, reconcile.ReasonExists, toYAML(st))
	}
	if id, _, _ := unstructured.NestedString(obj.Object, "status", "id"); !strings.EqualFold(id, idID) {
		t.Errorf("status.id %q, want %s", id, idID)
	}
	if got, _, _ := unstructured.NestedString(obj.Object, "status", "outputs", "properties.principalId"); principal == "" || got != principal {
		t.Errorf("status.outputs principalId %q, want the live %q\n%s", got, principal, toYAML(st))
	}
	if ps, _, _ := unstructured.NestedString(obj.Object, "status", "provisioningState"); ps != "Succeeded" {
		t.Errorf("provisioningState %q", ps)
	}
	if g, _, _ := unstructured.NestedInt64(obj.Object, "status", "observedGeneration"); g != obj.GetGeneration() {
		t.Errorf("observedGeneration %d, generation %d", g, obj.GetGeneration())
	}

	// One naming an identity that is not there: Stalled, with the fix.
	createObjects(t, dc, ns, map[string]map[string]any{"missing": yamlDoc(t, existingIdentity("id-missing", "id-nope"))})
	var missing *unstructured.Unstructured
	waitFor(t, func() bool {
		missing, err = res.Get(t.Context(), "id-missing", metav1.GetOptions{})
		return err == nil && conditionOf(missing, reconcile.ConditionReady)["reason"] == reconcile.ReasonNotFound
	})
	ready, stalled := conditionOf(missing, reconcile.ConditionReady), conditionOf(missing, reconcile.ConditionStalled)
	if ready["status"] != "False" || stalled["status"] != "True" || stalled["reason"] != reconcile.ReasonNotFound ||
		!strings.Contains(stalled["message"].(string), "does not exist in Azure") || !strings.Contains(stalled["message"].(string), "create it in Azure, or remove the annotation") {
		t.Errorf("absent existing resource: Ready %v, Stalled %v", ready, stalled)
	}
	if n := f.loopWritesOf(idID); n != 0 {
		t.Errorf("the loop wrote the existing identity %d times", n)
	}
	if n := f.WritesOf(identityID("rg-shx", "id-nope")); n != 0 {
		t.Errorf("the loop wrote the absent identity %d times", n)
	}
	_ = l
}
