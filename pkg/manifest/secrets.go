package manifest

import (
	"context"
	"fmt"
	"strings"
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
	// Guard, when set, may refuse a Secret: it is asked before the read
	// with labels nil (a name no manifest may read is never fetched), and
	// again with the Secret's labels once it is read, before its value is
	// used. Its error is the problem reported at the secretKeyRef.
	Guard func(namespace, name string, labels map[string]string) error

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
	if err := k.guard(namespace, name, nil); err != nil {
		return "", err
	}
	s, err := k.client.Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		//lint:ignore ST1005 "Secret" is the Kubernetes kind, and the message follows a field path
		return "", fmt.Errorf("Secret %s/%s not found; create it or fix secretKeyRef.name/namespace", namespace, name)
	}
	if err != nil {
		return "", fmt.Errorf("cannot read Secret %s/%s: %v", namespace, name, err)
	}
	if err := k.guard(namespace, name, s.Labels); err != nil {
		return "", err
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

func (k *KubeSecrets) guard(namespace, name string, labels map[string]string) error {
	if k.Guard == nil {
		return nil
	}
	return k.Guard(namespace, name, labels)
}

// credentialEnv are the variables holding the credentials this tool (its
// Azure identity library) signs in with, or the files holding them: a
// manifest that could read them through valueFrom.env could copy the
// tool's own credential into a tag. Names are compared ignoring case, as
// Windows does.
var credentialEnv = []string{
	"AZURE_CLIENT_SECRET", "AZURE_CLIENT_CERTIFICATE_PATH", "AZURE_CLIENT_CERTIFICATE_PASSWORD",
	"AZURE_USERNAME", "AZURE_PASSWORD", "AZURE_FEDERATED_TOKEN_FILE",
	"IDENTITY_HEADER", "MSI_SECRET", "SYSTEM_ACCESSTOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
}

// CredentialEnv reports whether name is one of the tool's own credential
// variables, which valueFrom.env never reads.
func CredentialEnv(name string) bool {
	for _, c := range credentialEnv {
		if strings.EqualFold(c, name) {
			return true
		}
	}
	return false
}
