package plugins

import "sort"

// Types lists the registered types, sorted.
func Types() []string {
	out := make([]string, 0, len(Registry))
	for k := range Registry {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
