package manifest

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// TestSecretGuardRefusesBeforeTheRead: a Secret the guard refuses by name
// is never fetched, and one it refuses by its labels is fetched but its
// value is not used; both are problems at the secretKeyRef.
func TestSecretGuardRefusesBeforeTheRead(t *testing.T) {
	cs := fake.NewClientset(
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "forbidden", Namespace: "team-a"}, Data: map[string][]byte{"k": []byte("v1-secret-value")}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "labelled", Namespace: "team-a", Labels: map[string]string{"no": "read"}}, Data: map[string][]byte{"k": []byte("v2-secret-value")}})
	guard := func(_, name string, labels map[string]string) error {
		if name == "forbidden" || labels["no"] == "read" {
			return errors.New("refused by the guard")
		}
		return nil
	}
	env := envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub})
	for _, name := range []string{"forbidden", "labelled"} {
		cs.ClearActions()
		o := stdin(strings.Replace(kvSecretDoc, "VALUEFROM", "{secretKeyRef: {name: "+name+", key: k}}", 1))
		o.LookupEnv = env
		o.Secrets = &KubeSecrets{Guard: guard, Client: func() (corev1client.SecretsGetter, string, error) { return cs.CoreV1(), "team-a", nil }}
		ve := loadErr(t, o)
		if !strings.Contains(ve.Error(), "spec.body.properties.value.valueFrom.secretKeyRef: refused by the guard") || strings.Contains(ve.Error(), "secret-value") {
			t.Errorf("%s: %v", name, ve)
		}
		if reads := len(cs.Actions()); (name == "forbidden") != (reads == 0) {
			t.Errorf("%s: %d reads of the Secret", name, reads)
		}
	}
}

// TestEnvAllowedAndCredentialVariables: EnvAllowed refuses what it does
// not list, and the tool's credentials are refused even when it allows
// them.
func TestEnvAllowedAndCredentialVariables(t *testing.T) {
	env := envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub, "SECOND": "x", "OK": "fine-value", "NO": "no-value", "AZURE_CLIENT_SECRET": "tool-secret"})
	for name, want := range map[string]string{"OK": "", "NO": "not listed", "AZURE_CLIENT_SECRET": "own Azure credential", "Azure_Client_Secret": "own Azure credential"} {
		o := stdin(strings.Replace(kvSecretDoc, "VALUEFROM", "{env: "+name+"}", 1))
		o.LookupEnv = env
		o.EnvAllowed = func(n string) error {
			if n == "NO" {
				return errors.New("not listed")
			}
			return nil
		}
		if want == "" {
			if r := load(t, o).Resources[0]; r.Body["properties"].(map[string]any)["value"] != "fine-value" {
				t.Errorf("%s: %v", name, r.Body)
			}
			continue
		}
		if ve := loadErr(t, o); !strings.Contains(ve.Error(), "valueFrom.env: ") || !strings.Contains(ve.Error(), want) {
			t.Errorf("%s: %v, want %q", name, ve, want)
		}
	}
}
