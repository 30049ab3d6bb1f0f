package plugins

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/internal/shareddata"
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

type record struct {
	Source       string         `json:"source"`
	ResourceType string         `json:"resourceType"`
	APIVersion   string         `json:"apiVersion"`
	PutBody      map[string]any `json:"putBody"`
	GetBody      map[string]any `json:"getBody"`
}

var (
	once    sync.Once
	bySrc   map[string]record
	loadErr error
)

func corpusRecord(t *testing.T, source string) record {
	t.Helper()
	p := shareddata.Path(t, "corpus", "azure-cli-extensions", "roundtrips.jsonl.gz")
	once.Do(func() {
		bySrc = map[string]record{}
		f, err := os.Open(p)
		if err != nil {
			loadErr = err
			return
		}
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			loadErr = err
			return
		}
		sc := bufio.NewScanner(zr)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			// Numbers as json.Number, as the tool decodes every body.
			var r record
			d := json.NewDecoder(bytes.NewReader(sc.Bytes()))
			d.UseNumber()
			if err := d.Decode(&r); err != nil {
				loadErr = err
				return
			}
			bySrc[strings.TrimPrefix(r.Source, "azure-cli-extensions:")] = r
		}
	})
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	r, ok := bySrc[source]
	if !ok {
		t.Fatalf("corpus record %s not found", source)
	}
	return r
}

func compute(r record, p diff.Plugin) diff.Result {
	s, _ := schema.Default().Lookup(r.ResourceType, r.APIVersion)
	return diff.Compute(diff.Input{Desired: r.PutBody, Live: r.GetBody, Schema: s, Plugin: p, Explain: true})
}

func changePaths(r diff.Result) []string {
	var out []string
	for _, c := range r.Changes {
		out = append(out, c.Path)
	}
	return out
}

// claimedPaths lists the changes that claim a difference: all but those
// planned only because live does not return the value (first plans).
func claimedPaths(r diff.Result) []string {
	var out []string
	for _, c := range r.Changes {
		if c.Cause != diff.CauseUnverifiable {
			out = append(out, c.Path)
		}
	}
	return out
}

// Each plugin rule against the real record it was derived from: without
// the plugin the record is noisy at that path; with it, quiet. The test
// name is the record's source.
func TestPluginsOnTheirEvidence(t *testing.T) {
	cases := []struct {
		source, path string
	}{
		{"src/containerapp/azext_containerapp/tests/latest/recordings/test_containerapp_addon_binding_e2e.yaml#68", "properties.template.containers[redis].image"},
		{"src/containerapp/azext_containerapp/tests/latest/recordings/test_containerapp_addon_binding_e2e.yaml#93", "properties.template.containers[postgres].image"},
		{"src/site-recovery/azext_site_recovery/tests/latest/recordings/test_siterecovery_A2A_scenarios.yaml#76", "properties.groups"},
		{"src/azure-firewall/azext_firewall/tests/latest/recordings/test_azure_firewall_policy_with_snat.yaml#0", "properties.snat.privateRanges"},
		{"src/azure-firewall/azext_firewall/tests/latest/recordings/test_azure_firewall_policy_with_snat.yaml#4", "properties.snat.autoLearnPrivateRanges"},
		{"src/image-gallery/azext_image_gallery/tests/latest/recordings/test_community_gallery_operations.yaml#33", "properties.publishingProfile.targetRegions[centraluseuap]"},
		{"src/support/azext_support/tests/latest/recordings/test_support_tickets.yaml#5", "properties.body"},
		{"src/logic/azext_logic/tests/latest/recordings/test_integration_account_map.yaml#6", "properties.contentType"},
		{"src/quota/azext_quota/tests/latest/recordings/test_quota_crud.yaml#1", "properties.resourceType"},
		{"src/notification-hub/azext_notification_hub/tests/latest/recordings/test_notificationhubs.yaml#6", "properties.name"},
	}
	for _, c := range cases {
		t.Run(c.source, func(t *testing.T) {
			r := corpusRecord(t, c.source)
			without := compute(r, nil)
			found := false
			for _, p := range changePaths(without) {
				if p == c.path {
					found = true
				}
			}
			if !found {
				t.Fatalf("without the plugin, expected noise at %s; got %v", c.path, changePaths(without))
			}
			with := compute(r, For(r.ResourceType))
			if got := claimedPaths(with); len(got) > 0 {
				t.Fatalf("with the plugin: %s %v", with.Action, got)
			}
		})
	}
}

func TestRegistry(t *testing.T) {
	if For("microsoft.network/VIRTUALNETWORKS") == nil {
		t.Error("lookup is not case-insensitive")
	}
	if For("Example.Unknown/things") != nil {
		t.Error("unknown type has a plugin")
	}
	for _, typ := range Types() {
		p := For(typ)
		if p == nil || p.Rules() == nil {
			t.Errorf("%s: registered without rules", typ)
		}
		// Hooks tolerate nil bodies.
		p.AfterGet(nil)
		p.BeforeWrite(nil)
		p.BeforeCompare(nil, nil)
	}
}

// A subnet managed as its own resource is never removed by a write of its
// vnet: neither PUT nor PATCH drops a live child the vnet manifest does not
// own, even when the manifest says "subnets: []" or changes another subnet.
func TestVnetWriteKeepsChildSubnets(t *testing.T) {
	r := corpusRecord(t, "src/ad/azext_ad/tests/latest/recordings/test_ad_Scenario.yaml#11")
	s, _ := schema.Default().Lookup(r.ResourceType, r.APIVersion)
	live := deepCopy(r.GetBody)
	subnets := live["properties"].(map[string]any)["subnets"].([]any)
	child := map[string]any{"name": "managed-elsewhere", "id": "/x/subnets/managed-elsewhere", "properties": map[string]any{"addressPrefix": "10.0.9.0/24"}}
	live["properties"].(map[string]any)["subnets"] = append(subnets, child)

	for name, desired := range map[string]map[string]any{
		"inline subnet changed": withPath(r.PutBody, func(p map[string]any) {
			p["subnets"].([]any)[0].(map[string]any)["properties"].(map[string]any)["addressPrefix"] = "10.0.0.0/25"
		}),
		"empty subnets list": withPath(r.PutBody, func(p map[string]any) { p["subnets"] = []any{} }),
		"no subnets key": withPath(r.PutBody, func(p map[string]any) {
			delete(p, "subnets")
			p["addressSpace"] = map[string]any{"addressPrefixes": []any{"10.0.0.0/8"}}
		}),
	} {
		t.Run(name, func(t *testing.T) {
			in := diff.Input{Desired: desired, LastApplied: r.PutBody, Live: live, Schema: s, Plugin: For(r.ResourceType)}
			res := diff.Compute(in)
			for _, body := range []map[string]any{diff.PutBody(in, res), diff.Patch(in, res)} {
				b, _ := json.Marshal(body)
				if subs, ok := body["properties"].(map[string]any)["subnets"]; ok || name != "no subnets key" {
					if !strings.Contains(string(b), "managed-elsewhere") {
						t.Errorf("child subnet dropped: subnets=%v", subs)
					}
				}
			}
			for _, c := range res.Changes {
				if strings.Contains(c.Path, "managed-elsewhere") {
					t.Errorf("change touches the unowned child: %+v", c)
				}
			}
		})
	}
}

func TestNSGRulesAndRoutesAreChildCollections(t *testing.T) {
	for typ, coll := range map[string]string{
		"Microsoft.Network/networkSecurityGroups": "securityRules",
		"Microsoft.Network/routeTables":           "routes",
	} {
		live := map[string]any{"location": "westus", "properties": map[string]any{coll: []any{
			map[string]any{"name": "child", "id": "/c", "properties": map[string]any{"priority": json.Number("100")}},
		}}}
		desired := map[string]any{"location": "westus", "properties": map[string]any{coll: []any{}}}
		in := diff.Input{Desired: desired, Live: live, Plugin: For(typ)}
		res := diff.Compute(in)
		if res.Action != diff.ActionNoOp {
			t.Errorf("%s: %v", typ, changePaths(res))
		}
		body := diff.PutBody(in, res)
		if items, _ := body["properties"].(map[string]any)[coll].([]any); len(items) != 1 {
			t.Errorf("%s: PUT body drops the child: %v", typ, body)
		}
	}
}

func withPath(body map[string]any, f func(props map[string]any)) map[string]any {
	out := deepCopy(body)
	f(out["properties"].(map[string]any))
	return out
}

func deepCopy(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

func TestAddonImage(t *testing.T) {
	for in, want := range map[string]string{
		"registry.example/k8se/services/postgres:14":             "postgres",
		"registry.example/azure-redis-cache/redis:7.0.12-alpine": "redis",
		"redis":                               "redis",
		"myacr.example/app/k8se/services/x:1": "myacr.example/app/k8se/services/x:1",
		"nginx:latest":                        "nginx:latest",
	} {
		if got := addonImage(in); got != want {
			t.Errorf("addonImage(%q) = %v, want %q", in, got, want)
		}
	}
}

// From specs:.../Microsoft.Network/stable/2018-01-01/examples/ApplicationGatewayCreate.json.
func TestAppGatewayCertificateMaterialIsWriteOnly(t *testing.T) {
	d := map[string]any{"properties": map[string]any{"sslCertificates": []any{
		map[string]any{"name": "sslcert", "properties": map[string]any{"data": "****", "password": "****"}}}}}
	s := map[string]any{"properties": map[string]any{"sslCertificates": []any{
		map[string]any{"name": "sslcert", "id": "/x/sslCertificates/sslcert", "properties": map[string]any{"provisioningState": "Succeeded", "publicCertData": "*****"}}}}}
	sch, _ := schema.Default().Lookup("Microsoft.Network/applicationGateways", "2018-01-01")
	r := diff.Compute(diff.Input{Desired: d, Live: s, Schema: sch, Plugin: For("Microsoft.Network/applicationGateways")})
	// A first plan writes them once, as unverifiable and sensitive.
	if len(claimedPaths(r)) != 0 || len(r.Unverifiable) != 2 || len(r.Changes) != 2 {
		t.Fatalf("got %s %v unverifiable %v", r.Action, changePaths(r), r.Unverifiable)
	}
	for _, c := range r.Changes {
		if c.Cause != diff.CauseUnverifiable || strings.HasSuffix(c.Path, ".password") && !c.Sensitive {
			t.Errorf("%s: %+v", c.Path, c)
		}
	}
}

// The tool decodes numbers as json.Number: the role type 1 the service
// answers must still read as CustomRole.
func TestMongoRoleType(t *testing.T) {
	for _, c := range []struct {
		in, want any
	}{
		{"CustomRole", "CustomRole"},
		{json.Number("1"), "CustomRole"},
		{float64(1), "CustomRole"},
		{json.Number("0"), "BuiltInRole"},
		{"BuiltInRole", "BuiltInRole"},
		{json.Number("2"), json.Number("2")},
		{"Other", "Other"},
		{nil, nil},
	} {
		if got := mongoRoleType(c.in); got != c.want {
			t.Errorf("mongoRoleType(%#v) = %#v, want %#v", c.in, got, c.want)
		}
	}
}
