package diff

import "testing"

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
