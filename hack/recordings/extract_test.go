package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sub = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers"

func TestExtract(t *testing.T) {
	vnet := "https://management.azure.com" + sub + "/Microsoft.Network/virtualNetworks/v1?api-version=2024-01-01"
	vnetUpper := "https://management.azure.com" + strings.ToUpper(sub) + "/Microsoft.Network/virtualNetworks/V1?api-version=2024-01-01"
	put := entry{Method: "PUT", URI: vnet, ReqBody: `{"location":"westus"}`, Status: 201}
	get := func(state string) entry {
		return entry{Method: "GET", URI: vnet, Status: 200,
			RespBody: `{"location":"westus","properties":{"provisioningState":"` + state + `"}}`}
	}
	tests := []struct {
		name    string
		entries []entry
		want    []int // getIndex of each pair, in order
	}{
		{"put then get", []entry{put, get("Succeeded")}, []int{1}},
		{"transient GET skipped", []entry{put, get("Updating"), get("Succeeded")}, []int{2}},
		{"ID compared case-insensitively", []entry{put, {Method: "GET", URI: vnetUpper, Status: 200, RespBody: `{}`}}, []int{1}},
		{"failed PUT ignored", []entry{{Method: "PUT", URI: vnet, ReqBody: `{}`, Status: 400}, get("Succeeded")}, nil},
		{"GET error ignored", []entry{put, {Method: "GET", URI: vnet, Status: 404, RespBody: `{}`}}, nil},
		{"later write ends the search", []entry{put, {Method: "PATCH", URI: vnet, Status: 200}, get("Succeeded")}, nil},
		{"second PUT pairs with its own GET", []entry{put, put, get("Succeeded")}, []int{2}},
		{"PUT without JSON body ignored", []entry{{Method: "PUT", URI: vnet, Status: 200}, get("Succeeded")}, nil},
		{"deployments skipped", []entry{
			{Method: "PUT", URI: "https://management.azure.com" + sub + "/Microsoft.Resources/deployments/d?api-version=2021-04-01", ReqBody: `{}`, Status: 201},
			{Method: "GET", URI: "https://management.azure.com" + sub + "/Microsoft.Resources/deployments/d?api-version=2021-04-01", Status: 200, RespBody: `{}`},
		}, nil},
		{"no api-version: not an ARM resource call", []entry{
			{Method: "PUT", URI: "https://management.azure.com" + sub + "/Microsoft.Network/virtualNetworks/v1", ReqBody: `{}`, Status: 200},
			{Method: "GET", URI: "https://management.azure.com" + sub + "/Microsoft.Network/virtualNetworks/v1", Status: 200, RespBody: `{}`},
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ps := extract(tc.entries, false)
			var got []int
			for _, p := range ps {
				got = append(got, p.GetIndex)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("pairs at %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("pairs at %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestExtractFromList(t *testing.T) {
	base := "https://management.azure.com" + sub + "/Microsoft.ServiceBus/namespaces/n/queues"
	q1 := base + "/q1?api-version=2022-10-01-preview"
	list := base + "?api-version=2022-10-01-preview"
	put := entry{Method: "PUT", URI: q1, ReqBody: `{"properties":{}}`, Status: 200}
	item := `{"value":[{"id":"/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.ServiceBus/namespaces/n/queues/OTHER"},` +
		`{"id":"/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.ServiceBus/namespaces/n/queues/Q1","properties":{"x":1}}]}`
	listGet := entry{Method: "GET", URI: list, Status: 200, RespBody: item}
	get := entry{Method: "GET", URI: q1, Status: 200, RespBody: `{"properties":{}}`}
	tests := []struct {
		name     string
		entries  []entry
		fromList bool
		wantIdx  int // -1: no pair
		wantFrom string
	}{
		{"off by default", []entry{put, listGet}, false, -1, ""},
		{"list item used", []entry{put, listGet}, true, 1, "list"},
		{"a GET of the resource wins over an earlier list", []entry{put, listGet, get}, true, 2, ""},
		{"list before a later write still counts", []entry{put, listGet, {Method: "DELETE", URI: q1, Status: 200}}, true, 1, "list"},
		{"resource missing from the list", []entry{put, {Method: "GET", URI: list, Status: 200, RespBody: `{"value":[]}`}}, true, -1, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ps := extract(tc.entries, tc.fromList)
			if tc.wantIdx < 0 {
				if len(ps) != 0 {
					t.Fatalf("got %d pairs, want none", len(ps))
				}
				return
			}
			if len(ps) != 1 || ps[0].GetIndex != tc.wantIdx || ps[0].GetFrom != tc.wantFrom {
				t.Fatalf("got %+v, want one pair at %d from %q", ps, tc.wantIdx, tc.wantFrom)
			}
		})
	}
}

func TestParseResourceURI(t *testing.T) {
	tests := []struct {
		uri, typ string
		ok       bool
	}{
		{"https://management.azure.com//subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/providers/Microsoft.Insights/diagnosticSettings/d?api-version=2021-05-01-preview", "Microsoft.Insights/diagnosticSettings", true},
		{"https://management.azure.com/subscriptions/s/resourcegroups/rg?api-version=2021-04-01", "Microsoft.Resources/resourceGroups", true},
		{"https://management.azure.com/subscriptions/s/providers/Microsoft.Network/locations/westus/operationResults/x?api-version=2024-01-01", "", false},
		{"https://management.azure.com/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/a?api-version=2024-01-01", "Microsoft.Network/virtualNetworks/subnets", true},
	}
	for _, tc := range tests {
		ru, ok := parseResourceURI(tc.uri)
		if ok != tc.ok || (ok && !strings.EqualFold(ru.Type, tc.typ)) {
			t.Errorf("parseResourceURI(%q) = %q, %v; want %q, %v", tc.uri, ru.Type, ok, tc.typ, tc.ok)
		}
	}
}

// Both recording layouts are read in recording order, and numbers come out
// exactly as recorded.
func TestReadRecordingLayouts(t *testing.T) {
	uri := "https://management.azure.com" + sub + "/Microsoft.Insights/autoscalesettings/a?api-version=2022-10-01"
	putBody := `{"properties":{"threshold":9007199254740993,"capacity":12345678901234567890}}`
	getBody := `{"properties":{"threshold":9007199254740993.0,"capacity":12345678901234567890,"provisioningState":"Succeeded"}}`
	session := map[string]any{"Entries": []any{
		map[string]any{"RequestUri": uri, "RequestMethod": "PUT", "RequestBody": putBody, "ResponseBody": "", "StatusCode": 201},
		map[string]any{"RequestUri": uri, "RequestMethod": "GET", "RequestBody": "", "ResponseBody": getBody, "StatusCode": "OK"},
	}}
	// Member names sort GET before PUT, so a reader that lost member
	// order would find no pair.
	autorest := `{"x+$PUT+1": {"Request": {"Method": "PUT", "RequestUri": ` + quote(uri) + `, "Content": ` + quote(putBody) + `},
	 "Response": {"StatusCode": 201, "Content": null}},
	 "a+$GET+2": {"Request": {"Method": "GET", "RequestUri": ` + quote(uri) + `, "Content": null},
	 "Response": {"StatusCode": 200, "Content": ` + quote(getBody) + `}}}`
	sb, _ := json.Marshal(session)
	dir := t.TempDir()
	for name, body := range map[string][]byte{"session.json": sb, "autorest.Recording.json": []byte(autorest)} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, body, 0o600); err != nil {
			t.Fatal(err)
		}
		entries, err := readRecording(p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ps := extract(entries, false)
		if len(ps) != 1 {
			t.Fatalf("%s: %d pairs, want 1", name, len(ps))
		}
		var buf bytes.Buffer
		if err := encodePairs(&buf, ps); err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{`"threshold":9007199254740993}`, "12345678901234567890", `"threshold":9007199254740993.0}`} {
			if !strings.Contains(buf.String(), n) {
				t.Errorf("%s: output lost the exact number %s: %s", name, n, buf.String())
			}
		}
		if ps[0].PutStatus != 201 || ps[0].GetProvisioningState != "Succeeded" {
			t.Errorf("%s: putStatus %d, state %q", name, ps[0].PutStatus, ps[0].GetProvisioningState)
		}
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestCountsTSV(t *testing.T) {
	ps := []pair{
		{Provider: "Microsoft.Network", ResourceType: "Microsoft.Network/virtualNetworks"},
		{Provider: "Microsoft.Network", ResourceType: "Microsoft.Network/virtualNetworks"},
		{Provider: "Microsoft.Network", ResourceType: "Microsoft.Network/publicIPAddresses"},
		{Provider: "Microsoft.Storage", ResourceType: "Microsoft.Storage/storageAccounts"},
	}
	var b bytes.Buffer
	if err := countsTSV(&b, ps); err != nil {
		t.Fatal(err)
	}
	want := "provider\trecords\tresource_types\nmicrosoft.network\t3\t2\nmicrosoft.storage\t1\t1\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
