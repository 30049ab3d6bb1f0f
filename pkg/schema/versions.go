package schema

import (
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema/internal/apiversion"
)

// nearestVersion picks want from known (ascending) when present
// (case-insensitive; exact is then true), else the nearest by date as the
// generator picks Swagger facts (apiversion.Nearest). An empty want
// selects the newest stable version (a preview only when nothing else
// exists).
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
	return apiversion.Nearest(known, want), false
}

// NewestVersion returns the newest stable api-version of a type, or ""
// when the type is unknown.
func (r *Registry) NewestVersion(typ string) string {
	v, _ := nearestVersion(r.Versions(typ), "")
	return v
}

// SuggestVersions returns up to n of known closest to want, for a "did
// you mean": by date when want starts with one (a typo in the day or a
// version that does not exist), else by text (the date written another
// way: 2023-5-1, 20230501), nearest first; the newest stable version when
// nothing is close.
func SuggestVersions(known []string, want string, n int) []string {
	if len(known) == 0 || n <= 0 {
		return nil
	}
	type scored struct {
		v string
		d float64
	}
	var out []scored
	wt, wok := apiversion.Date(want)
	digits := func(s string) string {
		var b strings.Builder
		for _, c := range s {
			if c >= '0' && c <= '9' {
				b.WriteRune(c)
			}
		}
		return b.String()
	}
	if !wok && digits(want) == "" {
		v, _ := nearestVersion(known, "")
		return []string{v}
	}
	for _, v := range known {
		switch t, ok := apiversion.Date(v); {
		case wok && ok:
			d := t.Sub(wt).Hours()
			if d < 0 {
				d = -d
			}
			out = append(out, scored{v, d})
		case !wok:
			d := float64(editDistance(digits(want), digits(v)))
			if strings.HasPrefix(digits(v), digits(want)) {
				d -= 100 // "2021" means a version of 2021
			}
			out = append(out, scored{v, d})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].d != out[j].d {
			return out[i].d < out[j].d
		}
		return out[i].v > out[j].v
	})
	var res []string
	for i := 0; i < len(out) && i < n; i++ {
		res = append(res, out[i].v)
	}
	if len(res) == 0 {
		if v, _ := nearestVersion(known, ""); v != "" {
			res = []string{v}
		}
	}
	return res
}
