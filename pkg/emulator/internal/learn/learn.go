// Package learn derives the emulator's per-type quirks from recorded ARM
// traffic: for every PUT→GET pair it notes what the server added, dropped,
// re-cased, reordered or rewrote, and keeps the behaviours seen in at least
// half of the records where they could have happened.
package learn

import (
	"encoding/json"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
)

// minShare is how often a behaviour must be seen, among the records where
// it could have happened, to become part of the profile.
const minShare = 0.5

// envelope paths are set by the server itself, not by the profile.
func envelopePath(g string) bool {
	top := g
	if i := strings.IndexAny(g, ".["); i >= 0 {
		top = g[:i]
	}
	switch top {
	case "id", "name", "type", "etag", "systemData", "tags":
		return true
	}
	return g == "properties.provisioningState"
}

// unchanged is the outcome recorded when GET echoed a value as sent.
const unchanged = "="

// counter counts how often something happened out of how often it could.
type counter struct{ hit, of int }

func (c counter) ok() bool { return c.of > 0 && float64(c.hit)/float64(c.of) >= minShare }

// votes picks the most frequent string, ties broken alphabetically.
type votes map[string]int

func (v votes) best() (string, int) {
	best, n := "", -1
	for k, c := range v {
		if c > n || (c == n && k < best) {
			best, n = k, c
		}
	}
	return best, n
}

// typeStats accumulates what one type's records show.
type typeStats struct {
	records    []Record
	typeNames  votes
	putStatus  votes
	etag       votes
	systemData counter
	idCase     votes
	fullName   counter
	nulls      counter

	added     map[string]bool  // candidate added paths
	addedVals map[string]votes // path -> templated JSON value -> count
	dropped   map[string]*counter
	values    map[string]map[string]votes // path -> put JSON -> get JSON -> count
	locPaths  map[string]*counter
	idPaths   map[string]votes // path -> case rule -> count
	sorted    map[string]*counter
}

func newTypeStats() *typeStats {
	return &typeStats{
		typeNames: votes{}, putStatus: votes{}, etag: votes{}, idCase: votes{},
		added: map[string]bool{}, addedVals: map[string]votes{}, dropped: map[string]*counter{},
		values: map[string]map[string]votes{}, locPaths: map[string]*counter{},
		idPaths: map[string]votes{}, sorted: map[string]*counter{},
	}
}

// Learn builds a profile from PUT→GET pairs.
func Learn(recs []Record) *emulator.Profile {
	locs := learnLocations(recs)
	byType := map[string]*typeStats{}
	var order []string
	for _, r := range recs {
		k := strings.ToLower(r.ResourceType)
		ts := byType[k]
		if ts == nil {
			ts = newTypeStats()
			byType[k] = ts
			order = append(order, k)
		}
		ts.records = append(ts.records, r)
		ts.observe(r, locs)
	}
	prof := &emulator.Profile{
		Source:    "azure-cli-extensions/roundtrips.jsonl.gz (" + itoa(len(recs)) + " PUT/GET pairs)",
		Locations: map[string]string{},
		Types:     map[string]*emulator.TypeProfile{},
	}
	for k, v := range locs {
		prof.Locations[k] = v
	}
	sort.Strings(order)
	for _, k := range order {
		prof.Types[k] = byType[k].profile()
	}
	return prof
}

// learnLocations collects name → display name pairs from every location
// the corpus shows re-spelled ("westus2" sent, "West US 2" returned).
func learnLocations(recs []Record) map[string]string {
	seen := map[string]votes{}
	for _, r := range recs {
		get := bodypath.Flatten(r.GetBody)
		for c, pv := range bodypath.Flatten(r.PutBody) {
			ps, ok1 := pv.(string)
			gs, ok2 := get[c].(string)
			if !ok1 || !ok2 || ps == gs || ps != strings.ToLower(ps) || strings.Contains(ps, "/") {
				continue
			}
			if emulator.LocationKey(ps) == emulator.LocationKey(gs) && strings.Contains(gs, " ") || looksLikeLocationDisplay(ps, gs) {
				if seen[ps] == nil {
					seen[ps] = votes{}
				}
				seen[ps][gs]++
			}
		}
	}
	out := map[string]string{}
	for k, v := range seen {
		out[emulator.LocationKey(k)], _ = v.best()
	}
	return out
}

// looksLikeLocationDisplay accepts staging regions whose display name has a
// suffix: "northcentralusstage" → "North Central US (Stage)".
func looksLikeLocationDisplay(name, disp string) bool {
	k := strings.NewReplacer(" ", "", "(", "", ")", "").Replace(strings.ToLower(disp))
	return k == name && strings.Contains(disp, " ")
}

func (ts *typeStats) observe(r Record, locs map[string]string) {
	get, put := r.GetBody, r.PutBody
	if t, ok := get["type"].(string); ok {
		ts.typeNames[t]++
	}
	ts.putStatus[itoa(r.PutStatus)]++
	switch e, _ := get["etag"].(string); {
	case e == "":
		ts.etag[""]++
	case strings.HasPrefix(e, "W/"):
		ts.etag["weak"]++
	default:
		ts.etag["strong"]++
	}
	ts.systemData.of++
	if _, ok := get["systemData"]; ok {
		ts.systemData.hit++
	}
	if id, ok := get["id"].(string); ok && strings.EqualFold(id, r.ID) {
		ts.idCase[emulator.ClassifyCase(r.ID, id)]++
	}
	if names := idNames(r.ID); len(names) > 1 {
		ts.fullName.of++
		if n, _ := get["name"].(string); n == strings.Join(names, "/") {
			ts.fullName.hit++
		}
	}
	tpl := newTemplater(r)

	// Keys the server added: absent from the request, parent present in it.
	bodypath.Walk(get, func(n bodypath.Node) {
		if envelopePath(n.General) {
			return
		}
		if _, inPut := bodypath.Get(put, n.Concrete); inPut {
			return
		}
		if parent := bodypath.Parent(n.Concrete); parent != "" {
			if _, ok := bodypath.Get(put, parent); !ok {
				return
			}
		}
		ts.added[n.General] = true
		if ts.addedVals[n.General] == nil {
			ts.addedVals[n.General] = votes{}
		}
		ts.addedVals[n.General][jsonText(tpl.value(n.Value))]++
	})

	// Request values: dropped, rewritten, re-cased, relocated, reordered.
	droppedHere, seenHere := map[string]bool{}, map[string]bool{}
	bodypath.Walk(put, func(n bodypath.Node) {
		if envelopePath(n.General) {
			return
		}
		gv, inGet := bodypath.Get(get, n.Concrete)
		if n.Value == nil {
			// An explicit null: count whether GET leaves it out altogether.
			ts.nulls.of++
			if !inGet {
				ts.nulls.hit++
				return
			}
		}
		if !inGet {
			if parent := bodypath.Parent(n.Concrete); parent == "" || hasPath(get, parent) {
				seenHere[n.General] = true
				droppedHere[n.General] = true
			}
			return
		}
		seenHere[n.General] = true
		if !IsLeaf(n.Value) {
			return
		}
		ts.observeValue(n.General, n.Value, gv, locs, tpl)
	})
	for g := range seenHere {
		c := ts.dropped[g]
		if c == nil {
			c = &counter{}
			ts.dropped[g] = c
		}
		c.of++
		if droppedHere[g] {
			c.hit++
		}
	}
}

func (ts *typeStats) observeValue(g string, pv, gv any, locs map[string]string, tpl templater) {
	ps, pIsStr := pv.(string)
	gs, gIsStr := gv.(string)
	// Location names.
	if pIsStr && locs[emulator.LocationKey(ps)] != "" {
		c := ts.locPaths[g]
		if c == nil {
			c = &counter{}
			ts.locPaths[g] = c
		}
		c.of++
		if gIsStr && gs == locs[emulator.LocationKey(ps)] && gs != ps {
			c.hit++
			return
		}
	}
	// ARM IDs.
	if pIsStr && gIsStr && strings.HasPrefix(ps, "/") && strings.EqualFold(ps, gs) {
		if ts.idPaths[g] == nil {
			ts.idPaths[g] = votes{}
		}
		ts.idPaths[g][emulator.ClassifyCase(ps, gs)]++
		return
	}
	// Reordered arrays.
	if pa, ok := pv.([]any); ok && len(pa) > 1 {
		if ga, ok := gv.([]any); ok && sameItems(pa, ga) {
			c := ts.sorted[g]
			if c == nil {
				c = &counter{}
				ts.sorted[g] = c
			}
			c.of++
			if !reflect.DeepEqual(pa, ga) && reflect.DeepEqual(sortedCopy(pa), ga) {
				c.hit++
			}
			return
		}
	}
	// Anything else: a literal put → get mapping, case-insensitive for
	// strings that only changed case (enum values).
	key := jsonText(pv)
	if pIsStr && gIsStr && ps != gs && strings.EqualFold(ps, gs) {
		key = "ci:" + strings.ToLower(ps)
	}
	if ts.values[g] == nil {
		ts.values[g] = map[string]votes{}
	}
	if ts.values[g][key] == nil {
		ts.values[g][key] = votes{}
	}
	outcome := unchanged
	if !reflect.DeepEqual(pv, gv) {
		outcome = jsonText(tpl.value(gv))
	}
	ts.values[g][key][outcome]++
}

// profile turns the counts into the emitted profile.
func (ts *typeStats) profile() *emulator.TypeProfile {
	tp := &emulator.TypeProfile{Records: len(ts.records)}
	tp.Type, _ = ts.typeNames.best()
	if tp.Type == "" {
		tp.Type = ts.records[0].ResourceType
	}
	if s, _ := ts.putStatus.best(); s != "" {
		tp.PutStatus = atoi(s)
	}
	tp.Etag, _ = ts.etag.best()
	tp.SystemData = ts.systemData.ok()
	if rule, n := ts.idCase.best(); rule != "?" && n*2 >= len(ts.records) {
		tp.IDCase = rule
	}
	tp.FullName = ts.fullName.ok()
	tp.DropNulls = ts.nulls.ok()

	// Added keys: count eligibility in a second pass, now that the
	// candidate paths are known.
	for g := range ts.added {
		var c counter
		for _, r := range ts.records {
			eligible, added := false, false
			bodypath.Parents(r.PutBody, g, func(obj map[string]any, key string) {
				if _, ok := obj[key]; !ok {
					eligible = true
				}
			})
			if strings.Count(g, ".") == 0 && !strings.Contains(g, "[") {
				_, inPut := r.PutBody[g]
				eligible = !inPut
			}
			if !eligible {
				continue
			}
			bodypath.Parents(r.GetBody, g, func(obj map[string]any, key string) {
				if _, ok := obj[key]; ok {
					added = true
				}
			})
			c.of++
			if added {
				c.hit++
			}
		}
		if !c.ok() {
			continue
		}
		if tp.Added == nil {
			tp.Added = map[string]any{}
		}
		best, _ := ts.addedVals[g].best()
		var v any
		_ = json.Unmarshal([]byte(best), &v)
		tp.Added[g] = v
	}

	for g, c := range ts.dropped {
		if c.ok() && c.hit > 0 {
			tp.Dropped = append(tp.Dropped, g)
		}
	}
	sort.Strings(tp.Dropped)
	for g, c := range ts.locPaths {
		if c.ok() {
			tp.LocationPaths = append(tp.LocationPaths, g)
		}
	}
	sort.Strings(tp.LocationPaths)
	for g, v := range ts.idPaths {
		if rule, n := v.best(); rule != "" && rule != "?" && n*2 >= total(v) {
			if tp.IDPaths == nil {
				tp.IDPaths = map[string]string{}
			}
			tp.IDPaths[g] = rule
		}
	}
	for g, c := range ts.sorted {
		if c.ok() && c.hit > 0 {
			tp.SortedPaths = append(tp.SortedPaths, g)
		}
	}
	sort.Strings(tp.SortedPaths)
	for g, byPut := range ts.values {
		for putKey, outcomes := range byPut {
			best, n := outcomes.best()
			if best == unchanged || n*2 < total(outcomes) {
				continue
			}
			if tp.Values == nil {
				tp.Values = map[string]map[string]string{}
			}
			if tp.Values[g] == nil {
				tp.Values[g] = map[string]string{}
			}
			tp.Values[g][putKey] = best
		}
	}
	return tp
}

// IsLeaf reports whether v is a value the profile records as one: not an
// object, nor an array holding objects.
func IsLeaf(v any) bool {
	switch t := v.(type) {
	case map[string]any:
		return false
	case []any:
		for _, e := range t {
			if _, ok := e.(map[string]any); ok {
				return false
			}
		}
	}
	return true
}

func hasPath(v any, concrete string) bool {
	_, ok := bodypath.Get(v, concrete)
	return ok
}

func sameItems(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	return reflect.DeepEqual(sortedCopy(a), sortedCopy(b))
}

// sortedCopy orders like the emulator's sortArray: objects by name, scalars
// by JSON text.
func sortedCopy(a []any) []any {
	out := append([]any(nil), a...)
	key := func(v any) string {
		if m, ok := v.(map[string]any); ok {
			if n, ok := m["name"].(string); ok {
				return strings.ToLower(n)
			}
		}
		return jsonText(v)
	}
	sort.SliceStable(out, func(i, j int) bool { return key(out[i]) < key(out[j]) })
	return out
}

func total(v votes) int {
	n := 0
	for _, c := range v {
		n += c
	}
	return n
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// idNames returns the name segments of an ARM ID below its provider block.
func idNames(id string) []string {
	segs := strings.Split(strings.Trim(id, "/"), "/")
	for i := len(segs) - 1; i >= 0; i-- {
		if strings.EqualFold(segs[i], "providers") {
			var names []string
			for j := i + 3; j < len(segs); j += 2 {
				names = append(names, segs[j])
			}
			return names
		}
	}
	return nil
}

func itoa(n int) string { return strconv.Itoa(n) }

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
