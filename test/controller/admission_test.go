package controller

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator/emulatortest"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/state/statetest"
	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// diffProblems are the problems `kubectl azure diff -f` reports for doc
// as a file: the messages the webhook must repeat.
func diffProblems(t *testing.T, doc string) []manifest.Problem {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "doc.yaml"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	lo := manifest.NewLoadOptions()
	lo.Filenames, lo.Subscription = []string{dir}, harness.Sub
	_, err := manifest.Load(t.Context(), lo)
	var ve *manifest.ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) == 0 {
		t.Fatalf("diff accepts the document: %v", err)
	}
	return ve.Problems
}

// TestAdmissionRefusesWhatDiffRefuses: the webhook, served from this
// process and registered with the real kube-apiserver, refuses at create
// an object diff refuses, with diff's message, naming the object; admits a
// valid one (references to other objects resolve); and refuses an update
// of a create-only property (location).
func TestAdmissionRefusesWhatDiffRefuses(t *testing.T) {
	env := statetest.Shared(t)
	dc := installCRD(t, env)
	ns := env.NewNamespace(t)
	// stored-bad was stored before the webhook existed, with a typo diff refuses.
	storedBad := "apiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata:\n  name: stored-bad\n  annotations:\n    azure.kubectl.io/prevent-destroi: \"true\"\nspec:\n  type: Microsoft.Resources/resourceGroups@2021-04-01\n  body:\n    location: westeurope\n"
	createObjects(t, dc, ns, map[string]map[string]any{"rg": yamlDoc(t, emulatortest.Group("rg-adm").YAML()), "stored-bad": yamlDoc(t, storedBad)})
	src := kubeSource(t, dc, ns)
	adm := &reconcile.Admission{Source: src, LoadDir: src.LoadDir, Schemas: schema.Default()}

	addr, certs := serveWebhook(t, adm)
	cs := kubeClient(t, env, nil)
	url := "https://" + addr + reconcile.WebhookPath
	fail, none, timeout := admissionregistrationv1.Fail, admissionregistrationv1.SideEffectClassNone, int32(10)
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "kubectl-azure-" + ns},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         "resources.azure.kubectl.io",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: certs.CA},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"azure.kubectl.io"}, APIVersions: []string{"v1alpha1"}, Resources: []string{"resources"}},
			}},
			NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
			FailurePolicy:           &fail,
			SideEffects:             &none,
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          &timeout,
		}},
	}
	if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(t.Context(), vwc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(context.Background(), vwc.Name, metav1.DeleteOptions{})
	})

	res := dc.Resource(reconcile.ResourceGVR).Namespace(ns)
	bad := "apiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata:\n  name: id-bad\n  annotations:\n    azure.kubectl.io/prevent-destroi: \"true\"\nspec:\n  type: Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31\n  resourceGroup: rg-adm\n  body:\n    location: westeurope\n"
	want := diffProblems(t, bad)
	var createErr error
	deadline := time.Now().Add(20 * time.Second)
	for {
		// The API server takes a moment to start calling a new webhook.
		u := &unstructured.Unstructured{Object: yamlDoc(t, bad)}
		_, createErr = res.Create(t.Context(), u, metav1.CreateOptions{})
		if createErr != nil || time.Now().After(deadline) {
			break
		}
		_ = res.Delete(t.Context(), "id-bad", metav1.DeleteOptions{})
		time.Sleep(200 * time.Millisecond)
	}
	if createErr == nil {
		t.Fatal("the invalid object was admitted")
	}
	msg := createErr.Error()
	for _, p := range want {
		if !strings.Contains(msg, p.Message) || !strings.Contains(msg, p.Path) {
			t.Errorf("the refusal lacks diff's problem %q at %s:\n%s", p.Message, p.Path, msg)
		}
	}
	if !strings.Contains(msg, "kubernetes://"+ns+"/id-bad") || !strings.Contains(msg, "denied the request") {
		t.Errorf("the refusal does not name the object: %s", msg)
	}

	good := emulatortest.Identity("id-good", "rg-adm").YAML()
	if _, err := res.Create(t.Context(), &unstructured.Unstructured{Object: yamlDoc(t, good)}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("a valid object was refused: %v", err)
	}
	_, err := res.Patch(t.Context(), "id-good", types.MergePatchType, []byte(`{"spec":{"body":{"location":"northeurope"}}}`), metav1.PatchOptions{})
	if err == nil || !strings.Contains(err.Error(), "spec.body.location") || !strings.Contains(err.Error(), "create-only") {
		t.Errorf("moving the identity to another region was admitted or refused for another reason: %v", err)
	}
	if _, err := res.Patch(t.Context(), "id-good", types.MergePatchType, []byte(`{"spec":{"body":{"tags":{"team":"platform"}}}}`), metav1.PatchOptions{}); err != nil {
		t.Errorf("a tag edit was refused: %v", err)
	}
	// The controller's own finalizer on an object stored before the
	// webhook: its manifest did not change, so it is not judged again.
	if _, err := res.Patch(t.Context(), "stored-bad", types.MergePatchType, []byte(`{"metadata":{"finalizers":["`+reconcile.Finalizer+`"]}}`), metav1.PatchOptions{}); err != nil {
		t.Errorf("adding the finalizer to an object stored before the webhook was refused: %v", err)
	}
	if _, err := res.Patch(t.Context(), "stored-bad", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Errorf("removing the finalizer was refused: %v", err)
	}
	if _, err := res.Patch(t.Context(), "stored-bad", types.MergePatchType, []byte(`{"metadata":{"annotations":{"`+reconcile.AnnotationDeletionPolicy+`":"remove"}}}`), metav1.PatchOptions{}); err == nil || !strings.Contains(err.Error(), reconcile.AnnotationDeletionPolicy) {
		t.Errorf("an invalid deletion policy was admitted or refused for another reason: %v", err)
	}
}
