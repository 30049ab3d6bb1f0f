package emulator

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// A scalar the provider converts is stored and answered with the spec's
// type; one it cannot convert is refused with ARM's conversion error.
func TestScalarsAreStoredAsTheSpecTypes(t *testing.T) {
	_, base := armStart(t, nil)
	nsg := base + "/providers/Microsoft.Network/networkSecurityGroups/nsg1"
	rule := `{"name":"r1","properties":{"priority":"200","access":"Allow","direction":"Inbound","protocol":"Tcp",` +
		`"sourceAddressPrefix":"*","sourcePortRange":"*","destinationAddressPrefix":"*","destinationPortRange":443,"destinationPortRanges":[],` +
		`"sourcePortRanges":[]}}`
	if r := do(t, http.MethodPut, nsg+"?api-version=2024-05-01", `{"location":"westeurope","properties":{"securityRules":[`+rule+`]}}`); r.Status >= 300 {
		t.Fatalf("PUT nsg: %d %s", r.Status, r.Raw)
	}
	child := nsg + "/securityRules/r2?api-version=2024-05-01"
	if r := do(t, http.MethodPut, child, `{"properties":{"priority":"300","access":"Deny","direction":"Outbound","protocol":"*",`+
		`"sourceAddressPrefix":"*","sourcePortRange":"*","destinationAddressPrefix":"*","destinationPortRanges":[80,"8080"]}}`); r.Status >= 300 {
		t.Fatalf("PUT rule: %d %s", r.Status, r.Raw)
	}
	vnet := base + "/providers/Microsoft.Network/virtualNetworks/v1?api-version=2024-05-01"
	if r := do(t, http.MethodPut, vnet, `{"location":"westeurope","properties":{"addressSpace":{"addressPrefixes":["10.0.0.0/16"]},"enableDdosProtection":"False"}}`); r.Status >= 300 {
		t.Fatalf("PUT vnet: %d %s", r.Status, r.Raw)
	}

	nsgBody := do(t, http.MethodGet, nsg+"?api-version=2024-05-01", nil).Raw
	r2Body := do(t, http.MethodGet, child, nil).Raw
	vnetBody := do(t, http.MethodGet, vnet, nil).Raw
	for _, c := range []struct {
		name, raw, path string
		want            any
	}{
		{"quoted integer in the parent's array", nsgBody, "properties.securityRules.r1.properties.priority", 200.0},
		{"number for a string in the parent's array", nsgBody, "properties.securityRules.r1.properties.destinationPortRange", "443"},
		{"quoted integer in a child PUT", r2Body, "properties.priority", 300.0},
		{"numbers for strings in an array", r2Body, "properties.destinationPortRanges", []any{"80", "8080"}},
		{"child PUT as seen in the parent", nsgBody, "properties.securityRules.r2.properties.priority", 300.0},
		{"quoted boolean", vnetBody, "properties.enableDdosProtection", false},
	} {
		if got := pick(t, c.raw, c.path); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %s = %#v, want %#v", c.name, c.path, got, c.want)
		}
	}

	// Not convertible: refused, nothing stored.
	bad := nsg + "/securityRules/r3?api-version=2024-05-01"
	r := do(t, http.MethodPut, bad, `{"properties":{"priority":"abc","access":"Deny","direction":"Outbound","protocol":"*"}}`)
	if r.Status != 400 || errCode(r) != "InvalidRequestContent" ||
		!strings.Contains(r.Raw, `Error converting value \"abc\" to type 'System.Int32'. Path 'properties.priority'`) {
		t.Errorf("priority \"abc\": %d %s, want 400 InvalidRequestContent naming the value, type and path", r.Status, r.Raw)
	}
	if g := do(t, http.MethodGet, bad, nil); g.Status != 404 {
		t.Errorf("refused rule was stored: GET %d", g.Status)
	}
	// An empty string for an optional number is no value to the reader:
	// accepted (a PostgreSQL sku capacity "" in a public template).
	if r := do(t, http.MethodPut, vnet, `{"location":"westeurope","properties":{"addressSpace":{"addressPrefixes":["10.0.0.0/16"]},"flowTimeoutInMinutes":""}}`); r.Status >= 300 {
		t.Errorf("empty string for an integer: %d %s, want it accepted", r.Status, r.Raw)
	}
	// ARM stores tags as strings: a number or boolean is kept as its text
	// (azure-cli issue 15946), an object is refused.
	if r := do(t, http.MethodPut, vnet, `{"location":"westeurope","tags":{"n":1,"b":true},"properties":{"addressSpace":{"addressPrefixes":["10.0.0.0/16"]}}}`); r.Status >= 300 || str(r.Body, "tags", "n") != "1" || str(r.Body, "tags", "b") != "true" {
		t.Errorf("numeric tag value: %d %s, want it stored as \"1\"", r.Status, r.Raw)
	}
	if r := do(t, http.MethodPut, vnet, `{"location":"westeurope","tags":{"n":{"x":1}},"properties":{"addressSpace":{"addressPrefixes":["10.0.0.0/16"]}}}`); r.Status != 400 {
		t.Errorf("object tag value: %d %s, want 400", r.Status, r.Raw)
	}
}

// A PATCH's values are converted too (a workspace's retentionInDays, the
// property the log-analytics-solution recording sends quoted).
func TestPatchScalarsAreConverted(t *testing.T) {
	_, base := armStart(t, nil)
	ws := base + "/providers/Microsoft.OperationalInsights/workspaces/ws1?api-version=2022-10-01"
	if r := do(t, http.MethodPut, ws, `{"location":"westeurope","properties":{"retentionInDays":"30","sku":{"name":"PerGB2018"}}}`); r.Status >= 300 {
		t.Fatalf("PUT: %d %s", r.Status, r.Raw)
	}
	if got := pick(t, do(t, http.MethodGet, ws, nil).Raw, "properties.retentionInDays"); got != 30.0 {
		t.Errorf("after PUT retentionInDays = %#v, want 30", got)
	}
	if r := do(t, http.MethodPatch, ws, `{"properties":{"retentionInDays":"60"}}`); r.Status >= 300 {
		t.Fatalf("PATCH: %d %s", r.Status, r.Raw)
	}
	if got := pick(t, do(t, http.MethodGet, ws, nil).Raw, "properties.retentionInDays"); got != 60.0 {
		t.Errorf("after PATCH retentionInDays = %#v, want 60", got)
	}
}

func TestParseNumber(t *testing.T) {
	for in, want := range map[string]string{
		"42": "42", " 42 ": "42", "1.25": "1.25", "1e3": "1e3", "-7": "-7",
		"0100": "100", "+5": "5", "1.": "1",
		"": "", "abc": "", "NaN": "", "Inf": "", "-Infinity": "", "0x10": "", "1_000": "", "true": "",
	} {
		got, ok := parseNumber(in)
		if string(got) != want || ok != (want != "") {
			t.Errorf("parseNumber(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// pick reads a dotted path from a JSON body; a segment after an array
// selects the item whose name is that segment.
func pick(t *testing.T, raw, path string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	for _, seg := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[seg]
		case []any:
			v = nil
			for _, it := range x {
				if m, ok := it.(map[string]any); ok && m["name"] == seg {
					v = m
				}
			}
		default:
			return nil
		}
	}
	return v
}

// An empty string where the spec wants an array or object is read as
// null, as the providers' reader does ("zones": "" from a quickstart whose
// zone is "none"); any other string there is still refused.
func TestEmptyStringForArrayIsNull(t *testing.T) {
	u, g := startWithGroup(t, "rg-empty")
	ip := u + g + "/providers/Microsoft.Network/publicIPAddresses/pip1?api-version=2023-09-01"
	body := func(zones any) map[string]any {
		return map[string]any{"location": "westeurope", "zones": zones, "sku": map[string]any{"name": "Standard"}, "properties": map[string]any{"publicIPAllocationMethod": "Static"}}
	}
	if r := do(t, http.MethodPut, ip, body("")); r.Status >= 300 {
		t.Fatalf(`zones "": %d %s`, r.Status, r.Raw)
	}
	if b := do(t, http.MethodGet, ip, nil).Body; b["zones"] != nil {
		t.Errorf(`zones "" stored as %v, want none`, b["zones"])
	}
	if r := do(t, http.MethodPut, ip, body("1")); errCode(r) != "InvalidRequestContent" {
		t.Errorf(`zones "1": %d %s, want InvalidRequestContent`, r.Status, r.Raw)
	}
}
