package controller

import (
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

// readerAssignment is a role assignment of Reader on the group to the
// identity, named by a guid over the identity's principalId: a name known
// only once the identity exists.
const readerAssignment = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata:
  name: ra-out
spec:
  type: Microsoft.Authorization/roleAssignments@2022-04-01
  name: ${guid:${ref:id-out.properties.principalId},reader}
  scope: ${ref:rg-out}
  body:
    properties:
      roleDefinitionId: /subscriptions/${subscriptionId}/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7
      principalId: ${ref:id-out.properties.principalId}
      principalType: ServicePrincipal
`

// TestStatusOutputsAndDeferredNames: the identity's status carries its
// provisioningState and the principalId the assignment reads (the live
// value, under the path the reference names); the assignment, whose name is
// known only after the identity exists, is created, observed and Ready
// with its live ID; the steady state writes no status.
func TestStatusOutputsAndDeferredNames(t *testing.T) {
	f := newFront(t, harness.FastOptions())
	env := statetest.Shared(t)
	dc := installCRD(t, env)
	ns := env.NewNamespace(t)
	createObjects(t, dc, ns, map[string]map[string]any{
		"rg": yamlDoc(t, emulatortest.Group("rg-out").YAML()),
		"id": yamlDoc(t, emulatortest.Identity("id-out", "rg-out").YAML()),
		"ra": yamlDoc(t, readerAssignment),
	})
	o := fastLoop()
	o.ReadBudget = 0.5
	l := startObjectLoop(t, f, dc, ns, o)
	waitReady(t, dc, ns, 60*time.Second)

	var live map[string]any
	for _, r := range f.arm.Live() {
		if strings.EqualFold(r.ID, identityID("rg-out", "id-out")) {
			live = r.Body
		}
	}
	principal, _, _ := unstructured.NestedString(live, "properties", "principalId")
	if principal == "" {
		t.Fatalf("the emulated identity has no principalId: %v", live)
	}
	res := dc.Resource(reconcile.ResourceGVR).Namespace(ns)
	var id *unstructured.Unstructured
	waitFor(t, func() bool {
		var err error
		id, err = res.Get(t.Context(), "id-out", metav1.GetOptions{})
		got, _, _ := unstructured.NestedString(id.Object, "status", "outputs", "properties.principalId")
		return err == nil && got == principal
	})
	if ps, _, _ := unstructured.NestedString(id.Object, "status", "provisioningState"); ps != "Succeeded" {
		t.Errorf("identity provisioningState %q: %s", ps, toYAML(id.Object["status"]))
	}
	ra, err := res.Get(t.Context(), "ra-out", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	raID, _, _ := unstructured.NestedString(ra.Object, "status", "id")
	if !strings.Contains(strings.ToLower(raID), "/providers/microsoft.authorization/roleassignments/") || !f.arm.LiveIDs()[strings.ToLower(raID)] {
		t.Errorf("the assignment's status.id %q is not a live role assignment", raID)
	}
	if n := len(l.ctl.Snapshot().Resources); n != 3 {
		t.Errorf("the loop observes %d resources, want 3 (the assignment with its deferred name too)", n)
	}
	settled := l.status.Writes()
	time.Sleep(2 * time.Second)
	if n := l.status.Writes() - settled; n != 0 {
		t.Errorf("%d status writes in steady state", n)
	}
}
