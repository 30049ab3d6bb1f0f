package apply

import (
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
