package controller

import (
	"context"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
	"github.com/kubectl-azure/kubectl-azure/pkg/state/statetest"
)

// applyPrintedCRD creates the printed document when it is the CRD (the
// clientset's scheme knows no CRDs) and says whether it was.
func applyPrintedCRD(t *testing.T, doc string) bool {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(doc), &obj); err != nil || obj["kind"] != "CustomResourceDefinition" {
		return false
	}
	dc := dynClient(t, statetest.Shared(t))
	crdOnce.Lock()
	defer crdOnce.Unlock()
	if _, err := dc.Resource(crdGVR).Create(t.Context(), &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("the printed CRD: %v", err)
	}
	return true
}

// TestInstalledRBACForTheKubernetesSource: with --source kubernetes://NS
// the printed Role lets the controller list and watch Resource objects
// and patch their status in that namespace, and nothing more there (no
// write of a spec, no other namespace); the source and the status writer
// then run as the ServiceAccount.
func TestInstalledRBACForTheKubernetesSource(t *testing.T) {
	env := statetest.Shared(t)
	dc := installCRD(t, env)
	stateNS, srcNS, instNS := env.NewNamespace(t), env.NewNamespace(t), env.NewNamespace(t)
	const name = "azure-ctl"
	applyInstall(t, env.Clientset, "--name", name, "--install-namespace", instNS,
		"--source", "kubernetes://"+srcNS, "--state-ref", "kubernetes://"+stateNS+"/prod",
		"--client-id", "11111111-2222-3333-4444-555555555555")
	ctx := t.Context()
	user := "system:serviceaccount:" + instNS + ":" + name
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:" + instNS, "system:authenticated"}
	can := func(verb, resource, sub, ns string) bool {
		t.Helper()
		r, err := env.Clientset.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{User: user, Groups: groups, ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: ns, Verb: verb, Group: "azure.kubectl.io", Resource: resource, Subresource: sub}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return r.Status.Allowed
	}
	for _, c := range []struct {
		verb, resource, sub, ns string
		want                    bool
	}{
		{"list", "resources", "", srcNS, true},
		{"watch", "resources", "", srcNS, true},
		{"patch", "resources", "status", srcNS, true},
		{"get", "resources", "", srcNS, false},
		{"update", "resources", "status", srcNS, false},
		{"create", "resources", "", srcNS, false},
		{"update", "resources", "", srcNS, false},
		{"patch", "resources", "", srcNS, true}, // the finalizer
		{"delete", "resources", "", srcNS, false},
		{"list", "resources", "", stateNS, false},
		{"patch", "resources", "status", stateNS, false},
		{"list", "resources", "", "default", false},
	} {
		if got := can(c.verb, c.resource, c.sub, c.ns); got != c.want {
			t.Errorf("can %s %s/%s in %s: %v, want %v", c.verb, c.resource, c.sub, c.ns, got, c.want)
		}
	}
	if can("list", "configmaps", "", srcNS) {
		t.Error("the kubernetes:// source's namespace grants ConfigMaps")
	}
	canCore := func(verb, resource, ns string) bool {
		t.Helper()
		r, err := env.Clientset.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{User: user, Groups: groups, ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: ns, Verb: verb, Resource: resource}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return r.Status.Allowed
	}
	if !canCore("create", "events", srcNS) || canCore("list", "events", srcNS) || canCore("create", "configmaps", srcNS) {
		t.Error("in the source's namespace the ServiceAccount must create Events (on the objects) and nothing else of the core group")
	}

	createObjects(t, dc, srcNS, map[string]map[string]any{"rg": yamlDoc(t, groupYAML("rg-rbac"))})
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig, flags.Impersonate, flags.ImpersonateGroup = &env.Kubeconfig, &user, &groups
	cfg, err := flags.ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	sa := dynamic.NewForConfigOrDie(cfg)
	src := &reconcile.KubeSource{Client: sa, Namespace: srcNS, Dir: t.TempDir(),
		LoadDir: func(context.Context, string) (*manifest.Set, error) { return nil, nil }}
	if err := src.Start(ctx); err != nil {
		t.Fatalf("the kubernetes:// source as the ServiceAccount: %v", err)
	}
	if _, err := sa.Resource(reconcile.ResourceGVR).Namespace(srcNS).Patch(ctx, "rg-rbac", types.MergePatchType,
		[]byte(`{"status":{"state":"in-sync"}}`), metav1.PatchOptions{}, "status"); err != nil {
		t.Fatalf("patching the status as the ServiceAccount: %v", err)
	}
	if _, err := sa.Resource(reconcile.ResourceGVR).Namespace(srcNS).Patch(ctx, "rg-rbac", types.MergePatchType,
		[]byte(`{"metadata":{"finalizers":["`+reconcile.Finalizer+`"]}}`), metav1.PatchOptions{}); err != nil {
		t.Errorf("adding the finalizer as the ServiceAccount: %v", err)
	}
	if err := sa.Resource(reconcile.ResourceGVR).Namespace(srcNS).Delete(ctx, "rg-rbac", metav1.DeleteOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("the ServiceAccount could delete a manifest: %v", err)
	}
}
