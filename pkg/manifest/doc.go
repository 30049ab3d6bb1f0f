// Package manifest loads kubectl-azure manifests (apiVersion
// azure.kubectl.io/v1alpha1, kind Resource), validates them, and resolves
// each into a Resource: its ARM ID, its request body with references and
// secrets filled in, and the IDs it depends on.
//
// Loading follows kubectl: -f files, directories, globs or stdin, -R, -k
// through cli-runtime's resource builder (kustomize), -l label selection.
// Every problem of a run is collected into one *ValidationError naming file,
// document index, line and field path, so nothing reaches Azure from a set
// with a single bad document; loading nothing is an *EmptySetError.
// docs/manifests.md is the user-facing reference for placement, the
// placeholder syntax and valueFrom secrets.
//
// The work is split by phase: read.go and decode.go read files and decode
// YAML (numbers stay json.Number, input is bounded), envelope.go checks
// apiVersion, kind, metadata and spec, placement.go builds ARM IDs,
// expr.go and bind.go parse and resolve ${...} placeholders, body.go walks
// bodies (valueFrom, literal IDs), graph.go finds cycles and orders, and
// schema.go applies the schema's findings.
//
// Sets of thousands of documents are expected, so loading keeps little per
// document: each is checked as soon as it is decoded and only its entry
// stays; a document's line table is rebuilt from its text when a message
// first needs a line; repeated strings, label and annotation maps are
// shared across resources; bodies are resolved in place, copied only where
// a placeholder changes them. BenchmarkLoad10000 measures it.
//
// Values that need live data (${ref:NAME.PATH}, valueFrom.action, names
// over them) are not resolved here: the body holds the plan.Unknown marker and
// Resource.Deferred, Resource.Actions or Resource.NameDeferred say how the
// apply engine fills them in.
//
// The package reads files, the environment, the Azure CLI profile and (only
// through a SecretResolver the caller supplies) Kubernetes Secrets; it never
// talks to Azure.
package manifest
