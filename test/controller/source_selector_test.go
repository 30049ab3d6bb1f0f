package controller

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
)

// TestConfigMapSourceNeedsASelector: without a selector the source would
// take every ConfigMap of the namespace (another app's, the state's own)
// as manifests; it refuses to start and says which form to use.
func TestConfigMapSourceNeedsASelector(t *testing.T) {
	cs := fake.NewClientset(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "other-app", Namespace: "infra"},
		Data: map[string]string{"x.yaml": cmManifest}})
	for _, sel := range []string{"", "  "} {
		src := &reconcile.ConfigMapSource{Client: cs, Namespace: "infra", Selector: sel, Dir: t.TempDir(),
			LoadDir: func(context.Context, string) (*manifest.Set, error) { return nil, nil }}
		err := src.Start(t.Context())
		if err == nil || !strings.Contains(err.Error(), "configmap://infra?selector=LABELS") {
			t.Errorf("selector %q: %v, want a refusal naming configmap://infra?selector=LABELS", sel, err)
		}
	}
}
