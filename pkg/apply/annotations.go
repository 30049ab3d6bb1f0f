package apply

import "github.com/kubectl-azure/kubectl-azure/pkg/manifest"

// annotation returns one of the resource's metadata.annotations.
//
// manifest.Resource does not carry annotations yet; until it does, no
// manifest can set prevent-destroy or ignore-changes and this returns "".
func annotation(r *manifest.Resource, key string) string {
	_, _ = r, key
	return ""
}
