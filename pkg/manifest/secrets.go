package manifest

import (
	"context"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// SecretResolver returns one key of a Kubernetes Secret. namespace is ""
// when the manifest does not name one; the resolver picks its default.
type SecretResolver interface {
	SecretValue(ctx context.Context, namespace, name, key string) (string, error)
}

// KubeSecrets reads Secrets through client-go. The client is created on
// first use, so a run whose manifests use no secretKeyRef never needs a
// cluster or a kubeconfig.
type KubeSecrets struct {
	// Client returns the Secrets API and the default namespace (from the
	// kubeconfig flags). Called at most once.
	Client func() (corev1client.SecretsGetter, string, error)

	once      sync.Once
	client    corev1client.SecretsGetter
	namespace string
	err       error
}

// SecretValue implements SecretResolver.
func (k *KubeSecrets) SecretValue(ctx context.Context, namespace, name, key string) (string, error) {
	k.once.Do(func() {
		if k.Client == nil {
			k.err = fmt.Errorf("no Kubernetes client configured")
			return
		}
		k.client, k.namespace, k.err = k.Client()
	})
	if k.err != nil {
		return "", fmt.Errorf("cannot reach Kubernetes to read Secret %s: %v (check --kubeconfig/--context)", name, k.err)
	}
	if namespace == "" {
		namespace = k.namespace
	}
	if namespace == "" {
		namespace = metav1.NamespaceDefault
	}
	s, err := k.client.Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		//lint:ignore ST1005 "Secret" is the Kubernetes kind, and the message follows a field path
		return "", fmt.Errorf("Secret %s/%s not found; create it or fix secretKeyRef.name/namespace", namespace, name)
	}
	if err != nil {
		return "", fmt.Errorf("cannot read Secret %s/%s: %v", namespace, name, err)
	}
	if v, ok := s.Data[key]; ok {
		return string(v), nil
	}
	if v, ok := s.StringData[key]; ok {
		return v, nil
	}
	//lint:ignore ST1005 "Secret" is the Kubernetes kind, and the message follows a field path
	return "", fmt.Errorf("Secret %s/%s has no key %q; fix secretKeyRef.key", namespace, name, key)
}
