//go:build unix

package controller

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
	"github.com/kubectl-azure/kubectl-azure/pkg/state/statetest"
)

// TestFinalizerAddedAtAdmission: with the mutating webhook registered on
// the real kube-apiserver, a Resource object is stored with the
// controller's finalizer (finalizerWebhook fails unless a probe is), one
// that names another finalizer keeps it too, and an object of another
// namespace is left alone.
func TestFinalizerAddedAtAdmission(t *testing.T) {
	env := statetest.Shared(t)
	dc := installCRD(t, env)
	ns, other := env.NewNamespace(t), env.NewNamespace(t)
	finalizerWebhook(t, env, ns)
	doc := yamlDoc(t, groupYAML("rg-other-finalizer"))
	u := &unstructured.Unstructured{Object: doc}
	u.SetFinalizers([]string{"example.com/keep"})
	got, err := dc.Resource(reconcile.ResourceGVR).Namespace(ns).Create(t.Context(), u, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fs := got.GetFinalizers(); !slices.Equal(fs, []string{"example.com/keep", reconcile.Finalizer}) {
		t.Errorf("stored finalizers %v", fs)
	}
	got, err = dc.Resource(reconcile.ResourceGVR).Namespace(other).Create(t.Context(), &unstructured.Unstructured{Object: yamlDoc(t, groupYAML("rg-elsewhere"))}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.GetFinalizers()) != 0 {
		t.Errorf("an object of another namespace got %v", got.GetFinalizers())
	}
	// Clean up the object with a foreign finalizer.
	got, _ = dc.Resource(reconcile.ResourceGVR).Namespace(ns).Get(t.Context(), "rg-other-finalizer", metav1.GetOptions{})
	got.SetFinalizers(nil)
	_, _ = dc.Resource(reconcile.ResourceGVR).Namespace(ns).Update(t.Context(), got, metav1.UpdateOptions{})
}
