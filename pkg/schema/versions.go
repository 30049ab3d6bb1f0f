package schema

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema/internal/apiversion"
)

// nearestVersion picks want from known (ascending) when present
// (case-insensitive; exact is then true), else the nearest by date as the
// generator picks Swagger facts (apiversion.Nearest). An empty want
// selects the newest stable version (a preview only when nothing else
// exists).
func nearestVersion(known []string, want string) (string, bool) {
	if len(known) == 0 {
		return "", false
	}
	for _, v := range known {
		if strings.EqualFold(v, want) {
			return v, true
		}
	}
	if want == "" {
		for i := len(known) - 1; i >= 0; i-- {
			if !strings.Contains(strings.ToLower(known[i]), "preview") {
				return known[i], false
			}
		}
		return known[len(known)-1], false
	}
	return apiversion.Nearest(known, want), false
}

// NewestVersion returns the newest stable api-version of a type, or ""
// when the type is unknown.
func (r *Registry) NewestVersion(typ string) string {
	v, _ := nearestVersion(r.Versions(typ), "")
	return v
}
