package cli

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// secretRef is a Secret by namespace and name; Namespace "" is the
// namespace a secretKeyRef without one resolves to.
type secretRef struct{ Namespace, Name string }

func (r secretRef) String() string { return r.Namespace + "/" + r.Name }

// parseSecretRef reads --secret [NAMESPACE/]NAME.
func parseSecretRef(s string) (secretRef, error) {
	ns, name, found := strings.Cut(s, "/")
	if !found {
		ns, name = "", s
	}
	if found && len(validation.IsDNS1123Label(ns)) > 0 || len(validation.IsDNS1123Subdomain(name)) > 0 {
		return secretRef{}, fmt.Errorf("--secret %q: use [NAMESPACE/]NAME (a namespace is a DNS label, a Secret's name a DNS subdomain)", s)
	}
	return secretRef{ns, name}, nil
}

// kubeSecrets is the resolver of valueFrom.secretKeyRef. It never reads a
// state's secret-hashing key (hashes of short secrets could be brute-forced
// with it, and it would land in Azure in clear). allowed, when non-nil,
// is the only Secrets it reads (the controller's --secret list; the rest
// would be refused by its Role anyway, this says why first).
func (g *GlobalOptions) kubeSecrets(allowed []secretRef) *manifest.KubeSecrets {
	var defaultNS string
	return &manifest.KubeSecrets{
		Client: func() (corev1client.SecretsGetter, string, error) {
			cfg, err := g.KubeFlags.ToRESTConfig()
			if err != nil {
				return nil, "", err
			}
			cs, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				return nil, "", err
			}
			ns, _, err := g.KubeFlags.ToRawKubeConfigLoader().Namespace()
			if err != nil {
				return nil, "", err
			}
			if defaultNS = ns; ns == "" {
				defaultNS = metav1.NamespaceDefault // as KubeSecrets resolves it
			}
			return cs.CoreV1(), ns, nil
		},
		Guard: func(ns, name string, labels map[string]string) error {
			if err := refuseStateKey(ns, name, labels); err != nil {
				return err
			}
			if allowed == nil {
				return nil
			}
			for _, a := range allowed {
				if a.Name == name && (a.Namespace == ns || a.Namespace == "" && ns == defaultNS) {
					return nil
				}
			}
			//lint:ignore ST1005 "Secret" is the Kubernetes kind, and the message follows a field path
			return fmt.Errorf("Secret %s/%s is not one the controller may read: add --secret %s/%s to the controller and print its install again (its Role grants get on the listed Secrets only)", ns, name, ns, name)
		},
	}
}

// refuseStateKey refuses a state's secret-hashing key: any Secret named
// as one (azstate-SET-key) before anything is read, and one labelled with
// a set once read.
func refuseStateKey(ns, name string, labels map[string]string) error {
	if state.IsKeySecretName(name) || labels[state.LabelSet] != "" {
		//lint:ignore ST1005 "Secret" is the Kubernetes kind
		return fmt.Errorf("Secret %s/%s is a kubectl-azure state's secret-hashing key (or another object of its state); no manifest may read it", ns, name)
	}
	return nil
}
