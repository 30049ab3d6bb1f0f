package cli

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator/emulatortest"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
	"github.com/kubectl-azure/kubectl-azure/pkg/state/statetest"
)

// TestControllerKubernetesSourceEndToEnd runs `controller --source
// kubernetes://NS` as the command line wires it, on a real kube-apiserver
// holding the CRD that `controller install` prints: the objects' resources
// are created in the emulated ARM and every object ends Ready=True at its
// current generation.
func TestControllerKubernetesSourceEndToEnd(t *testing.T) {
	kube, err := statetest.Start() // statetest.Shared wants a TestMain here
	if err != nil {
		if os.Getenv("KUBECTL_AZURE_REQUIRE_TESTENV") != "" {
			t.Fatalf("etcd and kube-apiserver: %v", err)
		}
		t.Skipf("no etcd and kube-apiserver (hack/testenv/setup.sh installs them): %v", err)
	}
	defer kube.Stop()
	cfg, err := kube.ConfigFlags().ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	dc := dynamic.NewForConfigOrDie(cfg)
	ctx := t.Context()

	code, out, errOut := install(t, goodInstall...)
	if code != 0 {
		t.Fatalf("install: exit %d\n%s", code, errOut)
	}
	crdGVR := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	if _, err := dc.Resource(crdGVR).Create(ctx, &unstructured.Unstructured{Object: installDocs(t, out)[0]}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("the printed CRD: %v", err)
	}
	ns := kube.NewNamespace(t)
	objects := dc.Resource(reconcile.ResourceGVR).Namespace(ns)
	eventually(t, 20*time.Second, "the CRD is served", func() bool {
		_, err := objects.List(ctx, metav1.ListOptions{})
		return err == nil
	})
	for _, doc := range strings.Split(loopManifests, "---\n") {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatal(err)
		}
		if _, err := objects.Create(ctx, &unstructured.Unstructured{Object: m}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	e := newLoopEnv(t)
	var log syncBuffer
	streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &log, ErrOut: &log}
	g := DefaultGlobalOptions()
	root := newRootCommand(g, streams)
	root.AddCommand(newControllerCommand(g, streams))
	root.SetArgs([]string{"--endpoint", e.url, "--subscription", loopSub, "--state", e.state, "--kubeconfig", kube.Kubeconfig,
		"controller", "--source", "kubernetes://" + ns, "--read-budget", "50%",
		"--sweep-interval", "100ms", "--source-interval", "50ms", "--retry-base", "20ms", "--write-budget", "100"})
	lctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- exitCode(root.ExecuteContext(lctx)) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			select {
			case c := <-done:
				if c != 0 {
					t.Errorf("the controller exited %d\n%s", c, log.String())
				}
			case <-time.After(30 * time.Second):
				t.Errorf("the controller did not stop\n%s", log.String())
			}
		})
	}
	defer stop()

	eventually(t, 60*time.Second, "every object Ready at its generation", func() bool {
		l, err := objects.List(ctx, metav1.ListOptions{})
		if err != nil || len(l.Items) != 4 {
			return false
		}
		for _, o := range l.Items {
			og, _, _ := unstructured.NestedInt64(o.Object, "status", "observedGeneration")
			if og != o.GetGeneration() || readyStatus(&o) != "True" {
				return false
			}
		}
		return true
	})
	if n := e.writes(emulatortest.ClientLoop); n != 4 {
		t.Errorf("the controller wrote %d times, want 4 creates", n)
	}
	stop()
	if t.Failed() {
		t.Log(log.String())
	}
}

func readyStatus(o *unstructured.Unstructured) string {
	conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == "Ready" {
			s, _ := m["status"].(string)
			return s
		}
	}
	return ""
}

func eventually(t *testing.T, within time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", within, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
