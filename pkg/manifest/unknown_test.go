package manifest

import (
	"slices"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// TestBodiesCarryTheUnknownMarker: every way a value becomes known only
// after apply (a ${ref:...} to a generated property, a string over one,
// valueFrom.action, a template over an action, a list item) leaves the
// typed marker in the body, never the display string a live value could
// equal and a write could send. Every deferred and action path holds the
// marker, and only those paths do.
func TestBodiesCarryTheUnknownMarker(t *testing.T) {
	s := load(t, docs(
		doc(rgDocT, rgType, "", "{location: westeurope}"),
		doc("id.app", idType, "resourceGroup: rg-demo", "{location: westeurope}"),
		doc("stdemo001", stType, "resourceGroup: rg-demo", "{location: westeurope}"),
		doc("app", siteType, "resourceGroup: rg-demo", `{location: westeurope, properties: {
  principal: "${ref:id.app.properties.principalId}",
  note: "p=${ref:id.app.properties.principalId}!",
  key: {valueFrom: {action: {resource: stdemo001, name: listKeys, path: "keys[0].value"}}},
  siteConfig: {appSettings: [
    {name: A, value: "${ref:id.app.properties.clientId}"},
    {name: B, value: {valueFrom: {template: "k=${secret:k};id=${ref:stdemo001}", secrets: {k: {action: {resource: stdemo001, name: listKeys, path: "keys[0].value"}}}}}}]}}}`),
	))
	app := byName(t, s, "app")
	want := []string{
		"properties.key",
		"properties.note",
		"properties.principal",
		"properties.siteConfig.appSettings[0].value",
		"properties.siteConfig.appSettings[1].value",
	}
	var deferred []string
	for p := range app.Deferred {
		deferred = append(deferred, p)
	}
	for p := range app.Actions {
		deferred = append(deferred, p)
	}
	slices.Sort(deferred)
	if !slices.Equal(deferred, want) {
		t.Fatalf("deferred and action paths = %q, want %q", deferred, want)
	}
	got := markerPaths(app.Body, "")
	if !slices.Equal(got, want) {
		t.Errorf("the marker is at %q, want %q", got, want)
	}
	for _, r := range s.Resources {
		if p, ok := displayString(r.Body, ""); ok {
			t.Errorf("%s: %s holds the display string %q as a value", r.ID, p, plan.KnownAfterApply)
		}
	}
	if p, ok := plan.FindUnknown(app.Body); !ok || p != want[0] {
		t.Errorf("FindUnknown = %q, %v; want %q", p, ok, want[0])
	}
}

// markerPaths lists the paths of body that hold plan.Unknown, sorted.
func markerPaths(v any, at string) []string {
	switch x := v.(type) {
	case plan.Unknown:
		return []string{at}
	case map[string]any:
		var out []string
		for k, m := range x {
			out = append(out, markerPaths(m, bodypath.JoinMember(at, k))...)
		}
		slices.Sort(out)
		return out
	case []any:
		var out []string
		for i, m := range x {
			out = append(out, markerPaths(m, bodypath.JoinIndex(at, i))...)
		}
		return out
	}
	return nil
}

// displayString finds a string value equal to plan.KnownAfterApply.
func displayString(v any, at string) (string, bool) {
	switch x := v.(type) {
	case string:
		return at, x == plan.KnownAfterApply
	case map[string]any:
		for k, m := range x {
			if p, ok := displayString(m, bodypath.JoinMember(at, k)); ok {
				return p, true
			}
		}
	case []any:
		for i, m := range x {
			if p, ok := displayString(m, bodypath.JoinIndex(at, i)); ok {
				return p, true
			}
		}
	}
	return "", false
}
