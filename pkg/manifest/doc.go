// Package manifest loads kubectl-azure manifests (apiVersion
// azure.kubectl.io/v1alpha1, kind Resource), validates them, and resolves
// each into a Resource: its ARM ID, its request body with references and
// secrets filled in, and the IDs it depends on.
//
// Loading follows kubectl: -f files, directories, globs or stdin, -R, -k
// through cli-runtime's resource builder (kustomize), -l label selection.
// Every problem of a run is collected into one *ValidationError naming file,
// document index and field path, so nothing reaches Azure from a set with
// a single bad document. docs/manifests.md is the user-facing reference for
// placement, the ${ref:...} syntax and valueFrom secrets.
//
// The package reads files, the environment, the Azure CLI profile and (only
// through a SecretResolver the caller supplies) Kubernetes Secrets; it never
// talks to Azure.
package manifest
