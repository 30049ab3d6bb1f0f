package emulator

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// armStart is an emulator with instant LROs and a group rg in testSub.
func armStart(t *testing.T, mutate func(*Options)) (*Server, string) {
	t.Helper()
	s := startTest(t, func(o *Options) {
		o.LRODuration = 0
		if mutate != nil {
			mutate(o)
		}
	})
	base := s.URL() + "/subscriptions/" + testSub + "/resourceGroups/rg"
	if r := do(t, http.MethodPut, base+"?api-version=2021-04-01", map[string]any{"location": "westeurope"}); r.Status != 201 {
		t.Fatalf("group: %d %s", r.Status, r.Raw)
	}
	return s, base
}

func TestHeadAnswers204Or404(t *testing.T) {
	_, base := armStart(t, nil)
	if r := do(t, http.MethodHead, base+"?api-version=2021-04-01", nil); r.Status != 204 || r.Raw != "" {
		t.Errorf("HEAD existing group: %d %q, want 204 and no body", r.Status, r.Raw)
	}
	if r := do(t, http.MethodHead, base+"x?api-version=2021-04-01", nil); r.Status != 404 {
		t.Errorf("HEAD missing group: %d, want 404", r.Status)
	}
}

func TestValidationCodes(t *testing.T) {
	_, base := armStart(t, nil)
	uai := base + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/"
	cases := []struct {
		name, url string
		body      any
		status    int
		code      string
	}{
		{"future api-version", uai + "ida?api-version=2099-01-01", map[string]any{"location": "westeurope"}, 400, "NoRegisteredProviderFound"},
		{"malformed api-version", uai + "ida?api-version=v1", map[string]any{"location": "westeurope"}, 400, "InvalidApiVersionParameter"},
		{"unknown type", base + "/providers/Microsoft.Storage/storageAccountz/a?api-version=2023-01-01", map[string]any{"location": "westeurope"}, 400, "InvalidResourceType"},
		{"no location", uai + "ida?api-version=2023-01-31", map[string]any{}, 400, "LocationRequired"},
		{"made-up location", uai + "ida?api-version=2023-01-31", map[string]any{"location": "atlantis"}, 400, "LocationNotAvailableForResourceType"},
		{"display-name location", uai + "ida?api-version=2023-01-31", map[string]any{"location": "West Europe"}, 201, ""},
		{"storage name rule", base + "/providers/Microsoft.Storage/storageAccounts/Bad_Name?api-version=2023-01-01", map[string]any{"location": "westeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}}, 400, "AccountNameInvalid"},
		{"object where a string is declared", base + "/providers/Microsoft.Network/virtualNetworks/v?api-version=2024-01-01", `{"location":"westeurope","properties":{"addressSpace":"10.0.0.0/16"}}`, 400, "InvalidRequestContent"},
		{"quoted number accepted", base + "/providers/Microsoft.Network/networkSecurityGroups/n?api-version=2024-01-01", `{"location":"westeurope","properties":{"securityRules":[{"name":"r","properties":{"priority":"200","access":"Allow","direction":"Inbound","protocol":"*"}}]}}`, 201, ""},
		{"unknown property accepted", uai + "idb?api-version=2023-01-31", map[string]any{"location": "westeurope", "properties": map[string]any{"madeUp": 1}}, 201, ""},
		{"missing referenced subnet", base + "/providers/Microsoft.Network/networkInterfaces/nic?api-version=2024-01-01",
			map[string]any{"location": "westeurope", "properties": map[string]any{"ipConfigurations": []any{map[string]any{"name": "c", "properties": map[string]any{"subnet": map[string]any{"id": "/subscriptions/" + testSub + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s"}}}}}},
			400, "InvalidResourceReference"},
		{"role assignment name must be a GUID", base + "/providers/Microsoft.Authorization/roleAssignments/x?api-version=2022-04-01", map[string]any{"properties": map[string]any{"principalId": "p"}}, 400, "InvalidRoleAssignmentId"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := do(t, http.MethodPut, c.url, c.body)
			if r.Status != c.status || errCode(r) != c.code {
				t.Errorf("got %d %q, want %d %q: %s", r.Status, errCode(r), c.status, c.code, r.Raw)
			}
		})
	}
}

func TestCreateStatusFollowsSpec(t *testing.T) {
	_, base := armStart(t, nil)
	sa := base + "/providers/Microsoft.Storage/storageAccounts/stone?api-version=2023-01-01"
	body := map[string]any{"location": "westeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}}
	r := do(t, http.MethodPut, sa, body)
	if r.Status != 202 || r.Header.Get("Location") == "" {
		t.Fatalf("storage create: %d (Location %q), want 202 with Location: storage declares 200/202", r.Status, r.Header.Get("Location"))
	}
	if r := do(t, http.MethodPut, sa, body); r.Status != 200 {
		t.Errorf("storage update: %d, want 200", r.Status)
	}
	uai := base + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id1?api-version=2023-01-31"
	if r := do(t, http.MethodPut, uai, map[string]any{"location": "westeurope"}); r.Status != 201 {
		t.Errorf("identity create: %d, want 201", r.Status)
	}
}

func TestInlineChildrenSyncBothWays(t *testing.T) {
	_, base := armStart(t, nil)
	vnet := base + "/providers/Microsoft.Network/virtualNetworks/v"
	q := "?api-version=2024-01-01"
	body := map[string]any{"location": "westeurope", "properties": map[string]any{
		"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}},
		"subnets": []any{
			map[string]any{"name": "a", "properties": map[string]any{"addressPrefix": "10.0.1.0/24"}},
			map[string]any{"name": "b", "properties": map[string]any{"addressPrefix": "10.0.2.0/24"}},
		}}}
	if r := do(t, http.MethodPut, vnet+q, body); r.Status >= 300 {
		t.Fatalf("vnet: %d %s", r.Status, r.Raw)
	}
	g := do(t, http.MethodGet, vnet+"/subnets/b"+q, nil)
	if g.Status != 200 || str(g.Body, "properties", "addressPrefix") != "10.0.2.0/24" || !strings.HasSuffix(str(g.Body, "id"), "/virtualNetworks/v/subnets/b") {
		t.Fatalf("inline subnet b: %d %s", g.Status, g.Raw)
	}
	if r := do(t, http.MethodPut, vnet+"/subnets/c"+q, map[string]any{"properties": map[string]any{"addressPrefix": "10.0.3.0/24"}}); r.Status >= 300 {
		t.Fatalf("subnet c: %d %s", r.Status, r.Raw)
	}
	subnetIDs := func() []string {
		v := do(t, http.MethodGet, vnet+q, nil)
		props, _ := v.Body["properties"].(map[string]any)
		items, _ := props["subnets"].([]any)
		var ids []string
		for _, it := range items {
			ids = append(ids, str(it, "id"))
		}
		return ids
	}
	if ids := subnetIDs(); len(ids) != 3 || !strings.HasSuffix(ids[2], "/subnets/c") {
		t.Fatalf("vnet after child PUT lists %v, want a, b, c", ids)
	}
	if r := do(t, http.MethodDelete, vnet+"/subnets/a"+q, nil); r.Status >= 300 {
		t.Fatalf("delete a: %d %s", r.Status, r.Raw)
	}
	if ids := subnetIDs(); len(ids) != 2 {
		t.Fatalf("vnet after child DELETE lists %v, want b, c", ids)
	}
	// A parent PUT is authoritative for the array it sends.
	body["properties"].(map[string]any)["subnets"] = []any{map[string]any{"name": "b", "properties": map[string]any{"addressPrefix": "10.0.2.0/24"}}}
	do(t, http.MethodPut, vnet+q, body)
	if r := do(t, http.MethodGet, vnet+"/subnets/c"+q, nil); r.Status != 404 {
		t.Errorf("subnet c after a parent PUT without it: %d, want 404", r.Status)
	}
	l := do(t, http.MethodGet, vnet+"/subnets"+q, nil)
	if vals, _ := l.Body["value"].([]any); len(vals) != 1 {
		t.Errorf("subnet list: %s", l.Raw)
	}
}

func TestImplicitChildren(t *testing.T) {
	_, base := armStart(t, nil)
	sa := base + "/providers/Microsoft.Storage/storageAccounts/sttwo"
	do(t, http.MethodPut, sa+"?api-version=2023-01-01", map[string]any{"location": "westeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}})
	for _, svc := range []string{"blobServices", "fileServices", "queueServices", "tableServices"} {
		if r := do(t, http.MethodGet, sa+"/"+svc+"/default?api-version=2023-01-01", nil); r.Status != 200 {
			t.Errorf("%s/default: %d", svc, r.Status)
		}
	}
	nsg := base + "/providers/Microsoft.Network/networkSecurityGroups/n?api-version=2024-01-01"
	r := do(t, http.MethodPut, nsg, map[string]any{"location": "westeurope"})
	props, _ := r.Body["properties"].(map[string]any)
	if rules, _ := props["defaultSecurityRules"].([]any); len(rules) != 6 {
		t.Errorf("NSG default rules: %d, want 6", len(rules))
	}
}

func TestActionsAreDeterministicAndDistinct(t *testing.T) {
	s, base := armStart(t, nil)
	keys := func(name string) string {
		sa := base + "/providers/Microsoft.Storage/storageAccounts/" + name
		do(t, http.MethodPut, sa+"?api-version=2023-01-01", map[string]any{"location": "westeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}})
		r := do(t, http.MethodPost, sa+"/listKeys?api-version=2023-01-01", nil)
		ks, _ := r.Body["keys"].([]any)
		if len(ks) != 2 {
			t.Fatalf("listKeys %s: %s", name, r.Raw)
		}
		return str(ks[0], "value")
	}
	a1, a2, b := keys("sta"), keys("sta"), keys("stb")
	if a1 == "" || a1 != a2 || a1 == b {
		t.Errorf("keys: %q %q %q, want stable per account and distinct across accounts", a1, a2, b)
	}
	check := s.URL() + "/subscriptions/" + testSub + "/providers/Microsoft.Storage/checkNameAvailability?api-version=2023-01-01"
	for name, want := range map[string]bool{"sta": false, "stfree": true} {
		r := do(t, http.MethodPost, check, map[string]any{"name": name, "type": "Microsoft.Storage/storageAccounts"})
		if got, _ := r.Body["nameAvailable"].(bool); got != want {
			t.Errorf("checkNameAvailability %s: %s", name, r.Raw)
		}
	}
}

func TestPagingFilterAndProviders(t *testing.T) {
	s, base := armStart(t, func(o *Options) { o.PageSize = 2 })
	for _, n := range []string{"ida", "idb", "idc", "idd", "ide"} {
		do(t, http.MethodPut, base+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/"+n+"?api-version=2023-01-31", map[string]any{"location": "westeurope"})
	}
	next := base + "/resources?api-version=2021-04-01&$filter=" + "resourceType%20eq%20'Microsoft.ManagedIdentity/userAssignedIdentities'"
	var names []string
	for next != "" {
		r := do(t, http.MethodGet, next, nil)
		vals, _ := r.Body["value"].([]any)
		if len(vals) > 2 {
			t.Fatalf("page of %d with page size 2", len(vals))
		}
		for _, v := range vals {
			names = append(names, str(v, "name"))
		}
		next, _ = r.Body["nextLink"].(string)
		if next != "" && !strings.HasPrefix(next, s.URL()) {
			t.Fatalf("nextLink %q is not on the emulator's host", next)
		}
	}
	if strings.Join(names, ",") != "ida,idb,idc,idd,ide" {
		t.Errorf("paged names %v", names)
	}
	if r := do(t, http.MethodGet, base+"/resources?api-version=2021-04-01&$filter=bogus", nil); r.Status != 400 {
		t.Errorf("unsupported $filter: %d, want 400", r.Status)
	}
	p := do(t, http.MethodGet, s.URL()+"/subscriptions/"+testSub+"/providers/Microsoft.Network?api-version=2021-04-01", nil)
	if p.Status != 200 || !strings.Contains(p.Raw, `"resourceType":"virtualNetworks"`) {
		t.Errorf("provider Microsoft.Network: %d %.200s", p.Status, p.Raw)
	}
}

func TestPatchReplacesTags(t *testing.T) {
	_, base := armStart(t, nil)
	u := base + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id1?api-version=2023-01-31"
	do(t, http.MethodPut, u, map[string]any{"location": "westeurope", "tags": map[string]any{"a": "1", "b": "2"}})
	r := do(t, http.MethodPatch, u, map[string]any{"tags": map[string]any{"c": "3"}})
	tags, _ := r.Body["tags"].(map[string]any)
	if len(tags) != 1 || tags["c"] != "3" {
		t.Errorf("tags after PATCH: %v, want only c", tags)
	}
}

func TestNetworkParentSerialisation(t *testing.T) {
	_, base := armStart(t, func(o *Options) { o.LRODuration = time.Hour })
	vnet := base + "/providers/Microsoft.Network/virtualNetworks/v"
	q := "?api-version=2024-01-01"
	// Seeded so the parent itself has no operation in flight.
	do(t, http.MethodPut, vnet+q, map[string]any{"location": "westeurope", "properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}}}})
	_ = do(t, http.MethodPut, vnet+"/subnets/a"+q, map[string]any{"properties": map[string]any{"addressPrefix": "10.0.1.0/24"}})
	r := do(t, http.MethodPut, vnet+"/subnets/b"+q, map[string]any{"properties": map[string]any{"addressPrefix": "10.0.2.0/24"}})
	if r.Status != 409 || errCode(r) != "AnotherOperationInProgress" {
		t.Errorf("sibling write while one is in flight: %d %s, want 409 AnotherOperationInProgress", r.Status, r.Raw)
	}
}

func TestDeleteMissingWithIfMatchIs204(t *testing.T) {
	_, base := armStart(t, nil)
	r := do(t, http.MethodDelete, base+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/none?api-version=2023-01-31", nil, "If-Match", `"x"`)
	if r.Status != 204 {
		t.Errorf("DELETE missing with If-Match: %d, want 204", r.Status)
	}
}

func TestBigNumbersRoundTrip(t *testing.T) {
	_, base := armStart(t, nil)
	u := base + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/num?api-version=2023-01-31"
	do(t, http.MethodPut, u, `{"location":"westeurope","properties":{"big":12345678901234567890,"odd":9007199254740993}}`)
	r := do(t, http.MethodGet, u, nil)
	if !strings.Contains(r.Raw, `"big":12345678901234567890`) || !strings.Contains(r.Raw, `"odd":9007199254740993`) {
		t.Errorf("numbers not exact: %s", r.Raw)
	}
}

func TestPlausibleStatuses(t *testing.T) {
	for _, c := range []struct {
		codes []int
		want  bool
	}{
		{nil, false},
		{[]int{200, 202}, true},
		{[]int{200, 201}, true},
		{[]int{0, 1, 10}, false},
		{[]int{200, 204}, false},
	} {
		if got := plausibleStatuses(c.codes); got != c.want {
			t.Errorf("plausibleStatuses(%v) = %v, want %v", c.codes, got, c.want)
		}
	}
}

func TestParseFilter(t *testing.T) {
	body := map[string]any{"name": "St1", "type": "Microsoft.Storage/storageAccounts", "location": "West Europe",
		"id":         "/subscriptions/s/resourceGroups/RG1/providers/Microsoft.Storage/storageAccounts/St1",
		"tags":       map[string]any{"env": "dev"},
		"properties": map[string]any{"principalId": "p-1"}}
	cases := []struct {
		filter string
		want   bool
		bad    bool
	}{
		{"resourceType eq 'microsoft.storage/storageaccounts'", true, false},
		{"name eq 'st1' and location eq 'westeurope'", true, false},
		{"resourceGroup eq 'rg1'", true, false},
		{"tagName eq 'env' and tagValue eq 'dev'", true, false},
		{"tagName eq 'env' and tagValue eq 'prod'", false, false},
		{"substringof('t1', name)", true, false},
		{"principalId eq 'p-1'", true, false},
		{"atScope() and assignedTo('p-1')", true, false},
		{"assignedTo('p-2')", false, false},
		{"name eq 'o''brien'", false, false},
		// ne and startswith are documented for the generic lists.
		{"name ne 'x'", true, false},
		{"resourceType ne 'Microsoft.Storage/storageAccounts'", false, false},
		{"startswith(name, 'x')", false, false},
		{"startswith(tagName, 'en')", true, false},
		{"startswith(tagName, 'prod')", false, false},
		{"name gt 'x'", false, true},
		{"endswith(name, 'x')", false, true},
		{"tagName ne 'env'", false, true},
	}
	for _, c := range cases {
		pred, err := parseFilter(c.filter)
		if (err != nil) != c.bad {
			t.Errorf("%q: error %v, want error=%v", c.filter, err, c.bad)
			continue
		}
		if err == nil && pred(body) != c.want {
			t.Errorf("%q matched %v, want %v", c.filter, !c.want, c.want)
		}
	}
}

func TestFirstFreeHost(t *testing.T) {
	if got := firstFreeHost("10.1.2.0/24", nil); got != "10.1.2.4" {
		t.Errorf("first host of an empty subnet: %q, want 10.1.2.4", got)
	}
	if got := firstFreeHost("10.1.2.0/24", map[string]bool{"10.1.2.4": true, "10.1.2.6": true}); got != "10.1.2.5" {
		t.Errorf("first free host: %q, want 10.1.2.5", got)
	}
	full := map[string]bool{"10.0.0.4": true, "10.0.0.5": true, "10.0.0.6": true}
	if got := firstFreeHost("10.0.0.0/29", full); got != "" {
		t.Errorf("a full /29 (broadcast .7 excluded): %q", got)
	}
	if firstFreeHost("10.0.0.0/30", nil) != "" || firstFreeHost("fd00::/64", nil) != "" || firstFreeHost("nonsense", nil) != "" {
		t.Error("expected no address for tiny, IPv6 or invalid prefixes")
	}
}

func TestParentCopyOfChildSettles(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func() { mu.Lock(); now = now.Add(time.Minute); mu.Unlock() }
	_, base := armStart(t, func(o *Options) { o.LRODuration = time.Second; o.Now = clock })
	vnet := base + "/providers/Microsoft.Network/virtualNetworks/v"
	q := "?api-version=2024-01-01"
	do(t, http.MethodPut, vnet+q, map[string]any{"location": "westeurope", "properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}}}})
	advance()
	do(t, http.MethodPut, vnet+"/subnets/a"+q, map[string]any{"properties": map[string]any{"addressPrefix": "10.0.1.0/24"}})
	advance()
	v := do(t, http.MethodGet, vnet+q, nil)
	items, _ := asMap(v.Body["properties"])["subnets"].([]any)
	if len(items) != 1 || str(items[0], "properties", "provisioningState") != "Succeeded" {
		t.Errorf("vnet's copy of subnet a: %s", v.Raw)
	}
}

func TestInUseNetworkResourcesCannotBeDeleted(t *testing.T) {
	_, base := armStart(t, nil)
	q := "?api-version=2024-01-01"
	nsg := base + "/providers/Microsoft.Network/networkSecurityGroups/n"
	vnet := base + "/providers/Microsoft.Network/virtualNetworks/v"
	nic := base + "/providers/Microsoft.Network/networkInterfaces/nic"
	do(t, http.MethodPut, nsg+q, map[string]any{"location": "westeurope"})
	nsgID := "/subscriptions/" + testSub + "/resourceGroups/rg/providers/Microsoft.Network/networkSecurityGroups/n"
	do(t, http.MethodPut, vnet+q, map[string]any{"location": "westeurope", "properties": map[string]any{
		"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}},
		"subnets":      []any{map[string]any{"name": "a", "properties": map[string]any{"addressPrefix": "10.0.1.0/24", "networkSecurityGroup": map[string]any{"id": nsgID}}}}}})
	subnetID := "/subscriptions/" + testSub + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/a"
	if r := do(t, http.MethodPut, nic+q, map[string]any{"location": "westeurope", "properties": map[string]any{"ipConfigurations": []any{
		map[string]any{"name": "c", "properties": map[string]any{"subnet": map[string]any{"id": subnetID}}}}}}); r.Status >= 300 {
		t.Fatalf("nic: %d %s", r.Status, r.Raw)
	}
	for _, c := range []struct{ url, code string }{
		{nsg, "InUseNetworkSecurityGroupCannotBeDeleted"},
		{vnet + "/subnets/a", "InUseSubnetCannotBeDeleted"},
		{vnet, "InUseSubnetCannotBeDeleted"},
	} {
		if r := do(t, http.MethodDelete, c.url+q, nil); r.Status != 400 || errCode(r) != c.code {
			t.Errorf("DELETE %s while in use: %d %s, want 400 %s", c.url, r.Status, r.Raw, c.code)
		}
	}
	// Dependents first, then it goes.
	for _, u := range []string{nic, vnet, nsg} {
		if r := do(t, http.MethodDelete, u+q, nil); r.Status >= 300 {
			t.Errorf("DELETE %s in order: %d %s", u, r.Status, r.Raw)
		}
	}
}

// regenerateKey changes the key it names, and only that one; listKeys
// then answers the new value (so rotation detection can be exercised).
func TestRegenerateKeyRotatesTheNamedKey(t *testing.T) {
	_, base := armStart(t, nil)
	sa := base + "/providers/Microsoft.Storage/storageAccounts/strot"
	do(t, http.MethodPut, sa+"?api-version=2023-01-01", map[string]any{"location": "westeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}})
	keys := func() (string, string) {
		r := do(t, http.MethodPost, sa+"/listKeys?api-version=2023-01-01", nil)
		ks, _ := r.Body["keys"].([]any)
		if len(ks) != 2 {
			t.Fatalf("listKeys: %s", r.Raw)
		}
		return str(ks[0], "value"), str(ks[1], "value")
	}
	k1, k2 := keys()
	r := do(t, http.MethodPost, sa+"/regenerateKey?api-version=2023-01-01", map[string]any{"keyName": "key1"})
	if r.Status != 200 {
		t.Fatalf("regenerateKey: %d %s", r.Status, r.Raw)
	}
	n1, n2 := keys()
	if n1 == k1 || n2 != k2 {
		t.Errorf("after regenerating key1: key1 changed %v, key2 kept %v; want key1 new and key2 unchanged", n1 != k1, n2 == k2)
	}
	if r := do(t, http.MethodPost, sa+"/regenerateKey?api-version=2023-01-01", map[string]any{"keyName": "key3"}); r.Status != 400 {
		t.Errorf("regenerateKey of key3: %d, want 400", r.Status)
	}
}
