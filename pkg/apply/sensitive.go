package apply

import (
	"slices"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// sensitivePaths are the item's secret paths: the manifest's (valueFrom,
// deferred secrets), and those its record holds as hashes: a value once
// secret stays secret in the plan after the manifest stops declaring it,
// or its removal would show live's value.
func (it *item) sensitivePaths() []string {
	if it.record == nil {
		return it.secrets
	}
	return append(slices.Clone(it.secrets), secret.HashedPaths(it.record.LastApplied)...)
}

// secretRule is the item's one secret rule (diff.SecretRule over its
// schema and sensitive paths): the diff marks the plan's changes and the
// notes of kept values by it, and the record hashes by the same paths.
func (it *item) secretRule() *secret.Rule {
	return diff.SecretRule(it.id, it.schema, it.sensitivePaths()...)
}
