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

// checkCycles finds dependency cycles among resolved resources (references
// both ways, a scope that refers back, ...) and reports each once.
func (l *loader) checkCycles() {
	const (
		white = iota
		grey
		black
	)
	color := map[*entry]int{}
	var stack []*entry
	var visit func(e *entry)
	visit = func(e *entry) {
		color[e] = grey
		stack = append(stack, e)
		for _, ed := range e.edges {
			if ed.to.state != idDone {
				continue
			}
			switch color[ed.to] {
			case white:
				visit(ed.to)
			case grey:
				for i, s := range stack {
					if s == ed.to {
						l.reportCycle(stack[i:])
						break
					}
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[e] = black
	}
	for _, e := range l.entries {
		if e.state == idDone && color[e] == white {
			visit(e)
		}
	}
}

// reportCycle reports a cycle on its member declared first, naming the
// field that starts it, and marks every member failed.
func (l *loader) reportCycle(cycle []*entry) {
	start := 0
	for i, c := range cycle {
		if originLess(c.res.Origin, cycle[start].res.Origin) {
			start = i
		}
	}
	rot := append(append([]*entry(nil), cycle[start:]...), cycle[:start]...)
	var names []string
	for _, c := range rot {
		names = append(names, c.describe())
	}
	names = append(names, rot[0].describe())
	path := ""
	next := rot[0]
	if len(rot) > 1 {
		next = rot[1]
	}
	for _, ed := range rot[0].edges {
		if ed.to == next {
			path = ed.path
			break
		}
	}
	l.ps.add(rot[0].res.Origin, path, "dependency cycle: %s; remove one of these references", strings.Join(names, " -> "))
	for _, c := range cycle {
		c.state = idFailed
	}
}

func originLess(a, b Origin) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	return a.Index < b.Index
}
