package schema

import (
	"strings"
	"testing"
)

// Messages read as English: "an integer", not "a integer".
func TestValidateCoercedMessageGrammar(t *testing.T) {
	ty := testType()
	issues := ty.Validate(map[string]any{"tags": map[string]any{"n": 3}, "properties": map[string]any{"count": "3"}})
	if len(issues) != 2 {
		t.Fatalf("issues: %v", issues)
	}
	for _, is := range issues {
		if strings.Contains(is.Message, "a integer") || strings.Contains(is.Message, "as integer") || strings.Contains(is.Message, "as string") {
			t.Errorf("%s: %q", is.Path, is.Message)
		}
	}
	if m := issues[1].Message; !strings.Contains(m, "an integer where a string goes") {
		t.Errorf("tags.n: %q", m)
	}
	if m := issues[0].Message; !strings.Contains(m, "write it as an integer") {
		t.Errorf("properties.count: %q", m)
	}
}

// The Bicep type index writes integer for every JSON number. The index
// takes the Swagger's number where a Swagger has the property; a type only
// the Bicep index knows cannot say, so a fraction is not reported there.
func TestValidateFractionOnBicepOnlyInteger(t *testing.T) {
	body := map[string]any{"properties": map[string]any{"count": 0.5}}
	bicepOnly := testType()
	bicepOnly.Detailed, bicepOnly.FactsFrom = true, ""
	if issues := bicepOnly.Validate(body); len(issues) != 0 {
		t.Errorf("Bicep-only integer: %v", issues)
	}
	withSwagger := testType()
	withSwagger.Detailed, withSwagger.FactsFrom = true, withSwagger.APIVersion
	if issues := withSwagger.Validate(body); len(issues) != 1 || issues[0].Kind != KindCoerced || !strings.Contains(issues[0].Message, "a fraction where an integer goes") {
		t.Errorf("Swagger-checked integer: %v", issues)
	}
	// Still a number: a string is not.
	if issues := bicepOnly.Validate(map[string]any{"properties": map[string]any{"count": "half"}}); len(issues) != 1 || issues[0].Severity != Error {
		t.Errorf("a word for a number: %v", issues)
	}
}

// Microsoft.OperationalInsights/workspaces dailyQuotaGb is a number
// (Swagger: type number, format double); 0.5 GB is a valid quota.
func TestValidateDailyQuotaFraction(t *testing.T) {
	for _, ver := range []string{"2022-10-01", "2023-09-01"} {
		ty := lookup(t, "Microsoft.OperationalInsights/workspaces", ver)
		if p := ty.Prop("properties.workspaceCapping.dailyQuotaGb"); p == nil || p.Type != TypeNumber {
			t.Errorf("%s: dailyQuotaGb = %+v, want a number", ver, p)
		}
		body := map[string]any{"location": "westeurope", "properties": map[string]any{"workspaceCapping": map[string]any{"dailyQuotaGb": 0.5}}}
		for _, is := range ty.ValidateWith(body, ValidateOptions{Create: true}) {
			if strings.Contains(is.Path, "dailyQuotaGb") {
				t.Errorf("%s: %s", ver, is)
			}
		}
	}
}
