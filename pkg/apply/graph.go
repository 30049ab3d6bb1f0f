package apply

import (
	"fmt"
	"sort"
	"strings"
)

// key is the case-insensitive identity of an ARM resource.
func key(id string) string { return strings.ToLower(strings.TrimRight(id, "/")) }

// isAncestor reports whether parent's ID is a proper prefix of child's ID at a
// path boundary: resource groups contain their resources, a vnet its subnets,
// a storage account the role assignments scoped to it.
func isAncestor(parent, child string) bool {
	p, c := key(parent), key(child)
	return len(c) > len(p) && strings.HasPrefix(c, p) && c[len(p)] == '/'
}

// linkDeps fills each item's deps from declared dependencies (parents,
// scopes, references) and from ID containment, limited to items in the run.
// It fails on a cycle, naming it.
func linkDeps(items []*item) error {
	byKey := make(map[string]*item, len(items))
	for _, it := range items {
		byKey[key(it.id)] = it
	}
	for _, it := range items {
		seen := map[*item]bool{}
		add := func(d *item) {
			if d != nil && d != it && !seen[d] {
				seen[d] = true
				it.deps = append(it.deps, d)
			}
		}
		for _, d := range it.declaredDeps {
			add(byKey[key(d)])
		}
		// Nearest managed ancestor only: transitive edges add nothing.
		for p := parentPath(it.id); p != ""; p = parentPath(p) {
			if d := byKey[key(p)]; d != nil {
				add(d)
				break
			}
		}
		sort.Slice(it.deps, func(i, j int) bool { return key(it.deps[i].id) < key(it.deps[j].id) })
	}
	return findCycle(items)
}

// parentPath strips the last type/name pair (or the "/providers/NS/type/name"
// of an extension resource) from an ARM ID.
func parentPath(id string) string {
	parts := strings.Split(strings.Trim(id, "/"), "/")
	if len(parts) < 2 {
		return ""
	}
	parts = parts[:len(parts)-2]
	// ".../providers/Microsoft.X" is not a resource: drop the namespace too.
	if n := len(parts); n >= 2 && strings.EqualFold(parts[n-2], "providers") {
		parts = parts[:n-2]
	}
	if len(parts) == 0 {
		return ""
	}
	return "/" + strings.Join(parts, "/")
}

func findCycle(items []*item) error {
	const (
		white = iota
		grey
		black
	)
	color := map[*item]int{}
	var stack []*item
	var visit func(*item) error
	visit = func(it *item) error {
		color[it] = grey
		stack = append(stack, it)
		for _, d := range it.deps {
			switch color[d] {
			case grey:
				var names []string
				start := 0
				for i, s := range stack {
					if s == d {
						start = i
					}
				}
				for _, s := range stack[start:] {
					names = append(names, s.display())
				}
				return fmt.Errorf("dependency cycle: %s -> %s", strings.Join(names, " -> "), d.display())
			case white:
				if err := visit(d); err != nil {
					return err
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[it] = black
		return nil
	}
	for _, it := range items {
		if color[it] == white {
			if err := visit(it); err != nil {
				return err
			}
		}
	}
	return nil
}
