package apply

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// TestReviewOfRoleAssignment: a role assignment named by ${guid:...} still
// names its role (with the built-in name), principal and scope for review.
func TestReviewOfRoleAssignment(t *testing.T) {
	set := loadDocs(t, refDocs)
	var got []plan.ReviewItem
	for _, r := range set.Resources {
		if rv := reviewOf(r); rv != nil {
			if got != nil {
				t.Fatalf("more than one resource has a review")
			}
			got = rv
		}
	}
	want := []plan.ReviewItem{
		{Label: "role", Value: "/subscriptions/" + sub + "/providers/Microsoft.Authorization/roleDefinitions/" + reader, Note: "Reader"},
		{Label: "principal", Value: "${ref:id-app.properties.principalId}"},
		{Label: "scope", Value: rgID("rg1")},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("review = %+v\nwant %+v", got, want)
	}
	if strings.Contains(got[2].Value, "known after apply") {
		t.Error("the scope carries the deferred name")
	}
}

// TestDeferredNameChangesListBody: the changes of a role assignment whose
// name is known after apply keep every owned property of its body.
func TestDeferredNameChangesListBody(t *testing.T) {
	a := newFakeARM()
	e := newEngine(a, newMemStore(), DefaultOptions())
	p, err := e.Plan(context.Background(), loadDocs(t, refDocs))
	if err != nil {
		t.Fatal(err)
	}
	var ra *item
	for _, it := range p.items {
		if strings.Contains(it.typ, "roleAssignments") {
			ra = it
		}
	}
	if ra == nil || ra.result == nil {
		t.Fatal("no role assignment item with a diff")
	}
	got := deferredNameChanges(plan.Change{Path: "", After: "(new resource)", Kind: plan.KindAdd}, ra.result.Changes)
	paths := map[string]plan.Change{}
	for _, c := range got {
		paths[c.Path] = c
	}
	if _, ok := paths[""]; !ok || got[0].Path != "" {
		t.Errorf("the placeholder is not first: %+v", got)
	}
	if c, ok := paths["properties.roleDefinitionId"]; !ok || c.Kind != plan.KindAdd || !strings.HasSuffix(c.After.(string), reader) {
		t.Errorf("roleDefinitionId missing or wrong: %+v", got)
	}
	if c, ok := paths["properties.principalId"]; !ok || !c.KnownAfterApply {
		t.Errorf("principalId missing or not known after apply: %+v", got)
	}
}
