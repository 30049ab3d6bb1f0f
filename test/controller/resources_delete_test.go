package controller

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator/emulatortest"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
	"github.com/kubectl-azure/kubectl-azure/pkg/state/statetest"
	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

func rgID(name string) string { return "/subscriptions/" + harness.Sub + "/resourceGroups/" + name }

func identityID(group, name string) string {
	return rgID(group) + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/" + name
}

// annotated is doc with the annotations given as key, value pairs.
func annotated(t *testing.T, doc string, kv ...string) map[string]any {
	t.Helper()
	m := yamlDoc(t, doc)
	a := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		a[kv[i]] = kv[i+1]
	}
	m["metadata"].(map[string]any)["annotations"] = a
	return m
}

// deletes is how many DELETEs any client sent to ARM.
func deletes(f *front) int {
	n := 0
	for _, who := range []string{emulatortest.ClientLoop, emulatortest.ClientCLI, other} {
		n += f.Count(who, "DELETE")
	}
	return n
}

// waitGone waits until the object name is gone from the API server.
func waitGone(t *testing.T, dc dynamic.Interface, ns, name string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		o, err := dc.Resource(reconcile.ResourceGVR).Namespace(ns).Get(t.Context(), name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err) || t.Context().Err() != nil:
			return
		case time.Now().After(deadline) && err == nil:
			t.Fatalf("%s is still there after 15 s: %s", name, toYAML(o.Object["status"]))
		case time.Now().After(deadline):
			t.Fatalf("%s: %v", name, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// finalized waits until every object of ns carries the controller's finalizer.
func finalized(t *testing.T, dc dynamic.Interface, ns string) {
	t.Helper()
	waitFor(t, func() bool {
		l, err := dc.Resource(reconcile.ResourceGVR).Namespace(ns).List(t.Context(), metav1.ListOptions{})
		if err != nil {
			return false
		}
		for _, o := range l.Items {
			if !slices.Contains(o.GetFinalizers(), reconcile.Finalizer) {
				return false
			}
		}
		return len(l.Items) > 0
	})
}

func deleteObject(t *testing.T, dc dynamic.Interface, ns, name string) {
	t.Helper()
	if err := dc.Resource(reconcile.ResourceGVR).Namespace(ns).Delete(t.Context(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// hasEvent waits for an Event of reason on the object name whose message
// holds want.
func hasEvent(t *testing.T, env *statetest.Env, ns, name, reason, want string) {
	t.Helper()
	waitFor(t, func() bool {
		evs, err := kubeClient(t, env, nil).CoreV1().Events(ns).List(t.Context(), metav1.ListOptions{})
		if err != nil {
			return false
		}
		for _, ev := range evs.Items {
			if ev.Reason == reason && ev.InvolvedObject.Kind == "Resource" && ev.InvolvedObject.Name == name && strings.Contains(strings.ToLower(ev.Message), strings.ToLower(want)) {
				return true
			}
		}
		return false
	})
}

// TestDeletedObjectIsOrphanedByDefault: every object gets the finalizer;
// deleting one without a deletion policy forgets its resource from state,
// writes nothing to Azure (no DELETE from anyone), the object goes, and
// the loop leaves the resource alone afterwards.
func TestDeletedObjectIsOrphanedByDefault(t *testing.T) {
	f := newFront(t, harness.FastOptions())
	env := statetest.Shared(t)
	dc := installCRD(t, env)
	ns := env.NewNamespace(t)
	createObjects(t, dc, ns, map[string]map[string]any{
		"rg": yamlDoc(t, emulatortest.Group("rg-or").YAML()),
		"id": yamlDoc(t, emulatortest.Identity("id-or", "rg-or").YAML()),
	})
	o := fastLoop()
	o.ReadBudget = 0.5
	l := startObjectLoop(t, f, dc, ns, o)
	waitReady(t, dc, ns, 30*time.Second)
	finalized(t, dc, ns)
	id := identityID("rg-or", "id-or")
	if _, err := l.ctl.Store.Get(t.Context(), id); err != nil {
		t.Fatalf("the identity is not in state after its apply: %v", err)
	}
	before, writes := deletes(f), f.WritesOf(id)

	deleteObject(t, dc, ns, "id-or")
	waitGone(t, dc, ns, "id-or")
	if _, err := l.ctl.Store.Get(t.Context(), id); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("the orphaned resource is still in state: %v", err)
	}
	hasEvent(t, env, ns, "id-or", reconcile.EventOrphaned, id)
	time.Sleep(time.Second) // sweeps go on
	if n := deletes(f) - before; n != 0 {
		t.Errorf("%d DELETEs for an orphaned object, want none", n)
	}
	if n := f.WritesOf(id) - writes; n != 0 {
		t.Errorf("%d writes to the orphaned identity", n)
	}
	if !f.arm.LiveIDs()[strings.ToLower(id)] {
		t.Error("the orphaned identity is gone from Azure")
	}
	if rg, err := dc.Resource(reconcile.ResourceGVR).Namespace(ns).Get(t.Context(), "rg-or", metav1.GetOptions{}); err != nil || !readyNow(rg) {
		t.Errorf("the group's object: %v", err)
	}
}

// TestDeletedObjectWithDeletePolicy: an identity and the lock on it, both
// with deletion policy delete, deleted together: each is deleted once in
// Azure, the lock first (the emulator refuses to delete a locked
// resource), nothing else is deleted, and both objects go.
func TestDeletedObjectWithDeletePolicy(t *testing.T) {
	f := newFront(t, harness.FastOptions())
	env := statetest.Shared(t)
	dc := installCRD(t, env)
	ns := env.NewNamespace(t)
	lock := "apiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata:\n  name: lk-dl\nspec:\n  type: Microsoft.Authorization/locks@2020-05-01\n  scope: ${ref:id-dl}\n  body:\n    properties:\n      level: CanNotDelete\n"
	createObjects(t, dc, ns, map[string]map[string]any{
		"rg":   yamlDoc(t, emulatortest.Group("rg-dl").YAML()),
		"id":   annotated(t, emulatortest.Identity("id-dl", "rg-dl").YAML(), reconcile.AnnotationDeletionPolicy, reconcile.DeletionDelete),
		"lock": annotated(t, lock, reconcile.AnnotationDeletionPolicy, reconcile.DeletionDelete),
	})
	o := fastLoop()
	o.ReadBudget = 0.5
	l := startObjectLoop(t, f, dc, ns, o)
	waitReady(t, dc, ns, 30*time.Second)
	finalized(t, dc, ns)
	id := identityID("rg-dl", "id-dl")
	lockID := id + "/providers/Microsoft.Authorization/locks/lk-dl"
	before, idWrites, lockWrites := deletes(f), f.WritesOf(id), f.WritesOf(lockID)

	deleteObject(t, dc, ns, "id-dl")
	deleteObject(t, dc, ns, "lk-dl")
	waitGone(t, dc, ns, "id-dl")
	waitGone(t, dc, ns, "lk-dl")
	if n := deletes(f) - before; n != 2 {
		t.Errorf("%d DELETEs, want 2 (the lock, then the identity)", n)
	}
	if a, b := f.WritesOf(id)-idWrites, f.WritesOf(lockID)-lockWrites; a != 1 || b != 1 {
		t.Errorf("identity deleted %d times, lock %d times; want once each", a, b)
	}
	live := f.arm.LiveIDs()
	if live[strings.ToLower(id)] || live[strings.ToLower(lockID)] || !live[strings.ToLower(rgID("rg-dl"))] {
		t.Errorf("live after the deletion: identity %v, lock %v, group %v", live[strings.ToLower(id)], live[strings.ToLower(lockID)], live[strings.ToLower(rgID("rg-dl"))])
	}
	for _, x := range []string{id, lockID} {
		if _, err := l.ctl.Store.Get(t.Context(), x); !errors.Is(err, state.ErrNotFound) {
			t.Errorf("%s still in state: %v", x, err)
		}
	}
	hasEvent(t, env, ns, "id-dl", reconcile.EventDeleted, id)
	time.Sleep(time.Second)
	if n := deletes(f) - before; n != 2 {
		t.Errorf("%d DELETEs after the objects went, want still 2", n)
	}
	if live := f.arm.LiveIDs(); live[strings.ToLower(id)] {
		t.Error("the loop created the deleted identity again")
	}
}

// TestDeletionRefusals: prevent-destroy refuses the deletion (Stalled,
// reason DeletionRefused, an Event; the finalizer and the resource stay)
// until the object no longer asks for it; a group whose identity another
// object still declares is refused the same way. No DELETE is sent for a
// refusal.
func TestDeletionRefusals(t *testing.T) {
	f := newFront(t, harness.FastOptions())
	env := statetest.Shared(t)
	dc := installCRD(t, env)
	ns := env.NewNamespace(t)
	createObjects(t, dc, ns, map[string]map[string]any{
		"rg": annotated(t, emulatortest.Group("rg-rf").YAML(), reconcile.AnnotationDeletionPolicy, reconcile.DeletionDelete),
		"id": annotated(t, emulatortest.Identity("id-rf", "rg-rf").YAML(), reconcile.AnnotationDeletionPolicy, reconcile.DeletionDelete,
			"azure.kubectl.io/prevent-destroy", "true"),
	})
	o := fastLoop()
	o.ReadBudget = 0.5
	startObjectLoop(t, f, dc, ns, o)
	waitReady(t, dc, ns, 30*time.Second)
	finalized(t, dc, ns)
	before := deletes(f)
	res := dc.Resource(reconcile.ResourceGVR).Namespace(ns)
	stalledOn := func(name, want string) {
		t.Helper()
		var obj *unstructured.Unstructured
		waitFor(t, func() bool {
			var err error
			obj, err = res.Get(t.Context(), name, metav1.GetOptions{})
			return err == nil && condition(obj, "Stalled") == "True"
		})
		c := conditionOf(obj, "Stalled")
		msg, _ := c["message"].(string)
		if c["reason"] != reconcile.ReasonDeletionRefused || !strings.Contains(strings.ToLower(msg), strings.ToLower(want)) || condition(obj, "Ready") != "False" {
			t.Errorf("%s: status %s", name, toYAML(obj.Object["status"]))
		}
		if !slices.Contains(obj.GetFinalizers(), reconcile.Finalizer) {
			t.Errorf("%s: the finalizer went with a refused deletion", name)
		}
		hasEvent(t, env, ns, name, reconcile.ReasonDeletionRefused, want)
	}

	deleteObject(t, dc, ns, "rg-rf")
	stalledOn("rg-rf", identityID("rg-rf", "id-rf"))
	deleteObject(t, dc, ns, "id-rf")
	stalledOn("id-rf", "prevent-destroy")
	time.Sleep(time.Second)
	if n := deletes(f) - before; n != 0 {
		t.Fatalf("%d DELETEs for refused deletions", n)
	}
	if !f.arm.LiveIDs()[strings.ToLower(identityID("rg-rf", "id-rf"))] {
		t.Fatal("a refused deletion deleted the identity")
	}

	// The object no longer asks for protection: both go, the identity first.
	if _, err := res.Patch(t.Context(), "id-rf", types.MergePatchType, []byte(`{"metadata":{"annotations":{"azure.kubectl.io/prevent-destroy":null}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, dc, ns, "id-rf")
	waitGone(t, dc, ns, "rg-rf")
	if n := deletes(f) - before; n < 1 || n > 2 {
		t.Errorf("%d DELETEs once lifted, want the identity's and the group's", n)
	}
	if live := f.arm.LiveIDs(); live[strings.ToLower(rgID("rg-rf"))] {
		t.Error("the group is still live")
	}
}
