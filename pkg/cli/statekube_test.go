package cli_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/cli"
	"github.com/kubectl-azure/kubectl-azure/pkg/state/statetest"
)

// State commands and limits on the Kubernetes backend, on a real
// kube-apiserver (issue 45).
func TestStateKubernetesLimits(t *testing.T) {
	kube, err := statetest.Start()
	if err != nil {
		if os.Getenv("KUBECTL_AZURE_REQUIRE_TESTENV") != "" {
			t.Fatalf("etcd and kube-apiserver: %v", err)
		}
		t.Skipf("no etcd and kube-apiserver (hack/testenv/setup.sh installs them): %v", err)
	}
	defer kube.Stop()
	runIn := func(e *env, ref string, args ...string) (string, int) {
		t.Helper()
		var out, errOut bytes.Buffer
		full := append([]string{"--endpoint", e.srv.URL(), "--subscription", testSub,
			"--state", ref, "--kubeconfig", kube.Kubeconfig}, args...)
		code := cli.Main(full, genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
		return out.String() + errOut.String(), code
	}
	configMaps := func(ns string) int {
		l, err := kube.Clientset.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/managed-by=kubectl-azure"})
		if err != nil {
			t.Fatal(err)
		}
		return len(l.Items)
	}

	// Item 6: a body whose record cannot fit a ConfigMap is refused at
	// plan time: exit 2 naming the resource and the size, nothing written
	// to Azure or to the state. Before, the write went to Azure and every
	// later apply stopped repairing its record.
	t.Run("RecordTooLarge", func(t *testing.T) {
		ns := kube.NewNamespace(t)
		e := newEnv(t, nil)
		noise := make([]byte, 700<<10)
		_, _ = rand.Read(noise)
		e.edit("storage.yaml", "      minimumTlsVersion: TLS1_2\n", "      minimumTlsVersion: TLS1_2\n      blob: "+hex.EncodeToString(noise)+"\n")
		out, code := runIn(e, "kubernetes://"+ns+"/big", "apply", "-f", e.dir, "--yes")
		if code != 2 || !strings.Contains(out, "stdemo001") || !strings.Contains(out, "KiB") || !strings.Contains(out, "storage.yaml") {
			t.Fatalf("apply of a record too large: exit %d, want 2 naming the file, the resource and the size:\n%.1500s", code, out)
		}
		if n := e.writes(); n != 0 {
			t.Errorf("%d writes sent to Azure", n)
		}
		if n := configMaps(ns); n != 0 {
			t.Errorf("%d ConfigMaps written", n)
		}
	})

	// Item 7: --to-set on a store that holds one set used to report success
	// and move nothing; a later prune of the old set then deleted what the
	// user had handed over. It is refused, and nothing changes.
	t.Run("MoveToSetRefused", func(t *testing.T) {
		ns := kube.NewNamespace(t)
		e := newEnv(t, nil)
		ref := "kubernetes://" + ns + "/team-a"
		if out, code := runIn(e, ref, "apply", "-f", e.dir, "--yes"); code != 0 {
			t.Fatalf("apply: exit %d\n%s", code, out)
		}
		before, _ := runIn(e, ref, "state", "list", "-o", "json")
		cms := configMaps(ns)
		out, code := runIn(e, ref, "state", "mv", "storageAccounts/stdemo001", "--to-set", "team-b")
		if code != 2 || !strings.Contains(out, "holds only the set team-a") {
			t.Fatalf("state mv --to-set on Kubernetes: exit %d, want 2 saying why:\n%s", code, out)
		}
		if after, _ := runIn(e, ref, "state", "list", "-o", "json"); after != before || configMaps(ns) != cms {
			t.Errorf("the refused move changed the state")
		}
		// Its own set is no move, and a new ID within it still moves.
		newID := rg("rg-moved") + "/providers/Microsoft.Storage/storageAccounts/stdemo001"
		if out, code := runIn(e, ref, "state", "mv", "storageAccounts/stdemo001", newID, "--to-set", "team-a"); code != 0 {
			t.Fatalf("state mv to a new ID in its own set: exit %d\n%s", code, out)
		}
		if out, code := runIn(e, ref, "state", "show", newID); code != 0 {
			t.Errorf("moved record not found: exit %d\n%s", code, out)
		}
	})
}
