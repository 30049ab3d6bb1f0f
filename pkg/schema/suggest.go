package schema

import (
	"sort"
	"strings"
)

// Suggest returns up to three candidates close to s, for a "did you mean":
// the same name in another case first, then those within a small edit
// distance (a typo or two, scaled to the length) or that begin with s or
// that s begins with (when s has four characters or more), closest first;
// nil when none is close.
func Suggest(s string, candidates []string) []string {
	ls := strings.ToLower(s)
	type scored struct {
		c string
		d int
	}
	var out []scored
	limit := max(1, min(3, len(ls)/3))
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := editDistance(ls, lc)
		if d <= limit || (len(ls) >= 4 && (strings.HasPrefix(lc, ls) || strings.HasPrefix(ls, lc))) {
			out = append(out, scored{c, d})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].d != out[j].d {
			return out[i].d < out[j].d
		}
		return out[i].c < out[j].c
	})
	names := make([]string, 0, 3)
	for i := 0; i < len(out) && i < 3; i++ {
		names = append(names, out[i].c)
	}
	if len(names) == 0 {
		return nil
	}
	return names
}

// editDistance is the Levenshtein distance over bytes (names are ASCII),
// the measure Suggest ranks by.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
