package cli

import (
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-azure/kubectl-azure/pkg/state"
	"github.com/kubectl-azure/kubectl-azure/pkg/state/statetest"
)

// startKube starts this test's own etcd and kube-apiserver.
func startKube(t *testing.T) *statetest.Env {
	t.Helper()
	kube, err := statetest.Start()
	if err != nil {
		if os.Getenv(statetest.EnvRequire) == "1" {
			t.Fatalf("etcd and kube-apiserver: %v", err)
		}
		t.Skipf("no etcd and kube-apiserver (hack/testenv/setup.sh installs them): %v", err)
	}
	t.Cleanup(kube.Stop)
	return kube
}

func secretRefTag(ns, name, key string) string {
	return "tags: {env: prod, owner: {valueFrom: {secretKeyRef: {name: " + name + ", key: " + key + ", namespace: " + ns + "}}}}"
}

// TestSecretKeyRefSecretsAreScoped, on the real kube-apiserver:
//   - no command reads a state's secret-hashing key through secretKeyRef
//     (the run's own state, another set's, or a Secret labelled as one),
//     exit 2 naming file, document, line and field, its value nowhere;
//   - the controller reads only the Secrets --secret lists, and says
//     which flag to add for any other.
func TestSecretKeyRefSecretsAreScoped(t *testing.T) {
	kube := startKube(t)
	ns := kube.NewNamespace(t)
	ctx := t.Context()
	st, err := state.Open(ctx, state.KubernetesScheme+ns+"/prod", state.Options{KubeConfig: kube.ConfigFlags()})
	if err != nil {
		t.Fatal(err)
	}
	key, err := st.SecretKey(ctx) // the state creates its key Secret
	_ = st.Close()
	if err != nil {
		t.Fatal(err)
	}
	secrets := kube.Clientset.CoreV1().Secrets(ns)
	for _, s := range []*corev1.Secret{
		{ObjectMeta: metav1.ObjectMeta{Name: "copied", Labels: map[string]string{state.LabelSet: "prod"}}, StringData: map[string]string{"hmac-key": string(key)}},
		{ObjectMeta: metav1.ObjectMeta{Name: "db"}, StringData: map[string]string{"owner": "team-db"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "other"}, StringData: map[string]string{"owner": "team-other"}},
	} {
		if _, err := secrets.Create(ctx, s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	kubeState := []string{"--state", state.KubernetesScheme + ns + "/prod", "--kubeconfig", kube.Kubeconfig}
	for _, name := range []string{"azstate-prod-key", "azstate-staging-key", "copied"} {
		e := newLoopEnv(t)
		e.write("infra.yaml", strings.Replace(loopManifests, ownerTag, secretRefTag(ns, name, "hmac-key"), 1))
		for _, args := range [][]string{{"--kubeconfig", kube.Kubeconfig}, kubeState} { // a local state, then this one
			code, out, errOut := e.run(append(args, "apply", "-f", e.dir, "--yes")...)
			text := out + errOut
			if code != ExitValidation || !strings.Contains(text, "infra.yaml#1 (line 19): spec.body.tags.owner.valueFrom.secretKeyRef") ||
				!strings.Contains(text, "secret-hashing key") {
				t.Errorf("secretKeyRef %s with %v: exit %d, want 2 naming the file, line, field and why\n%s", name, args, code, text)
			}
			if strings.Contains(text, string(key)) {
				t.Errorf("the state key is in the output")
			}
		}
		if n := e.writes("person"); n != 0 {
			t.Errorf("%s: %d writes on bad input", name, n)
		}
	}

	// The controller: only --secret.
	e := newLoopEnv(t)
	e.write("infra.yaml", strings.Replace(loopManifests, ownerTag, secretRefTag(ns, "db", "owner"), 1))
	stop, log := e.loop(t.Context(), "--kubeconfig", kube.Kubeconfig, "--secret", ns+"/other")
	waitLog(t, log, "add --secret "+ns+"/db")
	if strings.Contains(log.String(), "team-db") || e.writes("loop") != 0 {
		t.Errorf("an unlisted Secret was read or applied:\n%s", log.String())
	}
	stop()
	e = newLoopEnv(t)
	e.write("infra.yaml", strings.Replace(loopManifests, ownerTag, secretRefTag(ns, "db", "owner"), 1))
	_, log = e.loop(t.Context(), "--kubeconfig", kube.Kubeconfig, "--secret", ns+"/db")
	e.waitFor("applied", 30*time.Second, log, allInSync(4))
	if got := tagOf(e.get(identityID("id-a")), "owner"); got != "team-db" {
		t.Errorf("owner tag = %q, want the listed Secret's value", got)
	}
}
