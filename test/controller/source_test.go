package controller

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator/emulatortest"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
	"github.com/kubectl-azure/kubectl-azure/pkg/state/statetest"
	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

var cmManifest = emulatortest.Group("rg-cm").YAML()

// TestConfigMapSource reads manifests from ConfigMaps through an
// informer: a change is seen, an invalid push keeps the last good set and
// names configmap://NAMESPACE/NAME/KEY with its line.
func TestConfigMapSource(t *testing.T) {
	env := statetest.Shared(t)
	ns := env.NewNamespace(t)
	cs := kubeClient(t, env, nil)
	ctx := t.Context()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "infra", Namespace: ns, Labels: map[string]string{"app": "infra"}},
		Data: map[string]string{"rg.yaml": cmManifest, "README": "not a manifest"}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	other := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "unrelated", Namespace: ns}, Data: map[string]string{"x.yaml": "not: [valid"}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, other, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	src := &reconcile.ConfigMapSource{Client: cs, Namespace: ns, Selector: "app=infra", Dir: t.TempDir(),
		LoadDir: func(ctx context.Context, dir string) (*manifest.Set, error) {
			lo := manifest.NewLoadOptions()
			lo.Filenames, lo.Recursive, lo.Subscription = []string{dir}, true, harness.Sub
			return manifest.Load(ctx, lo)
		}}
	if err := src.Start(ctx); err != nil {
		t.Fatal(err)
	}
	r := reconcile.NewReflector(src)
	if changed, err := r.Sync(ctx); !changed || err != nil {
		t.Fatalf("first sync: %v %v", changed, err)
	}
	set, _, _ := r.Current()
	if len(set.Resources) != 1 || !strings.HasPrefix(set.Resources[0].Origin.File, "configmap://"+ns+"/infra/rg.yaml") {
		t.Fatalf("resources %d, origin %v", len(set.Resources), set.Resources[0].Origin)
	}

	cm.Data["rg.yaml"] = strings.Replace(cmManifest, "location: westeurope", "location: westeurope\n  oops: [", 1)
	if _, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	var syncErr error
	waitFor(t, func() bool {
		_, syncErr = r.Sync(ctx)
		return syncErr != nil
	})
	ps := reconcile.Problems(syncErr)
	if len(ps) == 0 || ps[0].File != "configmap://"+ns+"/infra/rg.yaml" || ps[0].Line == 0 {
		t.Fatalf("problems = %+v", ps)
	}
	if now, _, _ := r.Current(); now != set {
		t.Fatal("the invalid push replaced the last good set")
	}
}

func waitFor(t testing.TB, ok func() bool) {
	t.Helper()
	for range 200 {
		if ok() {
			return
		}
		select {
		case <-t.Context().Done():
			return
		default:
		}
		sleep()
	}
	t.Fatal("condition not met within 10 s")
}

func sleep() { time.Sleep(50 * time.Millisecond) }

// TestKubeEventsLandOnTheStateConfigMap: an Event names the resource's
// state ConfigMap, so `kubectl describe` shows drift where its state is.
func TestKubeEventsLandOnTheStateConfigMap(t *testing.T) {
	env := statetest.Shared(t)
	ns := env.NewNamespace(t)
	cs := kubeClient(t, env, nil)
	var postErr error
	sink := reconcile.KubeEvents(cs, ns, "prod", "test", func(err error) { postErr = err })
	id := identity("ev", 0, 1)
	sink(reconcile.Event{Reason: reconcile.EventDriftDetected, ID: id, Message: "changed outside kubectl-azure: tags.env", Warning: true})
	if postErr != nil {
		t.Fatal(postErr)
	}
	evs, err := cs.CoreV1().Events(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs.Items) != 1 {
		t.Fatalf("%d events", len(evs.Items))
	}
	ev := evs.Items[0]
	if ev.Reason != reconcile.EventDriftDetected || ev.Type != corev1.EventTypeWarning || ev.InvolvedObject.Kind != "ConfigMap" ||
		ev.InvolvedObject.Name != state.ConfigMapName("prod", id) || !strings.Contains(ev.Message, "tags.env") {
		t.Fatalf("event %+v", ev)
	}
}
