package cli

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"
)

const testClientID = "11111111-2222-3333-4444-555555555555"

// install runs `controller install` with args and returns its exit code,
// standard output and standard error.
func install(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	g := DefaultGlobalOptions()
	root := newRootCommand(g, streams)
	root.AddCommand(newControllerCommand(g, streams))
	var global []string
	for len(args) > 0 && args[0] != "--" { // global flags come before --
		global, args = append(global, args[0]), args[1:]
	}
	if len(args) > 0 {
		args = args[1:]
	} else {
		args, global = global, nil
	}
	root.SetArgs(append(append(global, "controller", "install"), args...))
	err := root.ExecuteContext(t.Context())
	if err != nil { // Main prints it; here it joins standard error
		errOut.WriteString(err.Error())
	}
	return exitCode(err), out.String(), errOut.String()
}

// installDocs parses the printed stream into objects.
func installDocs(t *testing.T, out string) []map[string]any {
	t.Helper()
	var docs []map[string]any
	for _, doc := range strings.Split(out, "\n---\n") {
		var obj map[string]any
		if err := yaml.UnmarshalStrict([]byte(doc), &obj); err != nil {
			t.Fatalf("not YAML: %v\n%s", err, doc)
		}
		docs = append(docs, obj)
	}
	return docs
}

func dig(obj any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := obj.(map[string]any)
			obj = m[k]
		case int:
			l, _ := obj.([]any)
			if k >= len(l) {
				return nil
			}
			obj = l[k]
		}
	}
	return obj
}

func ofKind(docs []map[string]any, kind string) []map[string]any {
	var out []map[string]any
	for _, d := range docs {
		if d["kind"] == kind {
			out = append(out, d)
		}
	}
	return out
}

var goodInstall = []string{"--source", "configmap://apps?selector=app=infra", "--state-ref", "kubernetes://infra/prod", "--client-id", testClientID, "-o", "yaml"}

// TestControllerInstallRefusesBadFlagsWithExit2: every flag is checked
// before anything is printed; a newline cannot add a field of its own.
func TestControllerInstallRefusesBadFlagsWithExit2(t *testing.T) {
	with := func(flag, value string) []string {
		args := slices.Clone(goodInstall)
		if i := slices.Index(args, flag); i >= 0 {
			args[i+1] = value
			return args
		}
		return append(args, flag, value)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{with("--name", "ctl\nnamespace: kube-system"), "--name"},
		{with("--install-namespace", "azure\n  namespace: kube-system"), "--install-namespace"},
		{with("--install-namespace", "Kube_System"), "--install-namespace"},
		{with("--name", "9lives"), "--name"},
		{with("--metrics-addr", "127.0.0.1:0"), "1 to 65535"},
		{with("--metrics-addr", "127.0.0.1:70000"), "1 to 65535"},
		{with("--metrics-addr", "8080"), "HOST:PORT"},
		{with("--health-port", "0"), "1 to 65535"},
		{with("--health-port", "8080"), "two ports"},
		{with("--azure-auth", "magic"), "use one of workload-identity, managed-identity, env"},
		{with("--azure-auth", "env"), "--credentials-secret"},
		{with("--client-id", "not-a-guid"), "--client-id"},
		{with("--source", "configmap://apps"), "has no selector"},
		{with("--source", "configmap://apps?selector=app+in+(a"), "selector"},
		{with("--source", "configmap://Apps_1?selector=a=b"), "namespace"},
		{with("--source", "dir://manifests/../etc"), "clean absolute path"},
		{with("--state-ref", "kubernetes://infra"), "--state-ref"},
		{with("--state-ref", "kubernetes://infra/Prod\nx"), "--state-ref"},
		{with("--image", "img:1\n    securityContext: {privileged: true}"), "--image"},
		{with("--secret", "bad/na me"), "--secret"},
		{with("--secret", "infra/azstate-prod-key"), "secret-hashing key"},
		{with("--allow-env", "AZURE_CLIENT_SECRET"), "own Azure credential"},
		{with("--leader-elect-namespace", "a\nb"), "--leader-elect-namespace"},
		{with("--replicas", "0"), "--replicas"},
	} {
		code, out, errOut := install(t, tc.args...)
		if code != ExitValidation || !strings.Contains(errOut, tc.want) || out != "" {
			t.Errorf("%q: exit %d, want 2 and %q on stderr and nothing printed\nstdout: %s\nstderr: %s", tc.args, code, tc.want, out, errOut)
		}
	}
	for flag, value := range map[string]string{"--subscription": "nope", "--set": "prod\nx"} {
		if code, _, errOut := install(t, append([]string{flag, value, "--"}, goodInstall...)...); code != ExitValidation || !strings.Contains(errOut, flag) {
			t.Errorf("%s %q: exit %d\n%s", flag, value, code, errOut)
		}
	}
}

// TestControllerInstallRunsAsPrinted: the install holds the Namespaces it
// uses, passes --subscription through, and with workload identity
// annotates the ServiceAccount and labels the pod for the webhook.
func TestControllerInstallRunsAsPrinted(t *testing.T) {
	const sub = "00000000-0000-0000-0000-0000000000aa"
	code, out, errOut := install(t, append([]string{"--subscription", sub, "--"}, goodInstall...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	docs := installDocs(t, out)
	var nss []string
	for _, d := range ofKind(docs, "Namespace") {
		nss = append(nss, dig(d, "metadata", "name").(string))
	}
	if got := strings.Join(nss, ","); got != "apps,infra,kubectl-azure" {
		t.Errorf("Namespaces %s, want the source's, the state's and the install's", got)
	}
	// The CRD is cluster-wide and names no namespace; the Namespaces follow.
	if docs[0]["kind"] != "CustomResourceDefinition" || docs[1]["kind"] != "Namespace" {
		t.Errorf("the CRD, then the Namespaces must come first, got %v, %v first", docs[0]["kind"], docs[1]["kind"])
	}
	sa := ofKind(docs, "ServiceAccount")
	if len(sa) != 1 || dig(sa[0], "metadata", "annotations", "azure.workload.identity/client-id") != testClientID {
		t.Errorf("ServiceAccount without the workload identity client ID: %v", sa)
	}
	dep := ofKind(docs, "Deployment")[0]
	if dig(dep, "spec", "template", "metadata", "labels", "azure.workload.identity/use") != "true" {
		t.Errorf("the pod is not labelled for workload identity: %v", dig(dep, "spec", "template", "metadata", "labels"))
	}
	args := dig(dep, "spec", "template", "spec", "containers", 0, "args").([]any)
	if !slices.Contains(args, any("--subscription="+sub)) || !slices.Contains(args, any("--auth=workload-identity")) {
		t.Errorf("args %v lack --subscription or --auth", args)
	}

	// Managed identity: no annotation, no label, no --client-id.
	mi := []string{"--source", "dir:///manifests", "--state-ref", "kubernetes://infra/prod", "--azure-auth", "managed-identity", "-o", "yaml"}
	code, out, errOut = install(t, mi...)
	if code != 0 {
		t.Fatalf("managed identity: exit %d\n%s", code, errOut)
	}
	if strings.Contains(out, "azure.workload.identity") {
		t.Errorf("managed identity printed workload identity's markers:\n%s", out)
	}
}

// TestControllerInstallKeepsMetricsOnLoopback: /metrics has no
// authentication, so the install binds it to the pod's loopback, says so,
// and probes a health port instead; an address beyond loopback warns and
// gets a Service.
func TestControllerInstallKeepsMetricsOnLoopback(t *testing.T) {
	code, out, errOut := install(t, goodInstall...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	docs := installDocs(t, out)
	c := dig(ofKind(docs, "Deployment")[0], "spec", "template", "spec", "containers", 0)
	args := dig(c, "args").([]any)
	if !slices.Contains(args, any("--metrics-addr=127.0.0.1:8080")) || !slices.Contains(args, any("--health-addr=:8081")) {
		t.Errorf("args %v: want metrics on loopback and health on :8081", args)
	}
	if dig(c, "readinessProbe", "httpGet", "port") != "health" || dig(c, "ports", 0, "containerPort") != float64(8081) || dig(c, "ports", 1) != nil {
		t.Errorf("probes or ports: %v %v", dig(c, "readinessProbe"), dig(c, "ports"))
	}
	if len(ofKind(docs, "Service")) != 0 || !strings.Contains(errOut, "127.0.0.1:8080 inside the pod only") {
		t.Errorf("loopback metrics: a Service printed, or the output does not say so:\n%s", errOut)
	}

	code, out, errOut = install(t, append(slices.Clone(goodInstall), "--metrics-addr", "0.0.0.0:9090")...)
	if code != 0 || !strings.Contains(errOut, "warning: --metrics-addr 0.0.0.0:9090") {
		t.Fatalf("exit %d, want a warning\n%s", code, errOut)
	}
	svc := ofKind(installDocs(t, out), "Service")
	if len(svc) != 1 || dig(svc[0], "spec", "ports", 0, "port") != float64(9090) {
		t.Errorf("exposed metrics: Service %v", svc)
	}
}

// TestControllerInstallRolesAreLeastPrivilege: a Role in each namespace
// the controller works in, Secrets only by name, the source read-only.
func TestControllerInstallRolesAreLeastPrivilege(t *testing.T) {
	code, out, errOut := install(t, append(slices.Clone(goodInstall), "--secret", "apps/db", "--secret", "team/api-key", "--leader-elect-namespace", "leases")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	docs := installDocs(t, out)
	rules := map[string]string{}
	for _, r := range ofKind(docs, "Role") {
		b, _ := yaml.Marshal(r["rules"])
		rules[dig(r, "metadata", "namespace").(string)] = string(b)
	}
	bindings := 0
	for _, b := range ofKind(docs, "RoleBinding") {
		if dig(b, "subjects", 0, "namespace") == "kubectl-azure" && dig(b, "subjects", 0, "name") == "kubectl-azure-controller" {
			bindings++
		}
	}
	if len(rules) != 4 || bindings != 4 {
		t.Fatalf("want a Role and a RoleBinding in apps, infra, leases and team; got Roles in %v, %d bindings", rules, bindings)
	}
	if _, ok := rules["kubectl-azure"]; ok {
		t.Errorf("a Role in the install namespace, where the controller does nothing")
	}
	for ns, r := range rules {
		if strings.Contains(r, "secrets") && !strings.Contains(r, "resourceNames") {
			t.Errorf("%s: Secrets granted without names:\n%s", ns, r)
		}
	}
	if !strings.Contains(rules["infra"], "azstate-prod-key") || !strings.Contains(rules["infra"], "azstate-prod-lock") {
		t.Errorf("state namespace: no key Secret or lock Lease by name:\n%s", rules["infra"])
	}
	if !strings.Contains(rules["leases"], "kubectl-azure-controller-prod") {
		t.Errorf("leases namespace: no leader Lease:\n%s", rules["leases"])
	}
	for _, w := range []string{"create", "update", "delete", "get"} {
		if strings.Contains(rules["apps"], "- "+w+"\n") && !strings.Contains(rules["apps"], "- db") {
			t.Errorf("the source namespace grants %s:\n%s", w, rules["apps"])
		}
	}
	if !strings.Contains(rules["team"], "api-key") {
		t.Errorf("team: %s", rules["team"])
	}
}

// TestControllerInstallArgsAreTheControllers: every argument the
// Deployment passes is a flag of the controller command, so the pod
// starts as printed.
func TestControllerInstallArgsAreTheControllers(t *testing.T) {
	code, out, errOut := install(t, append([]string{"--subscription", "00000000-0000-0000-0000-0000000000aa", "--set", "prod", "--"},
		append(slices.Clone(goodInstall), "--secret", "apps/db", "--allow-env", "OWNER", "--leader-elect-namespace", "leases")...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	raw := dig(ofKind(installDocs(t, out), "Deployment")[0], "spec", "template", "spec", "containers", 0, "args").([]any)
	var args []string
	for _, a := range raw {
		args = append(args, a.(string))
	}
	g := DefaultGlobalOptions()
	streams := genericiooptions.NewTestIOStreamsDiscard()
	root := newRootCommand(g, streams)
	root.AddCommand(newControllerCommand(g, streams))
	cmd, rest, err := root.Find(args)
	if err != nil || cmd.Name() != "controller" {
		t.Fatalf("%v: %v %v", args, cmd.Name(), err)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Fatalf("the controller does not take %v: %v", args, err)
	}
	for _, f := range []string{"source", "secret", "allow-env", "health-addr", "metrics-addr", "leader-elect-namespace", "subscription", "set", "auth", "state"} {
		if !cmd.Flags().Changed(f) {
			t.Errorf("--%s not passed: %v", f, args)
		}
	}
	if len(cmd.Flags().Args()) != 0 {
		t.Errorf("arguments left over: %v", cmd.Flags().Args())
	}
}

// TestControllerInstallSelfSignedWebhook: --webhook self-signed prints no
// cert-manager object; the controller is told which Secret to keep, for
// which configuration and names (flags it takes); and it may get and
// update that Secret alone (create cannot be named) and get and patch
// that one webhook configuration, in a ClusterRole bound to its
// ServiceAccount.
func TestControllerInstallSelfSignedWebhook(t *testing.T) {
	code, out, errOut := install(t, "--source", "kubernetes://apps", "--state-ref", "kubernetes://infra/prod", "--client-id", testClientID, "-o", "yaml", "--webhook", "self-signed")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	docs := installDocs(t, out)
	if len(ofKind(docs, "Issuer")) != 0 || len(ofKind(docs, "Certificate")) != 0 || strings.Contains(out, "cert-manager") {
		t.Errorf("cert-manager objects printed:\n%s", out)
	}
	vwcs := ofKind(docs, "ValidatingWebhookConfiguration")
	if len(vwcs) != 1 || dig(vwcs[0], "metadata", "name") != "kubectl-azure-controller-kubectl-azure" {
		t.Fatalf("webhook configurations: %v", vwcs)
	}
	mwcs := ofKind(docs, "MutatingWebhookConfiguration")
	if len(mwcs) != 1 || dig(mwcs[0], "webhooks", 0, "failurePolicy") != "Ignore" || dig(mwcs[0], "webhooks", 0, "clientConfig", "service", "path") != "/mutate-resources" {
		t.Errorf("the finalizer webhook: %v", mwcs)
	}
	raw := dig(ofKind(docs, "Deployment")[0], "spec", "template", "spec", "containers", 0, "args").([]any)
	var args []string
	for _, a := range raw {
		args = append(args, a.(string))
	}
	for _, want := range []string{"--webhook-addr=:9443", "--webhook-mutating-configuration=kubectl-azure-controller-kubectl-azure", "--webhook-self-signed=kubectl-azure/kubectl-azure-controller-webhook-tls",
		"--webhook-configuration=kubectl-azure-controller-kubectl-azure", "--webhook-dns-name=kubectl-azure-controller-webhook.kubectl-azure.svc"} {
		if !slices.Contains(args, want) {
			t.Errorf("the Deployment lacks %s: %v", want, args)
		}
	}
	if slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--webhook-cert-dir") }) || strings.Contains(out, "webhook-tls\n        secret") {
		t.Errorf("the self-signed Deployment mounts a certificate: %v", args)
	}
	g := DefaultGlobalOptions()
	streams := genericiooptions.NewTestIOStreamsDiscard()
	root := newRootCommand(g, streams)
	root.AddCommand(newControllerCommand(g, streams))
	cmd, rest, err := root.Find(args)
	if err != nil || cmd.ParseFlags(rest) != nil {
		t.Fatalf("the controller does not take %v: %v", args, err)
	}

	var roles []string
	for _, r := range ofKind(docs, "Role") {
		if dig(r, "metadata", "namespace") == "kubectl-azure" {
			b, _ := yaml.Marshal(r["rules"])
			roles = append(roles, string(b))
		}
	}
	wantRole := "- apiGroups:\n  - \"\"\n  resources:\n  - secrets\n  verbs:\n  - create\n- apiGroups:\n  - \"\"\n  resourceNames:\n  - kubectl-azure-controller-webhook-tls\n  resources:\n  - secrets\n  verbs:\n  - get\n  - update\n"
	if len(roles) != 1 || roles[0] != wantRole {
		t.Errorf("the install namespace's Role:\n%v\nwant\n%s", roles, wantRole)
	}
	crs, crbs := ofKind(docs, "ClusterRole"), ofKind(docs, "ClusterRoleBinding")
	if len(crs) != 1 || len(crbs) != 1 {
		t.Fatalf("%d ClusterRoles, %d ClusterRoleBindings; want 1 each", len(crs), len(crbs))
	}
	b, _ := yaml.Marshal(crs[0]["rules"])
	wantCR := "- apiGroups:\n  - admissionregistration.k8s.io\n  resourceNames:\n  - kubectl-azure-controller-kubectl-azure\n  resources:\n  - mutatingwebhookconfigurations\n  verbs:\n  - get\n  - patch\n" +
		"- apiGroups:\n  - admissionregistration.k8s.io\n  resourceNames:\n  - kubectl-azure-controller-kubectl-azure\n  resources:\n  - validatingwebhookconfigurations\n  verbs:\n  - get\n  - patch\n"
	if string(b) != wantCR {
		t.Errorf("ClusterRole rules:\n%s\nwant\n%s", b, wantCR)
	}
	if dig(crbs[0], "roleRef", "name") != dig(crs[0], "metadata", "name") || dig(crbs[0], "subjects", 0, "name") != "kubectl-azure-controller" ||
		dig(crbs[0], "subjects", 0, "namespace") != "kubectl-azure" {
		t.Errorf("the ClusterRoleBinding does not bind the ClusterRole to the ServiceAccount: %v", crbs[0])
	}
}
