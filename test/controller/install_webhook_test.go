package controller

import (
	"bytes"
	"slices"
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
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
	"github.com/kubectl-azure/kubectl-azure/pkg/state/statetest"
)

// TestPrintedWebhookInstall: `controller install --webhook cert-manager`
// prints a Service, a ValidatingWebhookConfiguration for the source
// namespace's Resource objects and cert-manager's Issuer and Certificate,
// wired to one another and to the Deployment (the Certificate's Secret is
// mounted where --webhook-cert-dir reads; the CA is injected from that
// Certificate); the Kubernetes objects pass a server-side dry run (the
// test cluster has no cert-manager, so its two objects are checked by
// their wiring only).
func TestPrintedWebhookInstall(t *testing.T) {
	env := statetest.Shared(t)
	installCRD(t, env)
	srcNS, stateNS, instNS := env.NewNamespace(t), env.NewNamespace(t), env.NewNamespace(t)
	var out, errOut bytes.Buffer
	if code := cli.Main([]string{"controller", "install", "-o", "yaml", "--install-namespace", instNS, "--webhook", "cert-manager",
		"--source", "kubernetes://" + srcNS, "--state-ref", "kubernetes://" + stateNS + "/prod", "--client-id", "11111111-2222-3333-4444-555555555555"},
		genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}); code != 0 {
		t.Fatalf("install: exit %d\n%s", code, errOut.String())
	}
	cfg, err := env.ConfigFlags().ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	dc := dynClient(t, env)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(discovery.NewDiscoveryClientForConfigOrDie(cfg)))
	byKind := map[string][]*unstructured.Unstructured{}
	for _, doc := range strings.Split(out.String(), "\n---\n") {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: m}
		byKind[u.GetKind()] = append(byKind[u.GetKind()], u)
		switch u.GetKind() {
		case "CustomResourceDefinition", "Namespace", "Issuer", "Certificate":
			continue
		}
		gvk := u.GroupVersionKind()
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Fatalf("%s: %v", gvk, err)
		}
		if _, err := dc.Resource(mapping.Resource).Namespace(u.GetNamespace()).Create(t.Context(), u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Errorf("server-side dry run of the printed %s %s/%s: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err)
		}
	}
	if len(byKind["ValidatingWebhookConfiguration"]) != 1 || len(byKind["Certificate"]) != 1 || len(byKind["Issuer"]) != 1 || len(byKind["Deployment"]) != 1 {
		t.Fatalf("printed kinds: %v", keys(byKind))
	}
	vwc, cert, dep := byKind["ValidatingWebhookConfiguration"][0], byKind["Certificate"][0], byKind["Deployment"][0]
	if m := byKind["MutatingWebhookConfiguration"]; len(m) != 1 || m[0].GetAnnotations()["cert-manager.io/inject-ca-from"] != cert.GetNamespace()+"/"+cert.GetName() {
		t.Errorf("the finalizer webhook is not printed with the Certificate's CA injected: %v", m)
	}
	hooks, _, _ := unstructured.NestedSlice(vwc.Object, "webhooks")
	hook := hooks[0].(map[string]any)
	svcName, _, _ := unstructured.NestedString(hook, "clientConfig", "service", "name")
	svcNS, _, _ := unstructured.NestedString(hook, "clientConfig", "service", "namespace")
	path, _, _ := unstructured.NestedString(hook, "clientConfig", "service", "path")
	sel, _, _ := unstructured.NestedStringMap(hook, "namespaceSelector", "matchLabels")
	var svc *unstructured.Unstructured
	for _, s := range byKind["Service"] {
		if s.GetName() == svcName && s.GetNamespace() == svcNS {
			svc = s
		}
	}
	if svc == nil || path != reconcile.WebhookPath || sel["kubernetes.io/metadata.name"] != srcNS || svcNS != instNS {
		t.Errorf("the webhook calls %s/%s%s for namespaces %v; printed Services %d", svcNS, svcName, path, sel, len(byKind["Service"]))
	}
	if got := vwc.GetAnnotations()["cert-manager.io/inject-ca-from"]; got != cert.GetNamespace()+"/"+cert.GetName() {
		t.Errorf("the CA is injected from %q, the Certificate is %s/%s", got, cert.GetNamespace(), cert.GetName())
	}
	secretName, _, _ := unstructured.NestedString(cert.Object, "spec", "secretName")
	dns, _, _ := unstructured.NestedStringSlice(cert.Object, "spec", "dnsNames")
	if !slices.Contains(dns, svcName+"."+svcNS+".svc") {
		t.Errorf("the certificate's names %v do not name the Service", dns)
	}
	pod, _, _ := unstructured.NestedMap(dep.Object, "spec", "template", "spec")
	vols, _, _ := unstructured.NestedSlice(pod, "volumes")
	mounted := ""
	for _, v := range vols {
		if s, _, _ := unstructured.NestedString(v.(map[string]any), "secret", "secretName"); s == secretName {
			mounted = v.(map[string]any)["name"].(string)
		}
	}
	containers, _, _ := unstructured.NestedSlice(pod, "containers")
	c := containers[0].(map[string]any)
	args, _, _ := unstructured.NestedStringSlice(c, "args")
	mounts, _, _ := unstructured.NestedSlice(c, "volumeMounts")
	dir := ""
	for _, m := range mounts {
		if m.(map[string]any)["name"] == mounted {
			dir = m.(map[string]any)["mountPath"].(string)
		}
	}
	if mounted == "" || dir == "" || !slices.Contains(args, "--webhook-cert-dir="+dir) || !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--webhook-addr=") }) {
		t.Errorf("the Deployment does not serve the webhook with the Certificate's Secret: volume %q at %q, args %v", mounted, dir, args)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
