package controller

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/state/statetest"
)

// TestSelfSignedWebhookInstall applies `controller install --webhook
// self-signed` as printed and checks, as the controller's ServiceAccount,
// that it may keep its certificate's Secret and its webhook
// configuration's caBundle and nothing more. It then runs the certificate
// keeper as that ServiceAccount with the Deployment's own flags (the test
// cluster has no pod network, so the configuration is pointed at this
// process and the certificate also names 127.0.0.1): an invalid object is
// refused at admission, a valid one admitted. With a 4s certificate life
// the CA rotates within 14s while objects keep being created: none is
// refused.
func TestSelfSignedWebhookInstall(t *testing.T) {
	env := statetest.Shared(t)
	dc := installCRD(t, env)
	srcNS, stateNS, instNS := env.NewNamespace(t), env.NewNamespace(t), env.NewNamespace(t)
	const name = "azure-ctl"
	out := applyInstallOut(t, env.Clientset, "--name", name, "--install-namespace", instNS, "--webhook", "self-signed",
		"--source", "kubernetes://"+srcNS, "--state-ref", "kubernetes://"+stateNS+"/prod", "--client-id", "11111111-2222-3333-4444-555555555555")
	if strings.Contains(out, "cert-manager") {
		t.Error("the self-signed install prints cert-manager objects")
	}
	args := printedArgs(t, out)
	secretRef, vwcName, dns := flagValue(args, "--webhook-self-signed"), flagValue(args, "--webhook-configuration"), flagValues(args, "--webhook-dns-name")
	if secretRef != instNS+"/"+name+"-webhook-tls" || vwcName != name+"-"+instNS || !slices.Contains(dns, name+"-webhook."+instNS+".svc") {
		t.Fatalf("the Deployment keeps %q for %q with names %v", secretRef, vwcName, dns)
	}
	secretNS, secretName, _ := strings.Cut(secretRef, "/")

	user := "system:serviceaccount:" + instNS + ":" + name
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:" + instNS, "system:authenticated"}
	const admreg = "admissionregistration.k8s.io"
	for _, c := range []struct {
		verb, group, resource, ns, name string
		want                            bool
	}{
		{"create", "", "secrets", instNS, "", true},
		{"get", "", "secrets", instNS, secretName, true},
		{"update", "", "secrets", instNS, secretName, true},
		{"get", "", "secrets", instNS, "other", false},
		{"update", "", "secrets", instNS, "other", false},
		{"list", "", "secrets", instNS, "", false},
		{"delete", "", "secrets", instNS, secretName, false},
		{"patch", "", "secrets", instNS, secretName, false},
		{"get", "", "secrets", srcNS, secretName, false},
		{"get", admreg, "validatingwebhookconfigurations", "", vwcName, true},
		{"patch", admreg, "validatingwebhookconfigurations", "", vwcName, true},
		{"get", admreg, "validatingwebhookconfigurations", "", "other", false},
		{"patch", admreg, "validatingwebhookconfigurations", "", "other", false},
		{"update", admreg, "validatingwebhookconfigurations", "", vwcName, false},
		{"delete", admreg, "validatingwebhookconfigurations", "", vwcName, false},
		{"list", admreg, "validatingwebhookconfigurations", "", "", false},
		{"create", admreg, "validatingwebhookconfigurations", "", "", false},
		{"get", admreg, "mutatingwebhookconfigurations", "", vwcName, true},
		{"patch", admreg, "mutatingwebhookconfigurations", "", vwcName, true},
		{"patch", admreg, "mutatingwebhookconfigurations", "", "other", false},
		{"update", admreg, "mutatingwebhookconfigurations", "", vwcName, false},
	} {
		r, err := env.Clientset.AuthorizationV1().SubjectAccessReviews().Create(t.Context(), &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{User: user, Groups: groups, ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: c.ns, Verb: c.verb, Group: c.group, Resource: c.resource, Name: c.name}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status.Allowed != c.want {
			t.Errorf("can %s %s %s/%s: %v, want %v", c.verb, c.resource, c.ns, c.name, r.Status.Allowed, c.want)
		}
	}

	// Serve first, then point the printed configuration at this process.
	mwcName := flagValue(args, "--webhook-mutating-configuration")
	ss := &reconcile.SelfSigned{Client: saClient(t, env, user, groups), Namespace: secretNS, Secret: secretName, WebhookConfig: vwcName, MutatingWebhookConfig: mwcName,
		DNSNames: dns, IPs: []net.IP{net.ParseIP("127.0.0.1")}, Validity: 4 * time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	src := kubeSource(t, dc, srcNS)
	adm := &reconcile.Admission{Source: src, LoadDir: src.LoadDir, Schemas: schema.Default()}
	addr, err := reconcile.ServeWebhookTLS(ctx, "127.0.0.1:0", ss.GetCertificate, adm)
	if err != nil {
		t.Fatal(err)
	}
	toHere := func(path string) []byte {
		p, _ := json.Marshal([]map[string]any{{"op": "remove", "path": "/webhooks/0/clientConfig/service"},
			{"op": "add", "path": "/webhooks/0/clientConfig/url", "value": "https://" + addr + path}})
		return p
	}
	vwcs := env.Clientset.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	if _, err := vwcs.Patch(t.Context(), vwcName, types.JSONPatchType, toHere(reconcile.WebhookPath), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Clientset.AdmissionregistrationV1().MutatingWebhookConfigurations().Patch(t.Context(), mwcName, types.JSONPatchType,
		toHere(reconcile.MutatePath), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := ss.Sync(ctx); err != nil {
		t.Fatalf("the certificate keeper as the ServiceAccount: %v", err)
	}
	sec, err := env.Clientset.CoreV1().Secrets(secretNS).Get(t.Context(), secretName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if vwc, err := vwcs.Get(t.Context(), vwcName, metav1.GetOptions{}); err != nil || string(vwc.Webhooks[0].ClientConfig.CABundle) != string(sec.Data[reconcile.SecretCACert]) {
		t.Fatalf("caBundle is not the Secret's CA: %v", err)
	}
	// A second replica reuses the valid Secret.
	other := &reconcile.SelfSigned{Client: ss.Client, Namespace: secretNS, Secret: secretName, WebhookConfig: vwcName, DNSNames: dns,
		IPs: ss.IPs, Validity: ss.Validity}
	if err := other.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if again, _ := env.Clientset.CoreV1().Secrets(secretNS).Get(t.Context(), secretName, metav1.GetOptions{}); again.ResourceVersion != sec.ResourceVersion {
		t.Error("a second replica rewrote a valid Secret")
	}

	res := dc.Resource(reconcile.ResourceGVR).Namespace(srcNS)
	bad := "apiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata:\n  name: rg-bad\n  annotations:\n    azure.kubectl.io/prevent-destroi: \"true\"\nspec:\n  type: Microsoft.Resources/resourceGroups@2021-04-01\n  body:\n    location: westeurope\n"
	var createErr error
	for deadline := time.Now().Add(20 * time.Second); ; {
		// The API server takes a moment to start calling a new webhook.
		_, createErr = res.Create(t.Context(), &unstructured.Unstructured{Object: yamlDoc(t, bad)}, metav1.CreateOptions{})
		if createErr != nil || time.Now().After(deadline) {
			break
		}
		_ = res.Delete(t.Context(), "rg-bad", metav1.DeleteOptions{})
		time.Sleep(200 * time.Millisecond)
	}
	if createErr == nil || !strings.Contains(createErr.Error(), "denied the request") || !strings.Contains(createErr.Error(), "prevent-destroi") {
		t.Fatalf("the invalid object was not refused by the webhook: %v", createErr)
	}

	firstCA := issuerOf(t, sec.Data["tls.crt"])
	var refused atomic.Value
	go ss.Run(ctx, 200*time.Millisecond, func(f string, a ...any) { refused.Store(fmt.Sprintf(f, a...)) })
	for i := 0; i < 50; i++ {
		u, err := res.Create(t.Context(), &unstructured.Unstructured{Object: yamlDoc(t, groupYAML(fmt.Sprintf("rg-%d", i)))}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("a valid object was refused during rotation (after %d): %v", i, err)
		}
		if !slices.Contains(u.GetFinalizers(), reconcile.Finalizer) {
			t.Fatalf("object %d was stored without the finalizer: the mutating webhook's caBundle does not trust the certificate", i)
		}
		time.Sleep(280 * time.Millisecond)
	}
	if msg, _ := refused.Load().(string); msg != "" {
		t.Errorf("the keeper failed: %s", msg)
	}
	now, err := env.Clientset.CoreV1().Secrets(secretNS).Get(t.Context(), secretName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if now.UID != sec.UID || issuerOf(t, now.Data["tls.crt"]) == firstCA {
		t.Errorf("in 14s of 4s certificates the CA did not rotate in the same Secret (issuer %s)", firstCA)
	}
}

// printedArgs are the printed Deployment's container arguments.
func printedArgs(t *testing.T, out string) []string {
	t.Helper()
	for _, doc := range strings.Split(out, "\n---\n") {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatal(err)
		}
		if m["kind"] != "Deployment" {
			continue
		}
		cs, _, _ := unstructured.NestedSlice(m, "spec", "template", "spec", "containers")
		args, _, _ := unstructured.NestedStringSlice(cs[0].(map[string]any), "args")
		return args
	}
	t.Fatal("no Deployment printed")
	return nil
}

func flagValues(args []string, flag string) []string {
	var out []string
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			out = append(out, v)
		}
	}
	return out
}

func flagValue(args []string, flag string) string {
	if v := flagValues(args, flag); len(v) > 0 {
		return v[0]
	}
	return ""
}

// saClient acts as the ServiceAccount.
func saClient(t *testing.T, env *statetest.Env, user string, groups []string) kubernetes.Interface {
	t.Helper()
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig, flags.Impersonate, flags.ImpersonateGroup = &env.Kubeconfig, &user, &groups
	cfg, err := flags.ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	return kubernetes.NewForConfigOrDie(cfg)
}

func issuerOf(t *testing.T, certPEM []byte) string {
	t.Helper()
	b, _ := pem.Decode(certPEM)
	c, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c.Issuer.CommonName
}
