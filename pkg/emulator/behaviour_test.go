package emulator

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// fakeClock is a settable clock for throttling and LRO tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestThrottleBurstAndRefill(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := startTest(t, func(o *Options) {
		o.Throttle = ThrottleOptions{Enabled: true, Reads: Bucket{Size: 5, Refill: 2}, Writes: Bucket{Size: 3, Refill: 1}, Deletes: Bucket{Size: 3, Refill: 1}}
		o.Now = clock.Now
	})
	url := s.URL() + "/subscriptions/" + testSub + "/resourceGroups?api-version=2021-04-01"
	var remaining []string
	throttled := 0
	for i := 0; i < 8; i++ {
		r := do(t, http.MethodGet, url, nil)
		remaining = append(remaining, r.Header.Get("x-ms-ratelimit-remaining-subscription-reads"))
		if r.Status == http.StatusTooManyRequests {
			throttled++
			if ra, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || ra < 1 {
				t.Errorf("429 without a usable Retry-After: %q", r.Header.Get("Retry-After"))
			}
			if errCode(r) != "SubscriptionRequestsThrottled" {
				t.Errorf("429 code = %q", errCode(r))
			}
		} else if r.Status != 200 {
			t.Fatalf("GET: %d %s", r.Status, r.Raw)
		}
	}
	if got := strings.Join(remaining, ","); got != "4,3,2,1,0,0,0,0" || throttled != 3 {
		t.Fatalf("remaining reads = %s with %d throttled; want 4,3,2,1,0,0,0,0 and 3", got, throttled)
	}
	// Writes have their own bucket.
	r := do(t, http.MethodPut, s.URL()+"/subscriptions/"+testSub+"/resourceGroups/rg?api-version=2021-04-01", map[string]any{"location": "westus"})
	if r.Status != 201 || r.Header.Get("x-ms-ratelimit-remaining-subscription-writes") != "2" {
		t.Fatalf("PUT while reads are empty: %d, writes remaining %q", r.Status, r.Header.Get("x-ms-ratelimit-remaining-subscription-writes"))
	}
	// Another subscription is not affected.
	r = do(t, http.MethodGet, s.URL()+"/subscriptions/other/resourceGroups?api-version=2021-04-01", nil)
	if r.Status != 200 {
		t.Fatalf("other subscription throttled: %d", r.Status)
	}
	// Two seconds refill four tokens.
	clock.Add(2 * time.Second)
	r = do(t, http.MethodGet, url, nil)
	if r.Status != 200 || r.Header.Get("x-ms-ratelimit-remaining-subscription-reads") != "3" {
		t.Fatalf("after refill: %d, remaining %q; want 200 and 3", r.Status, r.Header.Get("x-ms-ratelimit-remaining-subscription-reads"))
	}
	if st := s.Stats(); st.Throttled != 3 || st.Requests["GET"] != 10 {
		t.Fatalf("stats = %+v; want 3 throttled of 10 GETs", st)
	}
}

func TestThrottleOff(t *testing.T) {
	s := startTest(t, func(o *Options) { o.Throttle.Enabled = false })
	for i := 0; i < 300; i++ {
		if r := do(t, http.MethodGet, s.URL()+"/subscriptions/"+testSub+"/resourceGroups?api-version=2021-04-01", nil); r.Status != 200 {
			t.Fatalf("request %d: %d", i, r.Status)
		}
	}
}

// testSchema is a SchemaSource for one invented type, so create-only and
// PATCH behaviour can be pinned without depending on the real specs.
type testSchema struct{}

func (testSchema) Lookup(typ, v string) (*schema.Type, schema.Resolution) {
	if !strings.EqualFold(typ, "Microsoft.Test/widgets") {
		return nil, schema.Resolution{}
	}
	return &schema.Type{Name: typ, APIVersion: v, PatchSupported: true, PutLRO: true, DeleteLRO: true,
		Properties: map[string]*schema.Property{
			"properties.mode":     {Type: schema.TypeString, CreateOnly: true},
			"properties.password": {Type: schema.TypeString, Secret: true},
		}}, schema.Resolution{Found: true, APIVersion: v}
}

func TestCreateOnlySecretsAndLocation(t *testing.T) {
	s := startTest(t, func(o *Options) { o.Schema = testSchema{}; o.LRODuration = 0 })
	base := s.URL() + "/subscriptions/" + testSub
	do(t, http.MethodPut, base+"/resourceGroups/rg?api-version=2021-04-01", map[string]any{"location": "westus"})
	url := base + "/resourceGroups/rg/providers/Microsoft.Test/widgets/w1?api-version=2024-01-01"
	body := map[string]any{"location": "westus", "properties": map[string]any{"mode": "Fast", "password": "hunter2", "size": 1}}
	if r := do(t, http.MethodPut, url, body); r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	g := do(t, http.MethodGet, url, nil)
	if strings.Contains(g.Raw, "hunter2") {
		t.Errorf("secret returned by GET: %s", g.Raw)
	}
	// Same create-only value, differently cased: accepted.
	body["properties"] = map[string]any{"mode": "fast", "size": 2}
	if r := do(t, http.MethodPut, url, body); r.Status != 200 {
		t.Fatalf("update keeping mode: %d %s", r.Status, r.Raw)
	}
	body["properties"] = map[string]any{"mode": "Slow", "size": 2}
	r := do(t, http.MethodPut, url, body)
	if r.Status != 400 || errCode(r) != "PropertyChangeNotAllowed" || !strings.Contains(r.Raw, "properties.mode") {
		t.Errorf("create-only change: %d %s", r.Status, r.Raw)
	}
	r = do(t, http.MethodPatch, url, map[string]any{"properties": map[string]any{"mode": "Slow"}})
	if r.Status != 400 || errCode(r) != "PropertyChangeNotAllowed" {
		t.Errorf("create-only change by PATCH: %d %s", r.Status, r.Raw)
	}
	body["location"] = "eastus"
	body["properties"] = map[string]any{"mode": "Fast"}
	if r := do(t, http.MethodPut, url, body); r.Status != 400 || errCode(r) != "InvalidResourceLocation" {
		t.Errorf("location change: %d %s", r.Status, r.Raw)
	}
	// PATCH merges: size changes, mode stays.
	r = do(t, http.MethodPatch, url, map[string]any{"properties": map[string]any{"size": 3}})
	if r.Status != 200 {
		t.Fatalf("PATCH: %d %s", r.Status, r.Raw)
	}
	g = do(t, http.MethodGet, url, nil)
	if !strings.EqualFold(str(g.Body, "properties", "mode"), "fast") || g.Body["properties"].(map[string]any)["size"] != 3.0 {
		t.Errorf("after PATCH: %s", g.Raw)
	}
}

func TestQuirksNoneIsPlain(t *testing.T) {
	s := startTest(t, func(o *Options) { o.Quirks = QuirksNone; o.LRODuration = 0 })
	base := s.URL() + "/subscriptions/" + testSub
	do(t, http.MethodPut, base+"/resourceGroups/rg?api-version=2021-04-01", map[string]any{"location": "westus2"})
	url := base + "/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/st1?api-version=2023-05-01"
	sent := map[string]any{"location": "westus2", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}}
	do(t, http.MethodPut, url, sent)
	g := do(t, http.MethodGet, url, nil)
	if g.Status != 200 {
		t.Fatalf("GET: %d %s", g.Status, g.Raw)
	}
	for _, k := range []string{"id", "name", "type", "etag", "systemData", "location", "kind", "sku", "properties"} {
		if _, ok := g.Body[k]; !ok {
			t.Errorf("plain GET lacks %q: %s", k, g.Raw)
		}
	}
	props := g.Body["properties"].(map[string]any)
	if len(props) != 1 || props["provisioningState"] != "Succeeded" || str(g.Body, "location") != "westus2" {
		t.Errorf("plain GET added or changed fields: %s", g.Raw)
	}
	// The same in corpus mode adds storage's server defaults.
	c := startTest(t, func(o *Options) { o.LRODuration = 0 })
	base = c.URL() + "/subscriptions/" + testSub
	do(t, http.MethodPut, base+"/resourceGroups/rg?api-version=2021-04-01", map[string]any{"location": "westus2"})
	do(t, http.MethodPut, strings.Replace(url, s.URL(), c.URL(), 1), sent)
	g = do(t, http.MethodGet, strings.Replace(url, s.URL(), c.URL(), 1), nil)
	if str(g.Body, "properties", "encryption", "keySource") != "Microsoft.Storage" || !strings.Contains(str(g.Body, "properties", "primaryEndpoints", "blob"), "st1.blob.") {
		t.Errorf("corpus GET lacks storage defaults: %s", g.Raw)
	}
}

func TestLocationDisplayName(t *testing.T) {
	s := startTest(t, func(o *Options) { o.LRODuration = 0 })
	base := s.URL() + "/subscriptions/" + testSub
	do(t, http.MethodPut, base+"/resourceGroups/rg?api-version=2021-04-01", map[string]any{"location": "westus2"})
	url := base + "/resourceGroups/rg/providers/Microsoft.App/managedEnvironments/env1?api-version=2023-05-01"
	do(t, http.MethodPut, url, map[string]any{"location": "westus2", "properties": map[string]any{}})
	if g := do(t, http.MethodGet, url, nil); str(g.Body, "location") != "West US 2" {
		t.Errorf("managedEnvironments location = %q, want the display name West US 2", str(g.Body, "location"))
	}
}

func TestLROFailureFault(t *testing.T) {
	s := startTest(t, func(o *Options) { o.Faults.LROFailure = 1; o.Schema = testSchema{} })
	base := s.URL() + "/subscriptions/" + testSub
	do(t, http.MethodPut, base+"/resourceGroups/rg?api-version=2021-04-01", map[string]any{"location": "westus"})
	url := base + "/resourceGroups/rg/providers/Microsoft.Test/widgets/w1?api-version=2021-04-01"
	r := do(t, http.MethodPut, url, map[string]any{"location": "westus"})
	if r.Status != 201 {
		t.Fatalf("PUT: %d %s", r.Status, r.Raw)
	}
	if st := pollAsync(t, r.Header.Get("Azure-AsyncOperation")); st != "Failed" {
		t.Fatalf("LRO status %s, want Failed", st)
	}
	if g := do(t, http.MethodGet, url, nil); str(g.Body, "properties", "provisioningState") != "Failed" {
		t.Errorf("GET after failed LRO: %s", g.Raw)
	}
	if p := do(t, http.MethodGet, r.Header.Get("Location"), nil); p.Status != 500 || errCode(p) == "" {
		t.Errorf("Location poll after failure: %d %s", p.Status, p.Raw)
	}
}

func TestStatusAndResetFaults(t *testing.T) {
	s := startTest(t, func(o *Options) { o.Faults.Status = map[int]float64{503: 1} })
	r := do(t, http.MethodGet, s.URL()+"/subscriptions/"+testSub+"/resourceGroups?api-version=2021-04-01", nil)
	if r.Status != 503 || r.Header.Get("Retry-After") == "" || errCode(r) != "ServiceUnavailable" {
		t.Fatalf("503 fault: %d %v %s", r.Status, r.Header, r.Raw)
	}
	// The admin API is never faulted.
	if a := do(t, http.MethodGet, s.URL()+"/_emulator/stats", nil); a.Status != 200 {
		t.Fatalf("admin faulted: %d", a.Status)
	}
	s2 := startTest(t, func(o *Options) { o.Faults.Reset = 1 })
	req, _ := http.NewRequest(http.MethodGet, s2.URL()+"/subscriptions/x/resourceGroups?api-version=2021-04-01", nil)
	_, err := http.DefaultClient.Do(req)
	if err == nil {
		t.Fatal("reset fault: request succeeded")
	}
	if st := s2.Stats(); st.Faults != 1 {
		t.Errorf("faults counted = %d", st.Faults)
	}
}

func TestLatency(t *testing.T) {
	s := startTest(t, func(o *Options) { o.Latency = 40 * time.Millisecond })
	start := time.Now()
	const n = 5
	for i := 0; i < n; i++ {
		do(t, http.MethodGet, s.URL()+"/subscriptions/x/resourceGroups?api-version=2021-04-01", nil)
	}
	// Uniform in [0.5, 1.5] × mean: five requests take at least 100 ms.
	if el := time.Since(start); el < n*20*time.Millisecond {
		t.Errorf("%d requests took %v with 40ms mean latency", n, el)
	}
	start = time.Now()
	do(t, http.MethodGet, s.URL()+"/_emulator/stats", nil)
	if el := time.Since(start); el > 15*time.Millisecond {
		t.Errorf("admin request delayed %v", el)
	}
}

func TestAdminSeedVerbatimAndStats(t *testing.T) {
	s := startTest(t, nil)
	id := "/subscriptions/" + testSub + "/resourceGroups/seeded/providers/Microsoft.Network/virtualNetworks/v/subnets/s"
	body := map[string]any{"id": id, "name": "s", "properties": map[string]any{"addressPrefix": "10.0.0.0/24", "odd": []any{3.0, 1.0}}}
	seed, _ := json.Marshal(map[string]any{"id": id, "apiVersion": "2023-09-01", "body": body})
	if r := do(t, http.MethodPost, s.URL()+"/_emulator/resources", string(seed)); r.Status != 201 {
		t.Fatalf("seed: %d %s", r.Status, r.Raw)
	}
	g := do(t, http.MethodGet, s.URL()+id+"?api-version=2023-09-01", nil)
	want, _ := json.Marshal(body)
	got, _ := json.Marshal(g.Body)
	if g.Status != 200 || string(got) != string(want) {
		t.Fatalf("seeded GET = %d %s, want exactly %s", g.Status, got, want)
	}
	// Parents were created.
	if p := do(t, http.MethodGet, s.URL()+"/subscriptions/"+testSub+"/resourceGroups/seeded/providers/Microsoft.Network/virtualNetworks/v?api-version=2023-09-01", nil); p.Status != 200 {
		t.Fatalf("seeded parent: %d", p.Status)
	}
	do(t, http.MethodPut, s.URL()+"/subscriptions/"+testSub+"/resourceGroups/x?api-version=2021-04-01", map[string]any{"location": "westus"})
	do(t, http.MethodPost, s.URL()+"/subscriptions/"+testSub+"/resourceGroups/x/providers/Microsoft.Web/sites/a/restart?api-version=2021-04-01", nil)
	st := do(t, http.MethodGet, s.URL()+"/_emulator/stats", nil)
	reqs, _ := st.Body["requests"].(map[string]any)
	for m, want := range map[string]float64{"GET": 2, "PUT": 1, "PATCH": 0, "DELETE": 0, "POST": 1, "POLL": 0} {
		if reqs[m] != want {
			t.Errorf("stats requests[%s] = %v, want %v (%s)", m, reqs[m], want, st.Raw)
		}
	}
	if _, ok := st.Body["throttled"]; !ok {
		t.Errorf("stats lacks throttled: %s", st.Raw)
	}
	if r := do(t, http.MethodDelete, s.URL()+"/_emulator/resources", nil); r.Status != 204 {
		t.Fatalf("admin delete: %d", r.Status)
	}
	if g := do(t, http.MethodGet, s.URL()+id+"?api-version=2023-09-01", nil); g.Status != 404 {
		t.Fatalf("GET after admin delete: %d", g.Status)
	}
	if err := s.Seed("/not/an/id", "1", map[string]any{}); err == nil {
		t.Error("Seed accepted a bad ID")
	}
}

func TestTenantSubscriptionAndExtensionScopes(t *testing.T) {
	s := startTest(t, func(o *Options) { o.LRODuration = 0 })
	u := s.URL()
	// Tenant-level resource.
	r := do(t, http.MethodPut, u+"/providers/Microsoft.Management/managementGroups/mg1?api-version=2021-04-01", map[string]any{"properties": map[string]any{"displayName": "MG"}})
	if r.Status != 201 && r.Status != 202 {
		t.Fatalf("tenant PUT: %d %s", r.Status, r.Raw)
	}
	if g := do(t, http.MethodGet, u+"/providers/Microsoft.Management/managementGroups/mg1?api-version=2021-04-01", nil); g.Status != 200 {
		t.Fatalf("tenant GET: %d %s", g.Status, g.Raw)
	}
	// Subscription-level resource.
	sub := "/subscriptions/" + testSub
	r = do(t, http.MethodPut, u+sub+"/providers/Microsoft.Authorization/policyDefinitions/p1?api-version=2021-06-01", map[string]any{"properties": map[string]any{"mode": "All"}})
	if r.Status != 201 {
		t.Fatalf("subscription PUT: %d %s", r.Status, r.Raw)
	}
	// Extension resource on a resource that does not exist, then does.
	do(t, http.MethodPut, u+sub+"/resourceGroups/rg?api-version=2021-04-01", map[string]any{"location": "westus"})
	kv := sub + "/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/kv1"
	lock := kv + "/providers/Microsoft.Authorization/locks/l1"
	if r := do(t, http.MethodPut, u+lock+"?api-version=2020-05-01", map[string]any{"properties": map[string]any{"level": "CanNotDelete"}}); r.Status != 404 || errCode(r) != "ParentResourceNotFound" {
		t.Fatalf("extension on missing scope: %d %s", r.Status, r.Raw)
	}
	do(t, http.MethodPut, u+kv+"?api-version=2023-07-01", map[string]any{"location": "westus", "properties": map[string]any{"tenantId": testSub, "sku": map[string]any{"name": "standard", "family": "A"}}})
	if r := do(t, http.MethodPut, u+lock+"?api-version=2020-05-01", map[string]any{"properties": map[string]any{"level": "CanNotDelete"}}); r.Status != 201 || str(r.Body, "type") != "Microsoft.Authorization/locks" {
		t.Fatalf("extension PUT: %d %s", r.Status, r.Raw)
	}
	if l := do(t, http.MethodGet, u+kv+"/providers/Microsoft.Authorization/locks?api-version=2020-05-01", nil); !strings.Contains(l.Raw, "l1") {
		t.Fatalf("extension list: %s", l.Raw)
	}
	// The lock binds: the group cannot go while it stands (locks_test.go).
	if r := do(t, http.MethodDelete, u+sub+"/resourceGroups/rg?api-version=2021-04-01", nil); r.Status != 409 || errCode(r) != "ScopeLocked" {
		t.Fatalf("group delete under a lock: %d %s", r.Status, r.Raw)
	}
	// A level that locks nothing leaves the extension resource in place for
	// the cascade check below.
	do(t, http.MethodPut, u+lock+"?api-version=2020-05-01", map[string]any{"properties": map[string]any{"level": "NotSpecified"}})
	// Deleting the group removes everything in it, extension resources too.
	r = do(t, http.MethodDelete, u+sub+"/resourceGroups/rg?api-version=2021-04-01", nil)
	if r.Status != 202 {
		t.Fatalf("group delete: %d", r.Status)
	}
	time.Sleep(5 * time.Millisecond)
	if g := do(t, http.MethodGet, u+lock+"?api-version=2021-04-01", nil); g.Status != 404 || errCode(g) != "ResourceGroupNotFound" {
		t.Fatalf("lock after group delete: %d %s", g.Status, g.Raw)
	}
	if g := do(t, http.MethodGet, u+sub+"?api-version=2020-01-01", nil); str(g.Body, "subscriptionId") != testSub {
		t.Fatalf("subscription GET: %s", g.Raw)
	}
}

// TestProfileMachinery pins each kind of profile quirk with a hand-made
// profile for an invented type (the corpus itself has no array reordering,
// so the generated profile never exercises SortedPaths).
func TestProfileMachinery(t *testing.T) {
	prof := &Profile{
		Locations: map[string]string{"westus2": "West US 2"},
		Types: map[string]*TypeProfile{"microsoft.test/widgets": {
			Type:          "Microsoft.Test/Widgets",
			Etag:          "weak",
			IDCase:        CaseGroupUp,
			Added:         map[string]any{"properties.endpoint": "https://{{name}}.example/{{guid}}", "properties.items[].state": "On"},
			Dropped:       []string{"properties.secret"},
			Values:        map[string]map[string]string{"properties.version": {`"6"`: `"6.0"`}, "properties.tier": {"ci:basic": `"Basic"`}},
			LocationPaths: []string{"location"},
			IDPaths:       map[string]string{"properties.subnetId": CaseLower},
			SortedPaths:   []string{"properties.zones", "properties.items"},
			DropNulls:     true,
		}},
	}
	s := startTest(t, func(o *Options) { o.Profile = prof; o.LRODuration = 0; o.Schema = nil })
	base := s.URL() + "/subscriptions/" + testSub
	do(t, http.MethodPut, base+"/resourceGroups/rg?api-version=2021-04-01", map[string]any{"location": "westus2"})
	url := base + "/resourceGroups/rg/providers/Microsoft.Test/widgets/w1?api-version=2021-04-01"
	r := do(t, http.MethodPut, url, map[string]any{
		"location": "westus2",
		"properties": map[string]any{
			"version": "6", "tier": "BASIC", "secret": "s3cret", "gone": nil,
			"subnetId": "/subscriptions/X/resourceGroups/RG/providers/Microsoft.Network/virtualNetworks/V/subnets/S",
			"zones":    []any{"3", "1", "2"},
			"items":    []any{map[string]any{"name": "b"}, map[string]any{"name": "a", "state": "Off"}},
		},
	})
	if r.Status != 201 {
		t.Fatalf("PUT: %d %s", r.Status, r.Raw)
	}
	g := do(t, http.MethodGet, url, nil)
	p, _ := g.Body["properties"].(map[string]any)
	checks := map[string][2]any{
		"location":      {str(g.Body, "location"), "West US 2"},
		"type":          {str(g.Body, "type"), "Microsoft.Test/Widgets"},
		"id":            {str(g.Body, "id"), "/subscriptions/" + testSub + "/resourceGroups/RG/providers/Microsoft.Test/widgets/w1"},
		"version":       {p["version"], "6.0"},
		"tier":          {p["tier"], "Basic"},
		"subnetId":      {p["subnetId"], "/subscriptions/x/resourcegroups/rg/providers/microsoft.network/virtualnetworks/v/subnets/s"},
		"zones":         {jsonOf(p["zones"]), `["1","2","3"]`},
		"items":         {jsonOf(p["items"]), `[{"name":"a","state":"Off"},{"name":"b","state":"On"}]`},
		"secret absent": {p["secret"], nil},
	}
	for name, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s = %v, want %v", name, c[0], c[1])
		}
	}
	if _, ok := p["gone"]; ok {
		t.Errorf("null key kept although DropNulls")
	}
	if ep, _ := p["endpoint"].(string); !strings.HasPrefix(ep, "https://w1.example/") || strings.Contains(ep, "{{") {
		t.Errorf("endpoint = %q", ep)
	}
	// A replace keeps server-generated values.
	ep := p["endpoint"]
	do(t, http.MethodPut, url, map[string]any{"location": "westus2", "properties": map[string]any{}})
	g = do(t, http.MethodGet, url, nil)
	if str(g.Body, "properties", "endpoint") != ep {
		t.Errorf("endpoint changed on replace: %v -> %v", ep, str(g.Body, "properties", "endpoint"))
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
