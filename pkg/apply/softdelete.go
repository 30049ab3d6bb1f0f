package apply

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// softDelete says how long Azure keeps a deleted resource of a type,
// holding its name, and how a create takes it back.
type softDelete struct{ kept, recover string }

// softDeleted lists the types kept after a delete (Microsoft Learn: the
// Key Vault and Managed HSM soft-delete overviews, App Configuration
// purge protection, Cognitive Services and API Management soft delete),
// by lower-cased type.
var softDeleted = map[string]softDelete{
	"microsoft.keyvault/vaults":                      {"7 to 90 days (90 by default)", "properties.createMode: recover"},
	"microsoft.keyvault/managedhsms":                 {"7 to 90 days (90 by default)", "properties.createMode: recover"},
	"microsoft.appconfiguration/configurationstores": {"1 to 7 days", "properties.createMode: Recover"},
	"microsoft.cognitiveservices/accounts":           {"48 hours", "properties.restore: true"},
	"microsoft.apimanagement/service":                {"48 hours", "properties.restore: true"},
}

// softDeleteNotes says, for a delete or replace, which of the resources
// it destroys (itself, and what ARM deletes with it) stay soft-deleted
// with their names reserved: a later create of the same name fails until
// the deleted one is recovered or purged. A note, not a refusal. named
// puts the resource's own name in its note (the plan's warnings stand
// alone; a result's notes are printed under the resource).
func softDeleteNotes(pr plan.Resource, named bool) []string {
	if pr.Action != plan.ActionDelete && pr.Action != plan.ActionReplace {
		return nil
	}
	var out []string
	add := func(id, typ string, self bool) {
		sd, ok := softDeleted[strings.ToLower(typ)]
		if !ok {
			return
		}
		name := typ + "/" + armid.Printable(id[strings.LastIndex(id, "/")+1:])
		how := "to create it again, recover it (" + sd.recover + ") or purge it first"
		switch {
		case self && pr.Action == plan.ActionReplace:
			out = append(out, "replacing "+name+" would delete it, and the deleted one stays soft-deleted, holding the name for "+sd.kept+": creating it again would fail until it is recovered or purged, so apply refuses it")
		case self && !named:
			out = append(out, "it stays soft-deleted and its name stays reserved for "+sd.kept+"; "+how)
		default:
			out = append(out, name+" stays soft-deleted after the delete and its name stays reserved for "+sd.kept+"; "+how)
		}
	}
	add(pr.ID, pr.Type, true)
	for _, c := range pr.Cascade {
		if c.Type != unknownType {
			add(c.ID, c.Type, false)
		}
	}
	return out
}
