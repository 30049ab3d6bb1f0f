// Package apiversion compares ARM api-versions ("2023-05-01",
// "2021-06-01-preview") by the date they start with. The registry and the
// index generator both pick the nearest version with it, so a lookup and
// the generator's choice of Swagger facts agree.
package apiversion

import (
	"strings"
	"time"
)

// Date reads the date an api-version starts with.
func Date(v string) (time.Time, bool) {
	if len(v) < 10 {
		return time.Time{}, false
	}
	t, err := time.Parse("2006-01-02", v[:10])
	return t, err == nil
}

// Nearest returns the version in known (ascending) equal to want, compared
// case-insensitively, else the one closest to it by date; on a tie the
// newer wins, since services add fields more often than they remove them.
// When no date can be compared it returns the last of known, and "" when
// known is empty.
func Nearest(known []string, want string) string {
	best, bestDist := "", time.Duration(-1)
	wt, wok := Date(want)
	for _, v := range known {
		if strings.EqualFold(v, want) {
			return v
		}
		t, ok := Date(v)
		if !ok || !wok {
			continue
		}
		d := t.Sub(wt)
		if d < 0 {
			d = -d
		}
		if bestDist < 0 || d < bestDist || (d == bestDist && v > best) {
			best, bestDist = v, d
		}
	}
	if best == "" && len(known) > 0 {
		best = known[len(known)-1]
	}
	return best
}
