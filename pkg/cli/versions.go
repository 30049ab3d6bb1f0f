package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// versionSource answers which api-versions ARM serves; *arm.Client does.
type versionSource interface {
	ProviderAPIVersions(ctx context.Context, subscription, namespace string) (map[string][]string, error)
}

var _ versionSource = (*arm.Client)(nil)

// checkVersions asks ARM about every api-version the schema index does not
// know, once per provider: one ARM serves is a warning (the body is then
// checked by ARM alone); one it does not serve is invalid input, named with
// the nearest versions it does.
func checkVersions(ctx context.Context, reg *schema.Registry, arm versionSource, set *manifest.Set, subscription string, warn io.Writer) error {
	byNS := map[string][]*manifest.Resource{}
	for _, r := range set.Resources {
		if r.APIVersion == "" || reg.HasVersion(r.Type, r.APIVersion) {
			continue
		}
		ns, _, _ := strings.Cut(r.Type, "/")
		byNS[strings.ToLower(ns)] = append(byNS[strings.ToLower(ns)], r)
	}
	namespaces := make([]string, 0, len(byNS))
	for ns := range byNS {
		namespaces = append(namespaces, ns)
	}
	sort.Strings(namespaces)
	var problems []manifest.Problem
	for _, ns := range namespaces {
		rs := byNS[ns]
		sub := subscription
		if s := armid.SubscriptionOf(rs[0].ID); s != "" {
			sub = s
		}
		served, err := arm.ProviderAPIVersions(ctx, sub, rs[0].Type[:len(ns)])
		if err != nil {
			fmt.Fprintf(warn, "warning: could not ask ARM which api-versions %s serves (%v); versions the schema index lacks are not validated\n", rs[0].Type[:len(ns)], err)
			continue
		}
		for _, r := range rs {
			vs := served[strings.ToLower(r.Type)]
			if slices.ContainsFunc(vs, func(v string) bool { return strings.EqualFold(v, r.APIVersion) }) {
				fmt.Fprintf(warn, "warning: %s: %s@%s is not in the schema index, but ARM serves it: only ARM will check the body\n", r.Origin, r.Type, r.APIVersion)
				continue
			}
			msg := fmt.Sprintf("ARM does not serve api-version %s for %s", r.APIVersion, r.Type)
			if near := nearestVersions(r.APIVersion, vs, 2); len(near) > 0 {
				sort.Strings(near)
				msg += "; nearest it serves: " + strings.Join(near, ", ")
			} else if len(vs) == 0 {
				msg += "; ARM does not list this type for the provider: check the type name"
			}
			problems = append(problems, manifest.Problem{File: r.Origin.File, Index: r.Origin.Index, Path: "spec.type", Message: msg, Severity: manifest.SeverityError})
		}
	}
	if len(problems) > 0 {
		return withCode(ExitValidation, &manifest.ValidationError{Problems: problems})
	}
	return nil
}

// nearestVersions returns up to n versions closest to v: api-versions are
// dates, so the closest ones by text sort next to it.
func nearestVersions(v string, vs []string, n int) []string {
	sorted := slices.Clone(vs)
	sort.Strings(sorted)
	i := sort.SearchStrings(sorted, v)
	var out []string
	for lo, hi := i-1, i; len(out) < n && (lo >= 0 || hi < len(sorted)); {
		if hi < len(sorted) && (lo < 0 || distance(v, sorted[hi]) <= distance(v, sorted[lo])) {
			out = append(out, sorted[hi])
			hi++
		} else {
			out = append(out, sorted[lo])
			lo--
		}
	}
	return out
}

// distance compares api-versions by their common prefix: more in common is
// closer.
func distance(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return -n
}
