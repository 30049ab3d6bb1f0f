package emulator

import (
	"net/http"
	"strings"
	"testing"
)

// The Network provider refuses members its model lacks; other providers
// (and Network families served elsewhere, such as DNS) ignore them.
func TestNetworkRefusesUnknownMembers(t *testing.T) {
	_, base := armStart(t, nil)
	net := base + "/providers/Microsoft.Network/"
	rule := func(extra string) string {
		return `{"location":"westeurope","properties":{"securityRules":[{"name":"r","properties":{"priority":100,"access":"Allow","direction":"Inbound","protocol":"*",` +
			`"sourceAddressPrefix":"*","sourcePortRange":"*","destinationAddressPrefix":"*"` + extra + `}}]}}`
	}
	for _, c := range []struct {
		name, url, body string
		status          int
		code, path      string
	}{
		{"misplaced sku on a public IP", net + "publicIPAddresses/pip1?api-version=2024-05-01",
			`{"location":"westeurope","properties":{"sku":{"name":"Standard"},"publicIPAllocationMethod":"Static"}}`, 400, "InvalidRequestFormat", "properties.sku"},
		{"misspelt member in an array item", net + "networkSecurityGroups/nsg1?api-version=2024-05-01",
			rule(`,"destinationPort":"443"`), 400, "InvalidRequestFormat", "properties.securityRules[0].properties.destinationPort"},
		{"unknown top-level member", net + "virtualNetworks/v1?api-version=2024-05-01",
			`{"location":"westeurope","zone":"1","properties":{"addressSpace":{"addressPrefixes":["10.0.0.0/16"]}}}`, 400, "InvalidRequestFormat", "zone"},
		{"a member a later api-version declares", net + "publicIPAddresses/pip2?api-version=2019-11-01",
			`{"location":"westeurope","sku":{"name":"Standard","tier":"Regional"},"properties":{"publicIPAllocationMethod":"Static"}}`, 201, "", ""},
		{"known members only", net + "networkSecurityGroups/nsg2?api-version=2024-05-01",
			rule(`,"destinationPortRange":"443"`), 201, "", ""},
		{"envelope members are ARM's", net + "virtualNetworks/v2?api-version=2024-05-01",
			`{"id":"x","name":"v2","type":"Microsoft.Network/virtualNetworks","etag":"W/\"1\"","location":"westeurope","properties":{"addressSpace":{"addressPrefixes":["10.1.0.0/16"]}}}`, 201, "", ""},
		{"DNS is another provider", net + "dnsZones/example.com?api-version=2018-05-01",
			`{"location":"global","properties":{"madeUp":1}}`, 201, "", ""},
		{"other providers ignore unknown members", base + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id1?api-version=2023-01-31",
			`{"location":"westeurope","properties":{"madeUp":1}}`, 201, "", ""},
	} {
		r := do(t, http.MethodPut, c.url, c.body)
		if r.Status != c.status || errCode(r) != c.code {
			t.Errorf("%s: %d %s, want %d %q", c.name, r.Status, r.Raw, c.status, c.code)
			continue
		}
		if c.code == "" {
			continue
		}
		e, _ := r.Body["error"].(map[string]any)
		ds, _ := e["details"].([]any)
		d, _ := func() (map[string]any, bool) {
			if len(ds) == 0 {
				return nil, false
			}
			m, ok := ds[0].(map[string]any)
			return m, ok
		}()
		msg, _ := d["message"].(string)
		if e["message"] != "Cannot parse the request." || d["code"] != "InvalidJson" ||
			!strings.Contains(msg, "Could not find member '") || !strings.Contains(msg, "Path '"+c.path+"'") {
			t.Errorf("%s: error %s, want Cannot parse the request. with an InvalidJson detail at %s", c.name, r.Raw, c.path)
		}
		if g := do(t, http.MethodGet, c.url, nil); g.Status != 404 {
			t.Errorf("%s: refused body was stored: GET %d", c.name, g.Status)
		}
	}
}

// What the emulator answers for a Network resource can be PUT back as it
// is (a GET-modify-PUT client sends the whole body): it never carries a
// member the type's schema lacks.
func TestNetworkGetBodiesPutBack(t *testing.T) {
	_, base := armStart(t, nil)
	net := base + "/providers/Microsoft.Network/"
	av := "?api-version=2024-05-01"
	creates := []struct{ url, body string }{
		{net + "virtualNetworks/v1" + av, `{"location":"westeurope","properties":{"addressSpace":{"addressPrefixes":["10.0.0.0/16"]},"subnets":[{"name":"s1","properties":{"addressPrefix":"10.0.0.0/24"}}]}}`},
		{net + "networkSecurityGroups/nsg1" + av, `{"location":"westeurope","properties":{"securityRules":[{"name":"r","properties":{"priority":100,"access":"Allow","direction":"Inbound","protocol":"*","sourceAddressPrefix":"*","sourcePortRange":"*","destinationAddressPrefix":"*","destinationPortRange":"*"}}]}}`},
		{net + "publicIPAddresses/pip1" + av, `{"location":"westeurope","sku":{"name":"Standard"},"properties":{"publicIPAllocationMethod":"Static"}}`},
		{net + "networkInterfaces/nic1" + av, `{"location":"westeurope","properties":{"ipConfigurations":[{"name":"c","properties":{"subnet":{"id":"/subscriptions/` + testSub + `/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v1/subnets/s1"}}}]}}`},
		{net + "routeTables/rt1" + av, `{"location":"westeurope","properties":{"routes":[{"name":"r","properties":{"addressPrefix":"0.0.0.0/0","nextHopType":"Internet"}}]}}`},
	}
	for _, c := range creates {
		if r := do(t, http.MethodPut, c.url, c.body); r.Status >= 300 {
			t.Fatalf("PUT %s: %d %s", c.url, r.Status, r.Raw)
		}
	}
	for _, u := range []string{creates[0].url, net + "virtualNetworks/v1/subnets/s1" + av, creates[1].url, net + "networkSecurityGroups/nsg1/securityRules/r" + av, creates[2].url, creates[3].url, creates[4].url} {
		g := do(t, http.MethodGet, u, nil)
		if g.Status != 200 {
			t.Fatalf("GET %s: %d", u, g.Status)
		}
		if r := do(t, http.MethodPut, u, g.Raw); r.Status >= 300 {
			t.Errorf("PUT back %s: %d %s", u, r.Status, r.Raw)
		}
	}
}
