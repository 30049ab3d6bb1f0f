package schema

import (
	"strings"
	"time"
)

// nearestVersion picks want from known (ascending) when present
// (case-insensitive), else the closest by date; on a tie the newer wins,
// since services add fields more often than they remove them. An empty
// want selects the newest stable version (a preview only when nothing
// else exists).
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
	wt, ok := versionDate(want)
	if !ok {
		return known[len(known)-1], false
	}
	best, bestDist := "", time.Duration(-1)
	for _, v := range known {
		t, ok := versionDate(v)
		if !ok {
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
	if best == "" {
		return known[len(known)-1], false
	}
	return best, false
}

// versionDate reads the date at the start of an api-version
// ("2023-05-01", "2021-06-01-preview").
func versionDate(v string) (time.Time, bool) {
	if len(v) < 10 {
		return time.Time{}, false
	}
	t, err := time.Parse("2006-01-02", v[:10])
	return t, err == nil
}

// NewestVersion returns the newest stable api-version of a type, or ""
// when the type is unknown.
func (r *Registry) NewestVersion(typ string) string {
	v, _ := nearestVersion(r.Versions(typ), "")
	return v
}
