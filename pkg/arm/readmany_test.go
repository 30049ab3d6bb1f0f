package arm

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

func TestHasAll(t *testing.T) {
	body := map[string]any{
		"location": "westeurope",
		"tags":     map[string]any{"a.b": "x", "env": nil},
		"properties": map[string]any{
			"subnets": []any{
				map[string]any{"name": "default", "properties": map[string]any{"addressPrefix": "10.0.0.0/24"}},
				map[string]any{"name": "app", "properties": map[string]any{}},
			},
			"rules": []any{map[string]any{"priority": json.Number("100"), "port": "443"}},
			"Mixed": map[string]any{"x": json.Number("1")},
		},
	}
	for path, want := range map[string]bool{
		"location":     true,
		`tags."a.b"`:   true,
		`tags["a.b"]`:  true,
		"tags.env":     false, // null: the list may have blanked it
		"tags.missing": false,
		"properties.subnets[default].properties.addressPrefix":      true,
		"properties.subnets[name=default].properties.addressPrefix": true,
		"properties.subnets[app].properties.addressPrefix":          false,
		"properties.subnets[gone]":                                  false,
		"properties.subnets[0].name":                                true,
		"properties.subnets[5]":                                     false,
		"properties.subnets[*].name":                                true,
		"properties.subnets[*].properties.addressPrefix":            false,
		"properties.rules[priority=100].port":                       true,
		"properties.rules[priority=200].port":                       false,
		"properties.mixed.x":                                        true, // ARM compares names case-insensitively
		"properties.*":                                              true,
		`properties["Mixed"].x`:                                     true,
		"properties.Mixed[*]":                                       true,
		"properties.Mixed[0]":                                       false,
		"properties.subnets[]":                                      false,
		"properties.subnets.name":                                   false,
		"properties.subnets[default,app]":                           false,
		"properties.subnets[default].properties[*]":                 true,
		"location.x":                                                false,
		`tags."unterminated`:                                        false,
		"properties.subnets[default":                                false,
		"":                                                          false,
	} {
		if got := hasAll(body, []string{path}); got != want {
			t.Errorf("hasAll(%q) = %v, want %v", path, got, want)
		}
	}
}

// FuzzHasAll: a Need path from anywhere never panics the list check (the
// parser itself is fuzzed in pkg/bodypath).
func FuzzHasAll(f *testing.F) {
	for _, s := range []string{"a.b", `a."x.y"[k=v,w=1]`, "a[*].b", "[", `"`, "a[0]", "..", "a[=]", "m[*]", "a[]", "a[99999999999999999999]"} {
		f.Add(s)
	}
	body := map[string]any{"a": []any{map[string]any{"b": "c"}}, "m": map[string]any{"k": "v"}}
	f.Fuzz(func(t *testing.T, s string) {
		_ = hasAll(body, []string{s})
	})
}

func TestCollectionOf(t *testing.T) {
	rg := "/subscriptions/" + testSub + "/resourceGroups/rg1"
	for id, want := range map[string]string{
		rg + "/providers/Microsoft.Network/virtualNetworks/v1":            rg + "/providers/Microsoft.Network/virtualNetworks",
		rg + "/providers/Microsoft.Network/virtualNetworks/v1/subnets/s1": rg + "/providers/Microsoft.Network/virtualNetworks/v1/subnets",
		rg: "",
		"/subscriptions/" + testSub + "/providers/Microsoft.Authorization/roleDefinitions/x":                "",
		rg + "/providers/Microsoft.KeyVault/vaults/kv/providers/Microsoft.Authorization/roleAssignments/ra": "",
		rg + "/providers/Microsoft.Web/sites/s/providers/Microsoft.Insights/components/c/children/x":        "",
	} {
		x, err := armid.Parse(id)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := collectionOf(x)
		if got != want || ok != (want != "") {
			t.Errorf("collectionOf(%s) = %q, %v; want %q", id, got, ok, want)
		}
	}
}

// When a collection cannot be listed (no list operation, no permission),
// every member is read with a GET and the results are the GETs'.
func TestReadManyFallsBackWhenListFails(t *testing.T) {
	f := newFakeARM(t)
	coll := "/subscriptions/" + testSub + "/resourceGroups/rg1/providers/Microsoft.Storage/storageAccounts"
	f.handle("GET", coll, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 403, map[string]any{"error": map[string]any{"code": "AuthorizationFailed"}})
	})
	var reqs []ReadRequest
	for _, n := range []string{"a", "b", "c", "d"} {
		id := coll + "/" + n
		reqs = append(reqs, ReadRequest{ID: id, APIVersion: testAPI})
		if n != "d" {
			f.handle("GET", id, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("ETag", `"e-`+n+`"`)
				writeJSON(w, 200, map[string]any{"id": id, "name": n})
			})
		}
	}
	reqs = append(reqs, ReadRequest{ID: coll + "/../x", APIVersion: testAPI})
	res := f.client().ReadMany(context.Background(), reqs, ReadManyOptions{})
	for i, r := range res[:3] {
		if r.Err != nil || !r.Exists || r.Via != ViaGet || r.Body["id"] != reqs[i].ID || r.Etag != `"e-`+reqs[i].ID[len(coll)+1:]+`"` {
			t.Errorf("result %d: %+v", i, r)
		}
	}
	if d := res[3]; d.Err != nil || d.Exists || d.Body != nil {
		t.Errorf("missing resource: %+v", d)
	}
	if bad := res[4]; bad.Err == nil || !strings.Contains(bad.Err.Error(), "..") {
		t.Errorf("an ID with '..' was not refused: %+v", bad)
	}
	for _, r := range f.requests() {
		if strings.Contains(r.Path, "..") || strings.HasSuffix(r.Path, "/x") {
			t.Errorf("sent %s %s", r.Method, r.Path)
		}
	}
	if n := f.count("GET", coll); n != 1 {
		t.Errorf("%d list requests, want 1", n)
	}
}

func TestReadManyListItemServesOnlyWithEveryNeed(t *testing.T) {
	f := newFakeARM(t)
	coll := "/subscriptions/" + testSub + "/resourceGroups/rg1/providers/Microsoft.Storage/storageAccounts"
	var items []any
	var reqs []ReadRequest
	for _, n := range []string{"a", "b", "c"} {
		id := coll + "/" + n
		items = append(items, map[string]any{"id": strings.ToUpper(id), "name": n, "etag": "list-" + n, "sku": map[string]any{"name": "Standard_LRS"}})
		reqs = append(reqs, ReadRequest{ID: id, APIVersion: testAPI, Need: []string{"sku.name"}})
		f.handle("GET", id, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, map[string]any{"id": id, "name": n, "sku": map[string]any{"name": "Standard_LRS"}, "properties": map[string]any{"accessTier": "Hot"}})
		})
	}
	reqs[2].Need = append(reqs[2].Need, "properties.accessTier")
	f.handle("GET", coll, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"value": items})
	})
	res := f.client().ReadMany(context.Background(), reqs, ReadManyOptions{})
	if res[0].Via != ViaList || res[1].Via != ViaList || res[0].Etag != "list-a" {
		t.Errorf("list items not used: %+v", res[:2])
	}
	if res[2].Via != ViaGet || res[2].Body["properties"] == nil {
		t.Errorf("an item lacking a Need path was used: %+v", res[2])
	}
	if got := f.count("GET", ""); got != 2 {
		t.Errorf("%d GETs, want the list and one GET", got)
	}
	// Disabled: three GETs, no list.
	f2 := f.client()
	before := f.count("GET", coll)
	for _, r := range f2.ReadMany(context.Background(), reqs, ReadManyOptions{Disable: true}) {
		if r.Via != ViaGet || !r.Exists {
			t.Errorf("disabled: %+v", r)
		}
	}
	if f.count("GET", coll) != before {
		t.Error("listed with collection reads disabled")
	}
}

func TestRequestPathsWithDotSegmentsAreRefused(t *testing.T) {
	f := newFakeARM(t)
	c := f.client()
	vnet := "/subscriptions/" + testSub + "/resourceGroups/rg1/providers/Microsoft.Network/virtualNetworks/v"
	for _, id := range []string{vnet + "/subnets/..", vnet + "/subnets/.", vnet + "//subnets/x", vnet + "/subnets/a\x00b"} {
		if _, err := c.Delete(context.Background(), id, testAPI, nil); err == nil || !strings.Contains(err.Error(), "refusing request path") {
			t.Errorf("DELETE %q: %v", id, err)
		}
		if _, err := c.Get(context.Background(), id, testAPI); err == nil || !strings.Contains(err.Error(), "refusing request path") {
			t.Errorf("GET %q: %v", id, err)
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Fatalf("%d requests reached the server", n)
	}
}

func TestAction(t *testing.T) {
	f := newFakeARM(t)
	f.handle("POST", testID+"/listKeys", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"keys": []any{map[string]any{"value": "k1"}}, "n": json.Number("9007199254740993")})
	})
	c := f.client()
	body, err := c.Action(context.Background(), testID, "listKeys", testAPI, nil)
	if err != nil {
		t.Fatal(err)
	}
	if body["n"] != json.Number("9007199254740993") || len(body["keys"].([]any)) != 1 {
		t.Fatalf("body %v", body)
	}
	for _, bad := range []string{"..", "a/b", "", "x?y"} {
		if _, err := c.Action(context.Background(), testID, bad, testAPI, nil); err == nil {
			t.Errorf("action %q accepted", bad)
		}
	}
	if n := f.count("POST", ""); n != 1 {
		t.Fatalf("%d POSTs", n)
	}
}

// Paging stops once every member was seen, and gives up for GETs before
// the pages would cost more than the members' GETs.
func TestReadManyBoundsPaging(t *testing.T) {
	coll := "/subscriptions/" + testSub + "/resourceGroups/rg1/providers/Microsoft.Storage/storageAccounts"
	for _, tc := range []struct {
		name               string
		memberPage         int // page (0-based) of 10 holding the members
		wantPages, wantGET int
	}{
		{"members on the first page", 0, 1, 0},
		{"members deep in a long list", 8, 2, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeARM(t)
			var reqs []ReadRequest
			for k := range 3 {
				id := coll + "/m" + string(rune('a'+k))
				reqs = append(reqs, ReadRequest{ID: id, APIVersion: testAPI})
				f.handle("GET", id, func(w http.ResponseWriter, r *http.Request) {
					writeJSON(w, 200, map[string]any{"id": id})
				})
			}
			f.handle("GET", coll, func(w http.ResponseWriter, r *http.Request) {
				p := 0
				if s := r.URL.Query().Get("page"); s != "" {
					p = int(s[0] - '0')
				}
				var items []any
				for k := range 5 {
					items = append(items, map[string]any{"id": coll + "/other-" + string(rune('0'+p)) + string(rune('0'+k))})
				}
				if p == tc.memberPage {
					for _, r := range reqs {
						items = append(items, map[string]any{"id": r.ID})
					}
				}
				body := map[string]any{"value": items}
				if p < 9 {
					body["nextLink"] = f.srv.URL + coll + "?api-version=" + testAPI + "&page=" + string(rune('0'+p+1))
				}
				writeJSON(w, 200, body)
			})
			res := f.client().ReadMany(context.Background(), reqs, ReadManyOptions{})
			for _, r := range res {
				if r.Err != nil || !r.Exists {
					t.Fatalf("%+v", r)
				}
			}
			if n := f.count("GET", coll); n != tc.wantPages {
				t.Errorf("%d pages read, want %d", n, tc.wantPages)
			}
			if n := f.count("GET", "") - f.count("GET", coll); n != tc.wantGET {
				t.Errorf("%d GETs, want %d", n, tc.wantGET)
			}
		})
	}
}
