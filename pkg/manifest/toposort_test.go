package manifest

import (
	"fmt"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// TopoSort orders resources so every resource comes after the resources
// in DependsOn (creation order; reverse it for deletion). Ties keep the
// input order, so plans are stable. DependsOn IDs not in rs are ignored.
// A cycle is an error naming its members. Load itself orders and rejects
// cycles through depthFirst; this checks that search on hand-built sets.
func TopoSort(rs []*Resource) ([]*Resource, error) {
	index := make(map[string]int, len(rs))
	for i, r := range rs {
		index[armid.Key(r.ID)] = i
	}
	var cycle []int
	order := depthFirst(len(rs), func(i int) []int {
		var next []int
		for _, d := range rs[i].DependsOn {
			if j, ok := index[armid.Key(d)]; ok {
				next = append(next, j)
			}
		}
		return next
	}, func(c []int) {
		if cycle == nil {
			cycle = c
		}
	})
	if cycle != nil {
		var names []string
		for _, i := range cycle {
			names = append(names, rs[i].Origin.String())
		}
		return nil, fmt.Errorf("dependency cycle: %s", strings.Join(names, " -> "))
	}
	out := make([]*Resource, len(order))
	for k, i := range order {
		out[k] = rs[i]
	}
	return out, nil
}
