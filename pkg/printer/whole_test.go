package printer

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// nsgDriftPlan is issue 33's case: a security rule added outside the tool
// (priority 4000, any source, port 22).
func nsgDriftPlan() *plan.Plan {
	nsg := sub + "/resourceGroups/rg-net/providers/Microsoft.Network/networkSecurityGroups/nsg-app"
	rule := map[string]any{
		"id":   nsg + "/securityRules/ssh-anywhere",
		"name": "ssh-anywhere",
		"type": "Microsoft.Network/networkSecurityGroups/securityRules",
		"properties": map[string]any{
			"priority": 4000, "access": "Allow", "direction": "Inbound", "protocol": "Tcp",
			"sourceAddressPrefix": "*", "sourcePortRange": "*", "destinationAddressPrefix": "*", "destinationPortRange": "22",
			"description": "temporary access for the on-call engineer during the incident of last week",
		},
	}
	return &plan.Plan{Resources: []plan.Resource{{
		ID: nsg, Type: "Microsoft.Network/networkSecurityGroups", APIVersion: "2024-01-01",
		Action: plan.ActionUpdate, Method: "PUT",
		Changes: []plan.Change{
			{Path: "properties.securityRules[ssh-anywhere]", Before: rule, Kind: plan.KindRemove, Cause: plan.CauseDrift, ChildDelete: true},
			{Path: "tags.costCenter", Before: "finance-platform-shared-services-0001", After: "finance-platform-shared-services-0002-longer", Kind: plan.KindChange, Cause: plan.CauseUser},
		},
	}}}
}

// A removed (or added) item is printed whole, one field per line, at any
// width; no value is cut in the middle.
func TestAddedOrRemovedItemShownWhole(t *testing.T) {
	t.Setenv("COLUMNS", "")
	for _, width := range []int{0, 60, 100, 250} {
		var buf bytes.Buffer
		if err := Print(&buf, nsgDriftPlan(), Options{Color: ColorNever, Width: width}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, want := range []string{"priority: 4000", `sourceAddressPrefix: "*"`, `destinationPortRange: "22"`, `access: "Allow"`, `name: "ssh-anywhere"`,
			"finance-platform-shared-services-0001", "finance-platform-shared-services-0002-longer"} {
			if !strings.Contains(out, want) {
				t.Errorf("width %d: %q is not shown whole:\n%s", width, want, out)
			}
		}
		if strings.Contains(out, "…") {
			t.Errorf("width %d: a value was cut:\n%s", width, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if width > 0 && ansi.StringWidth(l) > width {
				t.Errorf("width %d: line of %d cells: %q", width, ansi.StringWidth(l), l)
			}
		}
	}
}

// Piped text (no terminal, no COLUMNS, no width) is not wrapped at all: the
// log viewer wraps, and a hard break splits words and flags.
func TestPipedTextIsNotWrapped(t *testing.T) {
	t.Setenv("COLUMNS", "")
	p := nsgDriftPlan()
	p.Resources[0].Reason = strings.Repeat("a reason long enough to need wrapping at any usual width ", 3) + "--allow-replace"
	var buf bytes.Buffer
	if err := Print(&buf, p, Options{Color: ColorNever}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "# "+p.Resources[0].Reason+"\n") {
		t.Errorf("the reason was wrapped or cut:\n%s", buf.String())
	}
}

// TestSummaryCountsChildDeletes: an update that deletes a child resource (a
// rule or subnet removed from its parent's collection) is a deletion the
// summary line must not hide behind "0 to delete".
func TestSummaryCountsChildDeletes(t *testing.T) {
	p := nsgDriftPlan()
	p.Summary = plan.Summary{Update: 1}
	for _, format := range []string{OutputText, OutputMarkdown} {
		var buf bytes.Buffer
		if err := Print(&buf, p, Options{Output: format, Color: ColorNever}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), "0 to delete, 0 unchanged, 0 to adopt; 1 child resource deleted by an update of its parent") {
			t.Errorf("%s summary:\n%s", format, buf.String())
		}
	}
}
