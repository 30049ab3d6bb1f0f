package diff

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// TestGeneralRules is the table for the rule families that hold across
// providers. Each row is a first plan (no state): desired x, live y at a
// field; equal rows must be judged by the named rule, and the unequal rows
// beside them prove the rule does not hide real changes.
func TestGeneralRules(t *testing.T) {
	const sub = "/subscriptions/00000000-0000-0000-0000-000000000001"
	rd := "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"
	cases := []struct {
		name  string
		key   string
		x, y  string
		equal bool
		rule  string
	}{
		// GUIDs: principal, tenant and application IDs are re-cased.
		{"guid upper vs lower", "principalId", "6F1E9A2B-0C3D-4E5F-8A9B-1C2D3E4F5A6B", "6f1e9a2b-0c3d-4e5f-8a9b-1c2d3e4f5a6b", true, RuleGUID},
		{"guid in free text key", "value", "6F1E9A2B-0C3D-4E5F-8A9B-1C2D3E4F5A6B", "6f1e9a2b-0c3d-4e5f-8a9b-1c2d3e4f5a6b", true, RuleGUID},
		{"different guid", "principalId", "6f1e9a2b-0c3d-4e5f-8a9b-1c2d3e4f5a6b", "7f1e9a2b-0c3d-4e5f-8a9b-1c2d3e4f5a6b", false, ""},
		// Boolean-like strings.
		{"True vs true", "value", "True", "true", true, RuleBoolCase},
		{"FALSE vs false", "enabled", "FALSE", "false", true, RuleBoolCase},
		{"true vs false", "value", "true", "false", false, ""},
		// Tenant-scoped versus subscription-scoped IDs.
		{"role definition tenant vs subscription", "roleDefinitionId", rd, sub + rd, true, RuleIDScope},
		{"role definition subscription vs tenant", "roleDefinitionId", sub + rd, rd, true, RuleIDScope},
		{"other role definition", "roleDefinitionId", rd, sub + "/providers/Microsoft.Authorization/roleDefinitions/b24988ac-6180-42a0-ab88-20f7382dd24c", false, ""},
		// Relative versus absolute IDs.
		{"no leading slash", "scope", sub[1:] + "/resourceGroups/rg", sub + "/resourceGroups/rg", true, RuleIDRelative},
		{"relative to the subscription", "scope", "resourceGroups/rg/providers/Microsoft.Web/sites/app", sub + "/resourceGroups/rg/providers/Microsoft.Web/sites/app", true, RuleIDRelative},
		{"relative, other group", "scope", "resourceGroups/rg2", sub + "/resourceGroups/rg", false, ""},
		// Leading slash on paths.
		{"health path slash", "healthCheckPath", "/health", "health", true, RuleLeadingSlash},
		{"path slash added", "path", "api/v1", "/api/v1", true, RuleLeadingSlash},
		{"other path", "healthCheckPath", "/health", "/healthz", false, ""},
		{"slash matters outside paths", "prefix", "/a", "a", false, ""},
		// Surrounding white space.
		{"trimmed", "displayName", " My App ", "My App", true, RuleSurroundSpace},
		{"inner space kept", "displayName", "My  App", "My App", false, ""},
		// JSON documents in strings (a workbook's serializedData).
		{"json re-serialised", "serializedData", `{"version":"Notebook/1.0","items":[{"type":1}],"isLocked":false}`, "{\n  \"isLocked\": false,\n  \"items\": [ { \"type\": 1 } ],\n  \"version\": \"Notebook/1.0\"\n}", true, RuleJSONDocument},
		{"json number spelling", "config", `{"a":1.0}`, `{"a":1}`, true, RuleJSONDocument},
		{"json other value", "serializedData", `{"isLocked":false}`, `{"isLocked":true}`, false, ""},
		{"json array order counts", "config", `[1,2]`, `[2,1]`, false, ""},
		{"json member case counts", "config", `{"A":1}`, `{"a":1}`, false, ""},
		// XML documents (API Management policies, spec examples).
		{"xml re-indented", "value", "<policies> <inbound /> <backend>    <forward-request />  </backend>  <outbound /></policies>", "<policies>\r\n  <inbound />\r\n  <backend>\r\n    <forward-request />\r\n  </backend>\r\n  <outbound />\r\n</policies>", true, RuleXMLDocument},
		{"xml attribute order and escaping", "value", `<set-header name="a" exists-action="override"><value>@(h => h)</value></set-header>`, `<set-header exists-action="override" name="a"><value>@(h =&gt; h)</value></set-header>`, true, RuleXMLDocument},
		{"xml empty element forms", "value", `<a><b/></a>`, `<a><b></b></a>`, true, RuleXMLDocument},
		{"xml other attribute", "value", `<rate-limit calls="5" />`, `<rate-limit calls="6" />`, false, ""},
		{"xml other text", "value", `<a>x</a>`, `<a>y</a>`, false, ""},
		{"xml element case counts", "value", `<a>x</a>`, `<A>x</A>`, false, ""},
		// Line endings.
		{"crlf vs lf", "script", "line1\r\nline2", "line1\nline2", true, RuleLineEndings},
		{"crlf other text", "script", "line1\r\nline2", "line1\nline3", false, ""},
		// Durations.
		{"iso vs timespan", "timeout", "PT1H", "01:00:00", true, RuleDuration},
		{"iso zero minutes", "duration", "PT2H0M", "PT2H", true, RuleDuration},
		{"days with and without T", "retentionInterval", "PT7D", "P7D", true, RuleDuration},
		{"timespan padding", "start", "13:59:0", "13:59:00", true, RuleDuration},
		{"timespan days", "ttl", "P1DT2H", "1.02:00:00", true, RuleDuration},
		{"fractional seconds", "lockDuration", "PT0.5S", "00:00:00.5000000", true, RuleDuration},
		{"other duration", "timeout", "PT1H", "01:00:01", false, ""},
		{"month is not 30 days", "retention", "P1M", "P30D", false, ""},
		{"two-part time is no duration", "at", "1:00", "01:00:00", false, ""},
		// Quantities: same number and unit; bare dotted numbers are
		// versions, where a trailing zero counts.
		{"quantity", "memory", "1.0Gi", "1Gi", true, RuleNumeric},
		{"version trailing zero", "typeHandlerVersion", "1.10", "1.1", false, ""},
		// Base64.
		{"base64 padding", "data", "c29tZSBjZXJ0aWZpY2F0ZSBieXRlcw==", "c29tZSBjZXJ0aWZpY2F0ZSBieXRlcw", true, RuleBase64},
		{"base64 line breaks", "data", "c29tZSBjZXJ0aWZp\r\nY2F0ZSBieXRlcw==", "c29tZSBjZXJ0aWZpY2F0ZSBieXRlcw==", true, RuleBase64},
		{"base64 url alphabet", "key", "ab+/cdefghijklmnopqrstuv", "ab-_cdefghijklmnopqrstuv", true, RuleBase64},
		{"base64 other bytes", "data", "c29tZSBjZXJ0aWZpY2F0ZSBieXRlcw==", "c29tZSBjZXJ0aWZpY2F0ZSBieXRleA==", false, ""},
		{"short strings are not base64", "name", "abcd", "abcd==", false, ""},
		// Version prefix.
		{"v prefix", "kubernetesVersion", "1.24.9", "v1.24.9", true, RuleVersionV},
		{"v prefix other version", "kubernetesVersion", "1.24.9", "v1.24.8", false, ""},
		{"v on a word", "mode", "alid", "valid", false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := Input{
				Desired: map[string]any{"properties": map[string]any{c.key: c.x}},
				Live:    map[string]any{"properties": map[string]any{c.key: c.y}},
				Explain: true,
			}
			r := Compute(in)
			if got := len(r.Changes) == 0; got != c.equal {
				t.Fatalf("equal = %v, want %v (changes %v)", got, c.equal, paths(r.Changes))
			}
			if c.equal {
				if got := ruleFor(r, "properties."+c.key); got != c.rule {
					t.Errorf("rule = %q, want %q", got, c.rule)
				}
			}
		})
	}
}

// TestSecretFlagIsReported: a boolean property named like a credential is
// a flag, and changing it must be reported (not hidden as a secret).
func TestSecretFlagIsReported(t *testing.T) {
	in := Input{
		Desired: map[string]any{"properties": map[string]any{"secret": true}},
		Live:    map[string]any{"properties": map[string]any{"secret": false}},
	}
	r := Compute(in)
	if len(r.Changes) != 1 || r.Changes[0].Sensitive {
		t.Fatalf("want one visible change, got %+v", r.Changes)
	}
}

func TestRulesTried(t *testing.T) {
	f := factsFor(testSchema, nil)
	has := func(list []string, want string) bool {
		for _, r := range list {
			if r == want {
				return true
			}
		}
		return false
	}
	got := f.rulesTried("location", "location", "westus", "eastus")
	for _, want := range []string{RuleExact, RuleLocation, RuleGUID, RuleIDScope} {
		if !has(got, want) {
			t.Errorf("strings at location: %v lacks %s", got, want)
		}
	}
	if got := f.rulesTried("properties.size", "size", 4.0, 5.0); !has(got, RuleNumeric) || has(got, RuleGUID) {
		t.Errorf("numbers: %v", got)
	}
	if got := f.rulesTried("properties.description", "description", "a", "b"); has(got, RuleToken) {
		t.Errorf("free text must not list the token rule: %v", got)
	}
}

// TestExplainNamesRulesTried: --explain on a first plan lists, for a
// reported change, the rule families that did not explain it.
func TestExplainNamesRulesTried(t *testing.T) {
	in := Input{
		Desired: map[string]any{"location": "westeurope", "properties": map[string]any{"mode": "A"}},
		Live:    map[string]any{"location": "westeurope", "properties": map[string]any{"mode": "B"}},
		Explain: true,
	}
	r := Compute(in)
	if len(r.Changes) != 1 || len(r.Changes[0].RulesTried) == 0 || r.Changes[0].RulesTried[0] != RuleExact {
		t.Fatalf("changes = %+v", r.Changes)
	}
	in.Explain = false
	if r := Compute(in); len(r.Changes[0].RulesTried) != 0 {
		t.Error("rules tried listed without --explain")
	}
}

// TestEnumOrdinal: an enum member answered as its position in the spec's
// list (Cosmos DB Mongo role definitions: "CustomRole" answered as 1).
func TestEnumOrdinal(t *testing.T) {
	sch := &schema.Type{Properties: map[string]*schema.Property{
		"properties":      {Type: schema.TypeObject},
		"properties.type": {Type: schema.TypeString, Enum: []string{"BuiltInRole", "CustomRole"}},
	}}
	for _, c := range []struct {
		x, y  any
		equal bool
	}{
		{"CustomRole", json.Number("1"), true},
		{"BuiltInRole", json.Number("0"), true},
		{"CustomRole", json.Number("0"), false},
		{"CustomRole", json.Number("2"), false},
		{"CustomRole", json.Number("1.5"), false},
	} {
		in := Input{Desired: map[string]any{"properties": map[string]any{"type": c.x}},
			Live: map[string]any{"properties": map[string]any{"type": c.y}}, Schema: sch, Explain: true}
		r := Compute(in)
		if got := len(r.Changes) == 0; got != c.equal {
			t.Errorf("%v vs %v: equal = %v", c.x, c.y, got)
		}
		if c.equal && ruleFor(r, "properties.type") != RuleEnumOrdinal {
			t.Errorf("%v vs %v: rule %q", c.x, c.y, ruleFor(r, "properties.type"))
		}
	}
	// Without a declared enum a number is not a name.
	r := Compute(Input{Desired: map[string]any{"properties": map[string]any{"type": "CustomRole"}},
		Live: map[string]any{"properties": map[string]any{"type": json.Number("1")}}})
	if len(r.Changes) != 1 {
		t.Errorf("no enum: %v", paths(r.Changes))
	}
}

// TestNotReturnedOnFirstPlan: a value live does not return is planned on
// a first plan as unverifiable (a distinct cause and reason), written once,
// and never planned again after the write; a tag live lacks is a real
// addition; the family switched off reports it as an addition.
func TestNotReturnedOnFirstPlan(t *testing.T) {
	sch := &schema.Type{Properties: map[string]*schema.Property{
		"tags":                  {Type: schema.TypeObject},
		"tags.*":                {Type: schema.TypeString},
		"properties":            {Type: schema.TypeObject},
		"properties.createMode": {Type: schema.TypeString},
		"properties.level":      {Type: schema.TypeString},
	}}
	d := map[string]any{"tags": map[string]any{"env": "prod"}, "properties": map[string]any{"createMode": "Restore", "level": "a"}}
	s := map[string]any{"properties": map[string]any{"level": "a"}}
	r := Compute(Input{Desired: d, Live: s, Schema: sch})
	byPath := map[string]plan.Change{}
	for _, c := range r.Changes {
		byPath[c.Path] = c
	}
	if c := byPath["properties.createMode"]; c.Cause != CauseUnverifiable || c.Reason != reasonUnverifiable || c.After != "Restore" {
		t.Errorf("createMode: %+v", c)
	}
	if c := byPath[`tags.env`]; c.Cause != plan.CauseUser || c.Kind != plan.KindAdd {
		t.Errorf("tag: %+v (all %v)", c, paths(r.Changes))
	}
	if r.Action != ActionUpdate {
		t.Errorf("action %s", r.Action)
	}
	after := Compute(Input{Schema: sch, Desired: d, LastApplied: d, Baseline: map[string]any{"tags": map[string]any{"env": "prod"}, "properties": map[string]any{"level": "a"}}, Live: map[string]any{"tags": map[string]any{"env": "prod"}, "properties": map[string]any{"level": "a"}}})
	if after.Action != ActionNoOp {
		t.Errorf("after the write: %v", paths(after.Changes))
	}
	off := Compute(Input{Desired: d, Live: s, Schema: sch, DisableRules: []string{RuleNotReturned}})
	for _, c := range off.Changes {
		if c.Path == "properties.createMode" && c.Cause != plan.CauseUser {
			t.Errorf("switched off: %+v", c)
		}
	}
}

// TestDisableRules: a family switched off no longer makes values equal.
func TestDisableRules(t *testing.T) {
	in := Input{Desired: map[string]any{"properties": map[string]any{"timeout": "PT1H"}},
		Live: map[string]any{"properties": map[string]any{"timeout": "01:00:00"}}}
	if r := Compute(in); len(r.Changes) != 0 {
		t.Fatalf("on: %v", paths(r.Changes))
	}
	in.DisableRules = []string{RuleDuration}
	if r := Compute(in); len(r.Changes) != 1 {
		t.Fatalf("off: %v", paths(r.Changes))
	}
}

// TestNotReturnedCreateOnly: a create-only value live does not return is
// not written on a first plan (that could only fail or replace the
// resource); a warning names it, so the intent is not dropped silently.
func TestNotReturnedCreateOnly(t *testing.T) {
	d := map[string]any{"properties": map[string]any{"zone": "1", "level": "a"}}
	s := map[string]any{"properties": map[string]any{"level": "a"}}
	r := Compute(Input{Desired: d, Live: s, Schema: testSchema})
	if r.Action != ActionNoOp || len(r.Changes) != 0 {
		t.Fatalf("got %s %+v", r.Action, r.Changes)
	}
	if len(r.Warnings) != 1 || !strings.HasPrefix(r.Warnings[0], "properties.zone: ") {
		t.Fatalf("warnings = %v", r.Warnings)
	}
}
