package plugins

import "sort"

// Types lists the registered types, sorted.
func Types() []string {
	plugins := registry().plugins
	out := make([]string, 0, len(plugins))
	for k := range plugins {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
