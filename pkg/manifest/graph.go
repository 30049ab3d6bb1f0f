package manifest

import "strings"

// depthFirst is the one cycle search of the package: it visits nodes
// 0..n-1 in order, following next, and returns them in post-order (every
// node after the nodes it leads to). Each back edge found reports the
// cycle it closes, in path order, to onCycle.
func depthFirst(n int, next func(int) []int, onCycle func([]int)) []int {
	const (
		white = iota
		grey
		black
	)
	color := make([]int, n)
	out := make([]int, 0, n)
	var stack []int
	var visit func(i int)
	visit = func(i int) {
		color[i] = grey
		stack = append(stack, i)
		for _, j := range next(i) {
			switch color[j] {
			case white:
				visit(j)
			case grey:
				for k, s := range stack {
					if s == j {
						onCycle(append([]int(nil), stack[k:]...))
						break
					}
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[i] = black
		out = append(out, i)
	}
	for i := 0; i < n; i++ {
		if color[i] == white {
			visit(i)
		}
	}
	return out
}

// checkCycles finds dependency cycles among resolved resources (references
// both ways, a scope that refers back, ...) and reports each once. A cycle
// closed by an ID written out literally (two vnets peered both ways, one
// by ${ref:...}, the other by its ID) is broken at that edge with a
// warning: ARM itself cannot create such a pair in one step, and refusing
// would make imported manifests unloadable.
func (l *loader) checkCycles() {
	for l.breakLiteralCycle() {
	}
	var cycles [][]*entry
	l.findCycles(func(c []*entry) { cycles = append(cycles, c) })
	for _, c := range cycles {
		l.reportCycle(c)
	}
}

// breakLiteralCycle drops one edge of the first cycle that has one that
// gives way (an unsent readonly value's first, else a literal ID's), and
// says whether it did.
func (l *loader) breakLiteralCycle() bool {
	broke := false
	l.findCycles(func(c []*entry) {
		for _, weak := range []func(edge) bool{
			func(ed edge) bool { return ed.unsent },
			func(ed edge) bool { return ed.literal },
		} {
			if broke {
				return
			}
			broke = l.breakAt(c, weak)
		}
	})
	return broke
}

// breakAt drops the first edge of cycle c that weak accepts.
func (l *loader) breakAt(c []*entry, weak func(edge) bool) bool {
	for k, from := range c {
		to := c[(k+1)%len(c)]
		for i, ed := range from.edges {
			if ed.to != to || !weak(ed) {
				continue
			}
			from.edges = append(from.edges[:i:i], from.edges[i+1:]...)
			if !ed.unsent { // an unsent value was reported as ignored already
				l.warn(from.res.Origin, ed.path, "the ID of %s here would close a dependency cycle, so it orders nothing: the two may be written in either order (write the link as a child resource of its own if ARM needs the other to exist first)", to.describe())
			}
			return true
		}
	}
	return false
}

// findCycles reports each cycle among resolved resources to onCycle.
func (l *loader) findCycles(onCycle func([]*entry)) {
	index := make(map[*entry]int, len(l.entries))
	for i, e := range l.entries {
		index[e] = i
	}
	depthFirst(len(l.entries), func(i int) []int {
		e := l.entries[i]
		if e.state != idDone {
			return nil
		}
		var next []int
		for _, ed := range e.edges {
			if ed.to.state == idDone {
				next = append(next, index[ed.to])
			}
		}
		return next
	}, func(c []int) {
		cycle := make([]*entry, len(c))
		for k, i := range c {
			cycle[k] = l.entries[i]
		}
		onCycle(cycle)
	})
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
