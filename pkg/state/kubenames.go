package state

import "strings"

// KeySecretName is the Secret holding set's secret-hashing key in the
// Kubernetes backend's namespace. The controller's install grants `get`
// on this name alone, and no manifest may read it (secretKeyRef).
func KeySecretName(set string) string { return kubePrefix + set + "-key" }

// LockLeaseName is the Lease the Kubernetes backend locks set with.
func LockLeaseName(set string) string { return kubePrefix + set + "-lock" }

// IsKeySecretName reports whether name is the key Secret of some set.
func IsKeySecretName(name string) bool {
	rest, ok := strings.CutPrefix(name, kubePrefix)
	set, isKey := strings.CutSuffix(rest, "-key")
	return ok && isKey && set != ""
}
