package apply

import (
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Some types have no DELETE in ARM (a site's config singletons, Key Vault
// secrets and keys: ARM answers 400 DisallowedResourceOperation). One rule
// decides, the schema's (schema.Registry.CanDelete), for delete, --prune
// and replace alike: such a resource is never sent a DELETE. It goes with
// a parent the plan deletes, or the plan says it stays.

// planUndeletable revises the deletes of resources ARM cannot delete,
// once every item is decided: one inside a resource the plan deletes goes
// with it (no request of its own); any other stays in Azure, and the plan
// says so and how it is removed; its record is forgotten, as the user
// asked to stop having it.
func (e *Engine) planUndeletable(items []*item) {
	rules := e.deleteRules()
	byKey := make(map[string]*item, len(items))
	for _, it := range items {
		byKey[it.key] = it
	}
	deletable := func(it *item) bool { return rules.CanDelete(it.typ, it.ver, it.name) }
	for _, it := range items {
		if it.planned.Action != plan.ActionDelete || deletable(it) {
			continue
		}
		var carrier *item
		enclosing(it.key, func(pk string) bool {
			if c := byKey[pk]; c != nil && c.planned.Action == plan.ActionDelete && deletable(c) {
				carrier = c
			}
			return carrier == nil
		})
		pr := &it.planned
		if carrier != nil {
			it.carrier = carrier
			pr.Method = plan.MethodNone
			pr.BecauseOf(plan.ReasonNoDelete, "ARM has no DELETE for "+it.typ+": it goes with its parent "+carrier.display())
			pr.Changes = []plan.Change{{Path: "", Before: "(exists)", After: nil, Kind: plan.KindRemove, Reason: pr.Reason}}
			continue
		}
		if mr, ok := mergeReadOf(it); ok && mr.child.Remover != "" {
			pr.Method = plan.MethodPut
			pr.BecauseOf(plan.ReasonNoDelete, "ARM has no DELETE for "+it.typ+": its entries are taken out of "+mr.parent+" with a PUT to "+mr.child.Remover)
			continue
		}
		it.stays = "ARM has no DELETE for " + it.typ + ", so it stays in Azure: " + schema.RemovalHint(it.typ)
		pr.Action, pr.Method, pr.Changes = plan.ActionNoOp, plan.MethodNone, []plan.Change{}
		pr.BecauseOf(plan.ReasonNoDelete, it.stays)
		if it.record != nil && it.otherSet == "" && !it.protected {
			it.forget = true
			pr.Reason += "; its record in state is removed"
		}
	}
}

// undeletableReplaces lists the replaces Check refuses: the delete half
// would be refused by ARM, leaving the old resource as it is.
func (e *Engine) undeletableReplaces(p *Prepared) []string {
	var out []string
	for _, it := range p.items {
		if it.planned.Action == plan.ActionReplace && !e.deleteRules().CanDelete(it.typ, it.ver, it.name) {
			out = append(out, it.display()+" (ARM has no DELETE for "+it.typ+": "+schema.RemovalHint(it.typ)+")")
		}
	}
	return out
}

// withTheirCarrier takes out of deletes the resources ARM cannot delete
// that go with a parent this run deletes, and adds them to that parent's
// members (or to the members of the group the parent goes with).
func withTheirCarrier(deletes []*item, members map[*item][]*item) ([]*item, map[*item][]*item) {
	groupOf := map[*item]*item{}
	for g, ms := range members {
		for _, m := range ms {
			groupOf[m] = g
		}
	}
	out := deletes[:0:0]
	for _, it := range deletes {
		if it.carrier == nil {
			out = append(out, it)
			continue
		}
		c := it.carrier
		if g := groupOf[c]; g != nil {
			c = g
		}
		if members == nil {
			members = map[*item][]*item{}
		}
		members[c] = append(members[c], it)
	}
	return out, members
}
