package apply

import "github.com/kubectl-azure/kubectl-azure/pkg/manifest"

// Annotations the engine acts on (validated when manifests load).
const (
	AnnotationPreventDestroy = manifest.AnnotationPreventDestroy
	AnnotationIgnoreChanges  = manifest.AnnotationIgnoreChanges
)

// annotation returns one of the resource's metadata.annotations, "" when
// it is not set.
func annotation(r *manifest.Resource, key string) string {
	if r == nil {
		return ""
	}
	return r.Annotations[key]
}
