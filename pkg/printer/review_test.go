package printer

import (
	"bytes"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// reviewPlan is a role assignment whose name is known only after apply:
// the plan must still name its role, principal and scope.
func reviewPlan() *plan.Plan {
	const rg = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-demo"
	p := &plan.Plan{Resources: []plan.Resource{{
		ID:   rg + "/providers/Microsoft.Authorization/roleAssignments/(known after apply)",
		Type: "Microsoft.Authorization/roleAssignments", APIVersion: "2022-04-01",
		Action: plan.ActionCreate, Method: "PUT", NameKnownAfterApply: true,
		Reason:  "its name depends on a value Azure generates during this apply",
		Changes: []plan.Change{{Path: "", After: "(new resource)", Kind: plan.KindAdd}},
		Review: plan.RoleAssignmentReview(
			"/subscriptions/00000000-0000-0000-0000-000000000001/providers/Microsoft.Authorization/roleDefinitions/ba92f5b4-2d11-453d-a403-e96b0029c9fe",
			"${ref:id-app.properties.principalId}", rg),
	}}}
	p.Summarize()
	return p
}

func TestRoleAssignmentReviewGolden(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	for _, tc := range []struct {
		golden string
		opts   Options
	}{
		{"review.txt", Options{Output: OutputText, Color: ColorNever, Width: 100}},
		{"review.md", Options{Output: OutputMarkdown}},
		{"review.json", Options{Output: OutputJSON}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Print(&buf, reviewPlan(), tc.opts); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"Storage Blob Data Contributor", "${ref:id-app.properties.principalId}", "resourceGroups/rg-demo"} {
				if !bytes.Contains(buf.Bytes(), []byte(want)) {
					t.Errorf("%s lacks %q", tc.golden, want)
				}
			}
			golden(t, tc.golden, buf.Bytes())
		})
	}
}
