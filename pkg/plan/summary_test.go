package plan

import "testing"

// Deleting a group and a vnet inside it: the group's cascade names the
// vnet and its subnet, the vnet's names the subnet. ARM deletes one thing
// besides the plan's two deletes.
func TestSummarizeCountsEachCascadeOnce(t *testing.T) {
	const rg = "/subscriptions/s/resourceGroups/rg1"
	vnet := rg + "/providers/Microsoft.Network/virtualNetworks/v1"
	subnet := vnet + "/subnets/a"
	p := &Plan{Resources: []Resource{
		{ID: rg, Action: ActionDelete, Cascade: []CascadeItem{{ID: vnet}, {ID: subnet}}},
		{ID: vnet, Action: ActionDelete, Cascade: []CascadeItem{{ID: subnet}}},
	}}
	p.Summarize()
	if p.Summary.Delete != 2 || p.Summary.Cascade != 1 {
		t.Errorf("summary = %d to delete, %d more with their parent; want 2 and 1", p.Summary.Delete, p.Summary.Cascade)
	}
}
