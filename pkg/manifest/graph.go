package manifest

import (
	"fmt"
	"strings"
)

// TopoSort orders resources so every resource comes after the resources
// in DependsOn (creation order; reverse it for deletion). Ties keep the
// input order, so plans are stable. DependsOn IDs not in rs are ignored.
// A cycle is an error naming its members; Load already rejects cycles, so
// this only fails for sets assembled by hand.
func TopoSort(rs []*Resource) ([]*Resource, error) {
	index := make(map[string]int, len(rs))
	for i, r := range rs {
		index[idKey(r.ID)] = i
	}
	const (
		white = iota
		grey
		black
	)
	color := make([]int, len(rs))
	out := make([]*Resource, 0, len(rs))
	var stack []int
	var visit func(i int) error
	visit = func(i int) error {
		color[i] = grey
		stack = append(stack, i)
		for _, d := range rs[i].DependsOn {
			j, ok := index[idKey(d)]
			if !ok {
				continue
			}
			switch color[j] {
			case white:
				if err := visit(j); err != nil {
					return err
				}
			case grey:
				var names []string
				for k := len(stack) - 1; k >= 0; k-- {
					names = append(names, rs[stack[k]].Origin.String())
					if stack[k] == j {
						break
					}
				}
				return fmt.Errorf("dependency cycle: %s", strings.Join(names, " -> "))
			}
		}
		stack = stack[:len(stack)-1]
		color[i] = black
		out = append(out, rs[i])
		return nil
	}
	for i := range rs {
		if color[i] == white {
			if err := visit(i); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}
