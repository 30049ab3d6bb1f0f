package emulator

import (
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"
)

// typeLister is the part of *schema.Registry the providers API needs.
type typeLister interface {
	Types() []string
	Versions(typ string) []string
}

// serveProviders answers the providers API from the schema index:
// GET [/subscriptions/{s}]/providers[/{ns}] and POST …/providers/{ns}/register.
// It reports false for any other path.
func (s *Server) serveProviders(w http.ResponseWriter, r *http.Request) bool {
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	sub := ""
	if len(segs) >= 2 && strings.EqualFold(segs[0], "subscriptions") {
		sub, segs = segs[1], segs[2:]
	}
	if sub != "" && len(segs) == 1 && strings.EqualFold(segs[0], "locations") && r.Method == http.MethodGet {
		s.write(w, r, s.page(r, locationItems(sub)))
		return true
	}
	if len(segs) == 0 || !strings.EqualFold(segs[0], "providers") || len(segs) > 3 {
		return false
	}
	if len(segs) == 3 && !(r.Method == http.MethodPost && (strings.EqualFold(segs[2], "register") || strings.EqualFold(segs[2], "unregister"))) {
		return false
	}
	if len(segs) < 3 && r.Method != http.MethodGet {
		s.write(w, r, methodNotAllowed(r.Method))
		return true
	}
	byNS := s.providerTypes()
	if len(segs) == 1 {
		names := make([]string, 0, len(byNS))
		for ns := range byNS {
			names = append(names, ns)
		}
		sort.Strings(names)
		items := make([]any, 0, len(names))
		for _, ns := range names {
			items = append(items, providerBody(sub, ns, byNS[ns]))
		}
		s.write(w, r, s.page(r, items))
		return true
	}
	ns := ""
	for k := range byNS {
		if strings.EqualFold(k, segs[1]) {
			ns = k
		}
	}
	if ns == "" {
		s.write(w, r, reply{err: newError(http.StatusNotFound, "InvalidResourceNamespace",
			"The resource namespace '%s' is invalid. Check the spelling; the emulator knows the namespaces of its schema index.", segs[1])})
		return true
	}
	s.write(w, r, reply{status: http.StatusOK, body: providerBody(sub, ns, s.widened(byNS[ns]))})
	return true
}

// widened gives every type of one namespace every api-version the index
// knows in any namespace. ARM's own answer is the only authority on what
// it serves, and the emulator cannot know it: real traffic and public
// templates use versions no spec of the type's namespace has
// (Microsoft.Authorization/roleAssignments@2021-04-01-preview,
// Microsoft.Network@2017-04-01), and the emulator accepts any version
// dated between ARM's first and today (checkTypeAndVersion). So a client
// that asks this namespace's answer whether a version is served must not
// be told no for a version the emulator would take; versions are dates
// ARM's providers share, and the index's union of them covers what was
// seen. Only the one-namespace answer is widened: the list of every
// namespace would be thousands of types times as many versions.
func (s *Server) widened(types map[string][]string) map[string][]string {
	s.wideOnce.Do(func() {
		seen := map[string]bool{}
		for _, vs := range s.providerTypes() {
			for _, list := range vs {
				for _, v := range list {
					seen[v] = true
				}
				break // every type of a namespace has the same list
			}
		}
		for v := range seen {
			s.wideVers = append(s.wideVers, v)
		}
		sort.Sort(sort.Reverse(sort.StringSlice(s.wideVers)))
	})
	out := make(map[string][]string, len(types))
	for t := range types {
		out[t] = s.wideVers
	}
	return out
}

// providerTypes groups the index's types by namespace, with the
// api-versions the providers API lists for each, newest first: every
// version any type of the namespace has. ARM's providers register their
// versions for the namespace, and real traffic used versions a type's own
// spec lacks (a template's backupstorageconfig@2020-02-02, the SFTP
// quickstart's localUsers@2021-04-01), so a client that asks ARM whether
// it serves a version must not be told no for those. Built once.
func (s *Server) providerTypes() map[string]map[string][]string {
	s.provOnce.Do(func() {
		out := map[string]map[string][]string{}
		tl, ok := s.opts.Schema.(typeLister)
		if !ok || tl == nil {
			s.provTypes = out
			return
		}
		// The index spells some namespaces more than one way (types the
		// Network spec defines under "Microsoft.compute"); ARM answers
		// one provider per namespace, so they are grouped ignoring case
		// under the spelling most of its types use.
		nsVersions := map[string]map[string]bool{}
		spellings := map[string]map[string]int{}    // lower(ns) -> spelling -> types
		typeNames := map[string]map[string]string{} // lower(ns) -> lower(type) -> spelling
		for _, t := range tl.Types() {
			ns, rest, ok := strings.Cut(t, "/")
			if !ok {
				continue
			}
			key := strings.ToLower(ns)
			if spellings[key] == nil {
				spellings[key] = map[string]int{}
				typeNames[key] = map[string]string{}
				nsVersions[key] = map[string]bool{}
			}
			spellings[key][ns]++
			if _, dup := typeNames[key][strings.ToLower(rest)]; !dup {
				typeNames[key][strings.ToLower(rest)] = rest
			}
			for _, v := range tl.Versions(t) {
				nsVersions[key][v] = true
			}
			for _, v := range retiredOf(ns) {
				nsVersions[key][v] = true
			}
		}
		for key, names := range typeNames {
			ns := mostUsed(spellings[key])
			out[ns] = map[string][]string{}
			for _, rest := range names {
				out[ns][rest] = nil
			}
		}
		for ns, types := range out {
			vs := nsVersions[strings.ToLower(ns)]
			all := make([]string, 0, len(vs))
			for v := range vs {
				all = append(all, v)
			}
			sort.Sort(sort.Reverse(sort.StringSlice(all)))
			for t := range types {
				types[t] = all
			}
		}
		s.provTypes = out
	})
	return s.provTypes
}

// mostUsed is the spelling with the highest count (the first in order on
// a tie, so the answer is stable).
func mostUsed(counts map[string]int) string {
	best := ""
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		if best == "" || counts[k] > counts[best] {
			best = k
		}
	}
	return best
}

func providerBody(sub, ns string, types map[string][]string) map[string]any {
	names := make([]string, 0, len(types))
	for t := range types {
		names = append(names, t)
	}
	sort.Strings(names)
	rts := make([]any, 0, len(names))
	locs := regionDisplayNames()
	for _, t := range names {
		rt := map[string]any{"resourceType": t, "apiVersions": types[t]}
		if !strings.Contains(t, "/") {
			rt["locations"] = locs
		} else {
			rt["locations"] = []string{}
		}
		rts = append(rts, rt)
	}
	id := "/providers/" + ns
	if sub != "" {
		id = "/subscriptions/" + sub + id
	}
	return map[string]any{
		"id":                 id,
		"namespace":          ns,
		"registrationState":  "Registered",
		"registrationPolicy": "RegistrationRequired",
		"resourceTypes":      rts,
	}
}

// locationItems is GET /subscriptions/{id}/locations: every public region.
func locationItems(sub string) []any {
	names := sortedRegionKeys()
	out := make([]any, 0, len(names))
	for _, n := range names {
		out = append(out, map[string]any{
			"id":                  "/subscriptions/" + sub + "/locations/" + n,
			"name":                n,
			"type":                "Region",
			"displayName":         regions[n],
			"regionalDisplayName": regions[n],
			"metadata":            map[string]any{"regionType": "Physical", "regionCategory": "Recommended", "pairedRegion": pairedRegionRefs(sub, n)},
		})
	}
	return out
}

// pairedRegionRefs is a region's metadata.pairedRegion as the locations API
// lists it (Subscriptions - List Locations, 2022-12-01: name and id of the
// pair; empty for a region without one).
func pairedRegionRefs(sub, region string) []any {
	pair := pairedRegion(region)
	if pair == "" {
		return []any{}
	}
	return []any{map[string]any{"name": pair, "id": "/subscriptions/" + sub + "/locations/" + pair}}
}
