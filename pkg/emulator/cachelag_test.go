package emulator

import (
	"net/http"
	"net/url"
	"testing"
	"time"
)

const (
	lagTest  = 10 * time.Second
	idType   = "Microsoft.ManagedIdentity/userAssignedIdentities"
	idAPIVer = "2023-01-31"
)

// lagWorld is an emulator with a settable clock and a group "rg".
type lagWorld struct {
	t     *testing.T
	s     *Server
	clock *fakeClock
	sub   string // base URL + /subscriptions/{id}
	group string // sub + /resourceGroups/rg
}

func startLagWorld(t *testing.T, lag time.Duration) *lagWorld {
	t.Helper()
	clock := &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	s := startTest(t, func(o *Options) {
		o.Now = clock.Now
		o.LRODuration = 0
		o.CacheLag = lag
	})
	w := &lagWorld{t: t, s: s, clock: clock, sub: s.URL() + "/subscriptions/" + testSub}
	w.group = w.sub + "/resourceGroups/rg"
	if r := do(t, http.MethodPut, w.group+"?api-version=2021-04-01", map[string]any{"location": "westeurope"}); r.Status/100 != 2 {
		t.Fatalf("PUT group: %d %s", r.Status, r.Raw)
	}
	return w
}

func (w *lagWorld) identity(name string) string {
	return w.group + "/providers/" + idType + "/" + name + "?api-version=" + idAPIVer
}

func (w *lagWorld) put(u string, body map[string]any) {
	w.t.Helper()
	if r := do(w.t, http.MethodPut, u, body); r.Status/100 != 2 {
		w.t.Fatalf("PUT %s: %d %s", u, r.Status, r.Raw)
	}
}

// list returns the items of a list by name (one page is enough here).
func (w *lagWorld) list(u string) map[string]map[string]any {
	w.t.Helper()
	r := do(w.t, http.MethodGet, u, nil)
	if r.Status != http.StatusOK {
		w.t.Fatalf("GET %s: %d %s", u, r.Status, r.Raw)
	}
	out := map[string]map[string]any{}
	vals, _ := r.Body["value"].([]any)
	for _, v := range vals {
		m, _ := v.(map[string]any)
		name, _ := m["name"].(string)
		out[name] = m
	}
	return out
}

// generic are the two generic lists ARM serves from its cache, with
// $expand=changedTime and a lower-cased type filter (ARM's filter ignores
// case).
func (w *lagWorld) generic() []string {
	q := "?api-version=2021-04-01&$expand=createdTime,changedTime,provisioningState&$filter=" + url.QueryEscape("resourceType eq 'microsoft.managedidentity/USERASSIGNEDIDENTITIES'")
	return []string{w.sub + "/resources" + q, w.group + "/resources" + q}
}

// direct are what the provider serves: never lagging.
func (w *lagWorld) direct() []string {
	return []string{
		w.sub + "/providers/" + idType + "?api-version=" + idAPIVer,
		w.group + "/providers/" + idType + "?api-version=" + idAPIVer,
	}
}

// expectGeneric checks what both generic lists show for name: absent
// (tags nil, present false) or its tags and changedTime.
func (w *lagWorld) expectGeneric(step, name string, present bool, env string, changed time.Time) {
	w.t.Helper()
	for _, u := range w.generic() {
		item, ok := w.list(u)[name]
		if ok != present {
			w.t.Errorf("%s: %s listed = %v, want %v (%s)", step, name, ok, present, u)
			continue
		}
		if !present {
			continue
		}
		tags, _ := item["tags"].(map[string]any)
		if tags["env"] != env {
			w.t.Errorf("%s: %s tags = %v, want env=%s", step, name, item["tags"], env)
		}
		if got, want := item["changedTime"], changed.UTC().Format(time.RFC3339Nano); got != want {
			w.t.Errorf("%s: %s changedTime = %v, want %s", step, name, got, want)
		}
	}
}

// expectDirect checks that GET and the per-type lists show the current
// state at once.
func (w *lagWorld) expectDirect(step, name string, present bool, env string) {
	w.t.Helper()
	r := do(w.t, http.MethodGet, w.identity(name), nil)
	if (r.Status == http.StatusOK) != present {
		w.t.Errorf("%s: GET %s = %d, want present=%v", step, name, r.Status, present)
	} else if present {
		if tags, _ := r.Body["tags"].(map[string]any); tags["env"] != env {
			w.t.Errorf("%s: GET %s tags = %v, want env=%s", step, name, r.Body["tags"], env)
		}
	}
	for _, u := range w.direct() {
		item, ok := w.list(u)[name]
		if ok != present {
			w.t.Errorf("%s: per-type list has %s = %v, want %v (%s)", step, name, ok, present, u)
		} else if present {
			if tags, _ := item["tags"].(map[string]any); tags["env"] != env {
				w.t.Errorf("%s: per-type list tags = %v, want env=%s", step, item["tags"], env)
			}
		}
	}
}

// TestCacheLagGenericLists: with a lag, the generic lists show a created
// resource only once the lag has passed, the old tags (and the old
// changedTime) until the new ones are as old as the lag, and a deleted
// resource until its deletion is; GETs and the per-type lists never lag.
func TestCacheLagGenericLists(t *testing.T) {
	w := startLagWorld(t, lagTest)
	t0 := w.clock.Now()
	w.put(w.identity("id1"), map[string]any{"location": "westeurope", "tags": map[string]any{"env": "a"}})

	w.expectGeneric("just created", "id1", false, "", time.Time{})
	w.expectDirect("just created", "id1", true, "a")
	w.clock.Add(lagTest - time.Millisecond)
	w.expectGeneric("created lag-1ms ago", "id1", false, "", time.Time{})
	w.clock.Add(time.Millisecond)
	w.expectGeneric("created lag ago", "id1", true, "a", t0)

	w.clock.Add(time.Second)
	t1 := w.clock.Now()
	w.put(w.identity("id1"), map[string]any{"location": "westeurope", "tags": map[string]any{"env": "b"}})
	w.expectGeneric("just retagged", "id1", true, "a", t0)
	w.expectDirect("just retagged", "id1", true, "b")
	w.clock.Add(lagTest - time.Millisecond)
	w.expectGeneric("retagged lag-1ms ago", "id1", true, "a", t0)
	w.clock.Add(time.Millisecond)
	w.expectGeneric("retagged lag ago", "id1", true, "b", t1)

	w.clock.Add(time.Second)
	if r := do(t, http.MethodDelete, w.identity("id1"), nil); r.Status/100 != 2 {
		t.Fatalf("DELETE: %d %s", r.Status, r.Raw)
	}
	w.expectGeneric("just deleted", "id1", true, "b", t1)
	w.expectDirect("just deleted", "id1", false, "")
	w.clock.Add(lagTest)
	w.expectGeneric("deleted lag ago", "id1", false, "", time.Time{})
}

// TestCacheLagOperationEnd: a long-running create shows Creating, then
// Succeeded as of the operation's end, even when no request came between
// the end and the list.
func TestCacheLagOperationEnd(t *testing.T) {
	w := startLagWorld(t, lagTest)
	w.s.opts.LRODuration = 2 * time.Second
	st := w.group + "/providers/Microsoft.Storage/storageAccounts/stlag1?api-version=2023-05-01"
	if r := do(t, http.MethodPut, st, map[string]any{"location": "westeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}}); r.Status/100 != 2 {
		t.Fatalf("PUT storage: %d %s", r.Status, r.Raw)
	}
	state := func() any {
		t.Helper()
		item := w.list(w.group + "/resources?api-version=2021-04-01&$expand=provisioningState")["stlag1"]
		if item == nil {
			return nil
		}
		return item["provisioningState"]
	}
	w.clock.Add(lagTest)
	if got := state(); got != "Creating" {
		t.Errorf("lag after the PUT: provisioningState %v, want Creating", got)
	}
	w.clock.Add(2 * time.Second) // the operation ended exactly lag ago
	if got := state(); got != "Succeeded" {
		t.Errorf("lag after the operation's end: provisioningState %v, want Succeeded", got)
	}
}

// TestCacheLagCascadeAndReset: resources of a deleted group linger in the
// subscription's list like deleted ones; forgetting everything through
// the admin API leaves nothing behind; seeds, the world as it already
// was, are listed at once.
func TestCacheLagCascadeAndReset(t *testing.T) {
	w := startLagWorld(t, lagTest)
	w.put(w.identity("id1"), map[string]any{"location": "westeurope", "tags": map[string]any{"env": "a"}})
	w.clock.Add(lagTest)
	t1 := w.clock.Now()
	if r := do(t, http.MethodDelete, w.group+"?api-version=2021-04-01", nil); r.Status/100 != 2 {
		t.Fatalf("DELETE group: %d %s", r.Status, r.Raw)
	}
	w.clock.Add(time.Millisecond) // the group's deletion settles
	sub := w.generic()[0]
	if _, ok := w.list(sub)["id1"]; !ok {
		t.Error("a resource of a group deleted just now left the subscription's generic list at once")
	}
	if r := do(t, http.MethodGet, w.identity("id1"), nil); r.Status != http.StatusNotFound {
		t.Errorf("GET after the group's deletion: %d", r.Status)
	}
	w.clock.Add(lagTest)
	if _, ok := w.list(sub)["id1"]; ok {
		t.Errorf("a resource of a group deleted lag ago is still listed (deleted at %v)", t1)
	}

	// Reset forgets the cache too: no ghost of id2, deleted just before.
	w.put(w.group+"?api-version=2021-04-01", map[string]any{"location": "westeurope"})
	w.put(w.identity("id2"), map[string]any{"location": "westeurope"})
	w.clock.Add(lagTest)
	do(t, http.MethodDelete, w.identity("id2"), nil)
	if r := do(t, http.MethodDelete, w.s.URL()+"/_emulator/resources", nil); r.Status != http.StatusNoContent {
		t.Fatalf("admin DELETE: %d", r.Status)
	}
	if got := w.list(sub); len(got) != 0 {
		t.Errorf("after a reset the generic list shows %v", got)
	}

	// Seeds are visible at once, whatever the lag.
	if err := w.s.Seed("/subscriptions/"+testSub+"/resourceGroups/rg/providers/"+idType+"/seeded", idAPIVer,
		map[string]any{"location": "westeurope", "tags": map[string]any{"env": "s"}}); err != nil {
		t.Fatal(err)
	}
	w.expectGeneric("seeded", "seeded", true, "s", w.clock.Now())
}

// TestCacheLagKeepsFewVersions: a resource changed every second keeps the
// version a list made now can show plus the newer ones, never its whole
// history.
func TestCacheLagKeepsFewVersions(t *testing.T) {
	w := startLagWorld(t, lagTest)
	for i := range 60 {
		w.put(w.identity("id1"), map[string]any{"location": "westeurope", "tags": map[string]any{"n": string(rune('a' + i%26))}})
		w.clock.Add(time.Second)
	}
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	if len(w.s.cache.entries) != 1 {
		t.Fatalf("cache entries = %d, want 1", len(w.s.cache.entries))
	}
	for k, e := range w.s.cache.entries {
		// One version older than the lag plus the ten of the last ten seconds.
		if n := len(e.versions); n > int(lagTest/time.Second)+1 {
			t.Errorf("%s keeps %d versions for a %v lag", k, n, lagTest)
		}
	}
}

// TestNoCacheLag: without a lag (the default) the generic lists show
// every write at once.
func TestNoCacheLag(t *testing.T) {
	w := startLagWorld(t, 0)
	t0 := w.clock.Now()
	w.put(w.identity("id1"), map[string]any{"location": "westeurope", "tags": map[string]any{"env": "a"}})
	w.expectGeneric("created", "id1", true, "a", t0)
	w.clock.Add(time.Second)
	w.put(w.identity("id1"), map[string]any{"location": "westeurope", "tags": map[string]any{"env": "b"}})
	w.expectGeneric("retagged", "id1", true, "b", t0.Add(time.Second))
	do(t, http.MethodDelete, w.identity("id1"), nil)
	w.expectGeneric("deleted", "id1", false, "", time.Time{})
}

// TestGenericListItemShape: a generic list item is the envelope ARM lists
// (genericView's sources): zones and systemData kept, etag and properties
// left out.
func TestGenericListItemShape(t *testing.T) {
	for _, lag := range []time.Duration{0, lagTest} {
		w := startLagWorld(t, lag)
		id := "/subscriptions/" + testSub + "/resourceGroups/rg/providers/Microsoft.Network/publicIPAddresses/pip1"
		body := map[string]any{
			"location": "westeurope", "zones": []any{"1"}, "sku": map[string]any{"name": "Standard"},
			"etag": `W/"x"`, "properties": map[string]any{"provisioningState": "Succeeded"},
			"systemData": map[string]any{"createdBy": "someone"},
		}
		if err := w.s.Seed(id, "2023-09-01", body); err != nil {
			t.Fatal(err)
		}
		item := w.list(w.group + "/resources?api-version=2021-04-01")["pip1"]
		if item == nil {
			t.Fatalf("lag %v: pip1 not listed", lag)
		}
		for _, k := range []string{"id", "name", "type", "location", "zones", "sku", "systemData"} {
			if _, ok := item[k]; !ok {
				t.Errorf("lag %v: list item lacks %s: %v", lag, k, item)
			}
		}
		for _, k := range []string{"etag", "properties"} {
			if _, ok := item[k]; ok {
				t.Errorf("lag %v: list item carries %s: %v", lag, k, item)
			}
		}
	}
}

// TestCacheLagTagsResource: the tags resource edits its scope's tags in
// place; the generic lists still show the old tags for the lag.
func TestCacheLagTagsResource(t *testing.T) {
	w := startLagWorld(t, lagTest)
	t0 := w.clock.Now()
	w.put(w.identity("id1"), map[string]any{"location": "westeurope", "tags": map[string]any{"env": "a"}})
	w.clock.Add(lagTest)
	t1 := w.clock.Now()
	tags := w.group + "/providers/" + idType + "/id1/providers/Microsoft.Resources/tags/default?api-version=2021-04-01"
	w.put(tags, map[string]any{"properties": map[string]any{"tags": map[string]any{"env": "b"}}})
	w.expectDirect("tags resource just written", "id1", true, "b")
	w.expectGeneric("tags resource just written", "id1", true, "a", t0)
	w.clock.Add(lagTest)
	w.expectGeneric("tags resource written lag ago", "id1", true, "b", t1)
}
