package apply

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// softDeleted names the types Azure keeps for a while after a delete,
// holding their name, and how the name is taken back (Microsoft Learn:
// Key Vault and Managed HSM soft-delete overviews, App Configuration
// purge protection, Cognitive Services and API Management soft delete).
// Keys are lower-cased types.
var softDeleted = map[string]string{
	"microsoft.keyvault/vaults":                      "kept 7 to 90 days (90 by default); create it again with properties.createMode: recover, or purge it first",
	"microsoft.keyvault/managedhsms":                 "kept 7 to 90 days (90 by default); create it again with properties.createMode: recover, or purge it first",
	"microsoft.appconfiguration/configurationstores": "kept 1 to 7 days; create it again with properties.createMode: Recover, or purge it first",
	"microsoft.cognitiveservices/accounts":           "kept 48 hours; create it again with properties.restore: true, or purge it first",
	"microsoft.apimanagement/service":                "kept 48 hours; create it again with properties.restore: true, or purge it first",
}

// softDeleteNotes says, for a delete or replace, which resources it
// destroys (itself, or what ARM deletes with it) stay soft-deleted with
// their names reserved: a later create of the same name fails until the
// resource is recovered or purged. A note, not a refusal.
func softDeleteNotes(pr plan.Resource) []string {
	if pr.Action != plan.ActionDelete && pr.Action != plan.ActionReplace {
		return nil
	}
	var out []string
	add := func(id, typ string, self bool) {
		how, ok := softDeleted[strings.ToLower(typ)]
		if !ok {
			return
		}
		name := typ + "/" + armid.Printable(id[strings.LastIndex(id, "/")+1:])
		msg := name + " stays soft-deleted after the delete and its name stays reserved (" + how + ")"
		if self && pr.Action == plan.ActionReplace {
			msg = "replacing " + name + " deletes it, and the deleted one keeps holding the name (" + how + "): creating it again under the same name fails until it is recovered or purged"
		}
		out = append(out, msg)
	}
	add(pr.ID, pr.Type, true)
	for _, c := range pr.Cascade {
		if c.Type != unknownType {
			add(c.ID, c.Type, false)
		}
	}
	return out // itself first, then what goes with it in the cascade's order
}
