package controller

import (
	"bytes"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-azure/kubectl-azure/pkg/cli"
	"github.com/kubectl-azure/kubectl-azure/pkg/state/statetest"
)

// TestPrintedInstallPassesServerSideDryRun: every object `controller
// install` prints for a kubernetes:// source is accepted by the real
// kube-apiserver's validation (server-side dry run), after the CRD and
// the Namespaces it prints exist.
func TestPrintedInstallPassesServerSideDryRun(t *testing.T) {
	env := statetest.Shared(t)
	installCRD(t, env)
	srcNS, stateNS, instNS := env.NewNamespace(t), env.NewNamespace(t), env.NewNamespace(t)
	var out, errOut bytes.Buffer
	if code := cli.Main([]string{"controller", "install", "-o", "yaml", "--install-namespace", instNS,
		"--source", "kubernetes://" + srcNS, "--state-ref", "kubernetes://" + stateNS + "/prod",
		"--client-id", "11111111-2222-3333-4444-555555555555", "--subscription", "00000000-0000-0000-0000-0000000000aa"},
		genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}); code != 0 {
		t.Fatalf("install: exit %d\n%s", code, errOut.String())
	}
	cfg, err := env.ConfigFlags().ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	dc := dynClient(t, env)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(discovery.NewDiscoveryClientForConfigOrDie(cfg)))
	kinds := map[string]int{}
	for _, doc := range strings.Split(out.String(), "\n---\n") {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: m}
		kinds[u.GetKind()]++
		switch u.GetKind() {
		case "CustomResourceDefinition", "Namespace":
			continue // exist already: the namespaced objects need them
		}
		gvk := u.GroupVersionKind()
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Fatalf("%s: %v", gvk, err)
		}
		_, err = dc.Resource(mapping.Resource).Namespace(u.GetNamespace()).Create(t.Context(), u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Errorf("server-side dry run of the printed %s %s/%s: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err)
		}
	}
	if kinds["CustomResourceDefinition"] != 1 || kinds["Deployment"] != 1 || kinds["Role"] == 0 || kinds["RoleBinding"] != kinds["Role"] {
		t.Errorf("printed kinds %v", kinds)
	}
}
