package schema

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
)

// HashPathOf is PathOf with each map key kept (written *"key"): the path
// mixed into a secret's hash, so equal secrets under two keys of one map
// (two tags, two app settings) get different hashes. Where a path holds no
// map key it equals PathOf's.
func HashPathOf(p bodypath.Path, isMap func(Path) bool) string {
	var sp, hp strings.Builder
	for _, s := range p {
		if s.Kind != bodypath.Member {
			sp.WriteString("[]")
			hp.WriteString("[]")
			continue
		}
		name, key := s.Name, s.Name
		if isMap != nil && isMap(Path(sp.String())) {
			name, key = "*", `*"`+s.Name+`"`
		}
		if sp.Len() > 0 {
			sp.WriteByte('.')
			hp.WriteByte('.')
		}
		sp.WriteString(name)
		hp.WriteString(key)
	}
	return hp.String()
}
