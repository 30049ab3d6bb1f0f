package cli_test

import (
	"strings"
	"testing"
)

// TestControllerRefusesBadSourceWithExit2: the controller checks its
// manifest source in Validate, before it connects to a cluster or Azure.
func TestControllerRefusesBadSourceWithExit2(t *testing.T) {
	e := newEnv(t, nil)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"controller"}, "no manifests given"},
		{[]string{"controller", "-f", "-"}, "not standard input"},
		{[]string{"controller", "-f", e.dir, "--source", "dir://" + e.dir}, "either --source or -f/-k"},
		{[]string{"controller", "--source", "ftp://x"}, "use dir://PATH, configmap://NAMESPACE?selector=LABELS or kubernetes://NAMESPACE"},
		{[]string{"controller", "--source", "dir://"}, "names no directory"},
		{[]string{"controller", "--source", "configmap://?selector=app=x"}, "names no namespace"},
		{[]string{"controller", "-f", e.dir, "--read-budget", "0%"}, "budget"},
		{[]string{"controller", "-f", e.dir, "--initial-read-budget", "150%"}, "--initial-read-budget \"150%\": must be above 0% and at most 100%"},
		// Without a selector every ConfigMap of the namespace would be manifests.
		{[]string{"controller", "--source", "configmap://infra"}, "has no selector, which would read every ConfigMap of namespace infra: use configmap://infra?selector=LABELS"},
		{[]string{"controller", "--source", "configmap://infra?selector="}, "has no selector"},
		{[]string{"controller", "--source", "configmap://infra?selector=app+in+(x"}, "selector"},
		// kubernetes:// needs no selector, but a bad one is refused.
		{[]string{"controller", "--source", "kubernetes://"}, "use kubernetes://NAMESPACE"},
		{[]string{"controller", "--source", "kubernetes://infra/x"}, "use kubernetes://NAMESPACE"},
		{[]string{"controller", "--source", "kubernetes://Infra"}, "namespace \"Infra\""},
		{[]string{"controller", "--source", "kubernetes://infra?selector=app+in+(x"}, "selector"},
		{[]string{"controller", "--source", "kubernetes://infra?labels=app"}, "unknown parameter \"labels\""},
		{[]string{"controller", "-f", e.dir, "--allow-env", "AZURE_CLIENT_SECRET"}, "own Azure credential"},
		{[]string{"controller", "-f", e.dir, "--allow-env", "A-B"}, "not an environment variable name"},
		{[]string{"controller", "-f", e.dir, "--secret", "ns/a/b"}, "--secret"},
		{[]string{"controller", "--source", "kubernetes://infra", "--webhook-addr", ":9443", "--webhook-self-signed", "tls"}, "use NAMESPACE/NAME"},
		{[]string{"controller", "--source", "kubernetes://infra", "--webhook-addr", ":9443", "--webhook-self-signed", "azure/tls"}, "needs --webhook-configuration"},
		{[]string{"controller", "--source", "kubernetes://infra", "--webhook-addr", ":9443", "--webhook-self-signed", "azure/tls", "--webhook-configuration", "w"}, "needs --webhook-dns-name"},
		{[]string{"controller", "--source", "kubernetes://infra", "--webhook-addr", ":9443", "--webhook-self-signed", "azure/tls", "--webhook-configuration", "w", "--webhook-dns-name", "w.azure.svc", "--webhook-cert-validity", "1s"}, "at least 10s"},
		{[]string{"controller", "--source", "kubernetes://infra", "--webhook-addr", ":9443", "--webhook-self-signed", "azure/tls", "--webhook-cert-dir", "/certs"}, "not both"},
		{[]string{"controller", "--source", "kubernetes://infra", "--webhook-self-signed", "azure/tls"}, "give --webhook-addr"},
	} {
		_, errOut, code := e.run(tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s", tc.args, code, tc.want, errOut)
		}
	}
	if e.writes() != 0 {
		t.Errorf("bad input sent %d writes", e.writes())
	}
}
