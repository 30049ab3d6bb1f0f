package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/cli"
	"github.com/kubectl-azure/kubectl-azure/pkg/state/statetest"
)

// TestSecretsKubernetesBackend: with the Kubernetes state backend, a
// secret written literally at a path its type keeps secrets at, and one
// reached through ${ref:...}, are stored only as hashes in the ConfigMaps'
// annotations and data, and in nothing etcd keeps.
func TestSecretsKubernetesBackend(t *testing.T) {
	// Its own servers (not statetest.Shared, which wants a TestMain here).
	kube, err := statetest.Start()
	if err != nil {
		if os.Getenv("KUBECTL_AZURE_REQUIRE_TESTENV") != "" {
			t.Fatalf("etcd and kube-apiserver: %v", err)
		}
		t.Skipf("no etcd and kube-apiserver (hack/testenv/setup.sh installs them): %v", err)
	}
	defer kube.Stop()
	ns := kube.NewNamespace(t)
	e := newEnv(t, nil)
	run := func(want int, args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		full := append([]string{"--endpoint", e.srv.URL(), "--subscription", testSub,
			"--state", "kubernetes://" + ns + "/secrets", "--kubeconfig", kube.Kubeconfig}, args...)
		if code := cli.Main(full, genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}); code != want {
			t.Fatalf("%v: exit %d, want %d\n%s\n%s", args, code, want, out.String(), errOut.String())
		}
		return out.String() + errOut.String()
	}
	const literal = "Kube-Literal-S3cret-31"
	e.writeManifest("kv-secret.yaml", strings.Replace(kvSecretManifest, "VALUE", literal, 1))
	texts := map[string]string{"apply": run(0, "apply", "-f", e.dir, "--yes")}
	kvs := rg("rg-demo") + "/providers/Microsoft.KeyVault/vaults/kv-demo-001/secrets/kv-secret-db"
	// The service answers with the value (see TestSecretsReachedThroughRef),
	// which the storage account's tag then reads.
	if err := e.srv.Seed(kvs, "2023-07-01", map[string]any{"properties": map[string]any{"value": literal, "contentType": "text/plain"}}); err != nil {
		t.Fatal(err)
	}
	e.edit("storage.yaml", "    tags: {app: demo, env: dev}\n", "    tags: {app: demo, env: dev, db: \"${ref:kv-secret-db.properties.value}\"}\n")
	texts["second apply"] = run(0, "apply", "-f", e.dir, "--yes")

	cms, err := kube.Clientset.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hashes := 0
	for i := range cms.Items {
		b, _ := json.Marshal(&cms.Items[i])
		texts["ConfigMap "+cms.Items[i].Name] = string(b)
		hashes += strings.Count(string(b), "hmac-sha256:")
	}
	if hashes < 2 || !strings.Contains(texts["second apply"], "tags.db") {
		t.Fatalf("expected the secrets hashed in the ConfigMaps' annotations, found %d hashes (compressed?)", hashes)
	}
	_ = filepath.Walk(kube.EtcdDataDir, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			if b, err := os.ReadFile(p); err == nil {
				texts["etcd "+filepath.Base(p)] = string(b)
			}
		}
		return nil
	})
	noLeak(t, literal, texts)
}
