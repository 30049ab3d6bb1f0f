package emulator

import (
	"maps"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// ARM answers its generic lists (GET /subscriptions/{id}/resources and
// .../resourceGroups/{rg}/resources) from its cache of tracked resources,
// not from the resource providers, and that cache catches up with writes
// some time later: Azure/ARO-RP pull request 1398 ("resource gets in
// list_resources should not be fatal if the ARM cache is out of date"),
// Azure/azure-cli issue 29566 (new tags visible in the list only "after a
// couple of seconds"). GETs and the per-type lists come from the provider
// and are always current.
//
// With Options.CacheLag = L > 0 the generic lists answer every resource as
// it was L ago: one created less than L ago is absent, one deleted less
// than L ago is still listed as it was, and its envelope fields and times
// are those of its last change older than L. The cache keeps, per
// top-level resource, only the envelope view (what the list shows), and
// only the versions a list can still show: the newest one older than L
// and the newer ones.

// listVersion is one state of a resource as the generic lists show it.
type listVersion struct {
	at      time.Time      // when the resource took this state; zero: always visible (seeded)
	gone    bool           // deleted at `at`
	view    map[string]any // genericView of the body
	created time.Time
	changed time.Time
	state   string // properties.provisioningState
}

// versionOf is the generic-list view of a live resource.
func versionOf(r *resource) listVersion {
	// genericView(withEnvelope(r)) without copying the whole body first.
	view := genericView(r.Body)
	if _, ok := view["id"]; !ok {
		view["id"] = r.ID
	}
	if p, ok := armid.ParsePath(r.ID); ok {
		if _, has := view["name"]; !has {
			view["name"] = p.Name()
		}
		if _, has := view["type"]; !has {
			view["type"] = p.Type()
		}
	}
	return listVersion{view: view, created: r.Created, changed: r.Changed, state: provisioningState(r.Body)}
}

func (v listVersion) same(o listVersion) bool {
	return v.gone == o.gone && v.state == o.state && v.created.Equal(o.created) && v.changed.Equal(o.changed) && reflect.DeepEqual(v.view, o.view)
}

// item is the list entry: the view plus what $expand asks for
// (GenericResourceExpanded: createdTime, changedTime, provisioningState).
func (v listVersion) item(expand string) map[string]any {
	// A shallow copy: only top-level keys are added, and nothing writes
	// into a listed item's values.
	out := maps.Clone(v.view)
	if strings.Contains(expand, "createdtime") {
		out["createdTime"] = v.created.UTC().Format(time.RFC3339Nano)
	}
	if strings.Contains(expand, "changedtime") {
		out["changedTime"] = v.changed.UTC().Format(time.RFC3339Nano)
	}
	if strings.Contains(expand, "provisioningstate") {
		out["provisioningState"] = v.state
	}
	return out
}

// cacheEntry is one top-level resource's history, oldest first.
type cacheEntry struct {
	sub, group string
	versions   []listVersion
}

// visible is the version a list made at cutoff shows, or nil.
func (e *cacheEntry) visible(cutoff time.Time) *listVersion {
	for i := len(e.versions) - 1; i >= 0; i-- {
		if v := &e.versions[i]; !v.at.After(cutoff) {
			if v.gone {
				return nil
			}
			return v
		}
	}
	return nil
}

// prune drops the versions no list made at or after cutoff can show. It
// reports whether nothing is left to show ever again.
func (e *cacheEntry) prune(cutoff time.Time) bool {
	i := -1
	for j, v := range e.versions {
		if v.at.After(cutoff) {
			break
		}
		i = j
	}
	if i > 0 {
		e.versions = append(e.versions[:0], e.versions[i:]...)
	}
	return len(e.versions) == 1 && e.versions[0].gone && !e.versions[0].at.After(cutoff)
}

// listCache is ARM's lagging cache behind the generic lists. The Server's
// mutex guards it.
type listCache struct {
	lag     time.Duration
	entries map[string]*cacheEntry // by lower-cased top-level resource ID
}

func newListCache(lag time.Duration) *listCache {
	if lag <= 0 {
		return nil
	}
	return &listCache{lag: lag, entries: map[string]*cacheEntry{}}
}

// record notes res (nil: deleted) as the state of the top-level resource
// key from at on. A zero at (a seed) replaces the history: seeds are the
// world as it already was.
func (c *listCache) record(key, sub, group string, res *resource, at, now time.Time) {
	e := c.entries[key]
	var v listVersion
	if res == nil {
		if e == nil || e.versions[len(e.versions)-1].gone {
			return
		}
		v = listVersion{gone: true}
	} else {
		v = versionOf(res)
	}
	v.at = at
	switch {
	case e == nil:
		e = &cacheEntry{sub: sub, group: group}
		c.entries[key] = e
	case at.IsZero():
		e.versions = e.versions[:0]
	case e.versions[len(e.versions)-1].same(v):
		return
	}
	// Settled operations are recorded at their end time, which may precede
	// a version already recorded: keep the history in time order.
	i := len(e.versions)
	for i > 0 && e.versions[i-1].at.After(at) {
		i--
	}
	e.versions = append(e.versions, listVersion{})
	copy(e.versions[i+1:], e.versions[i:])
	e.versions[i] = v
	if e.prune(now.Add(-c.lag)) {
		delete(c.entries, key)
	}
}

// list returns what a generic list of the subscription (group "") or
// group shows at now, sorted by ID as the store's lists are.
func (c *listCache) list(sub, group string, now time.Time) []listVersion {
	cutoff := now.Add(-c.lag)
	var keys []string
	for k, e := range c.entries {
		if e.prune(cutoff) {
			delete(c.entries, k)
			continue
		}
		if !strings.EqualFold(e.sub, sub) || (group != "" && !strings.EqualFold(e.group, group)) {
			continue
		}
		if e.visible(cutoff) != nil {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := make([]listVersion, 0, len(keys))
	for _, k := range keys {
		out = append(out, *c.entries[k].visible(cutoff))
	}
	return out
}

// topLevelOf returns the lower-cased ID of the top-level resource (directly
// in a subscription or resource group) that id is, or is a child or
// extension of, with its subscription and group; ok is false for IDs with
// none (groups, tenant-level resources).
func topLevelOf(id string) (key, sub, group string, ok bool) {
	p, valid := armid.ParsePath(id)
	if !valid || p.Kind != armid.PathResource || p.Subscription == "" || untracked(p) {
		return "", "", "", false
	}
	want := "/subscriptions/" + p.Subscription
	if p.ResourceGroup != "" {
		want += "/resourceGroups/" + p.ResourceGroup
	}
	if !strings.EqualFold(p.Scope, want) {
		if p.Scope == "" || strings.EqualFold(p.Scope, "/subscriptions/"+p.Subscription) {
			return "", "", "", false
		}
		return topLevelOf(p.Scope)
	}
	return armid.Key(p.Scope + "/providers/" + p.Provider + "/" + p.Types[0] + "/" + p.Names[0]), p.Subscription, p.ResourceGroup, true
}

// syncListCacheLocked records in the list cache, as of at, every resource
// the store changed since the last call and the resources extra names
// (edits made in place, without store.put). Caller holds s.mu.
func (s *Server) syncListCacheLocked(at time.Time, extra ...string) {
	if s.cache == nil {
		return
	}
	for _, id := range extra {
		s.store.changed[armid.Key(id)] = true
	}
	if len(s.store.changed) == 0 {
		return
	}
	now := s.now()
	done := map[string]bool{}
	for k := range s.store.changed {
		delete(s.store.changed, k)
		top, sub, group, ok := topLevelOf(k)
		if !ok || done[top] {
			continue
		}
		done[top] = true
		s.cache.record(top, sub, group, s.store.res[top], at, now)
	}
}

// newStoreLocked is an empty store that tracks its changes when the list
// cache needs them.
func (s *Server) newStoreLocked() *store {
	st := newStore()
	if s.cache != nil {
		st.changed = map[string]bool{}
	}
	return st
}
