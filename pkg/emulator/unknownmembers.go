package emulator

import (
	"net/http"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Most providers ignore body members their model does not know (the GET
// then lacks them), and so does the emulator. The Network provider refuses
// them (schema.RefusesUnknownMembers has the evidence): a client that
// misspells or misplaces a Network member must see that, not a silently
// dropped value.
//
// The check uses the exact api-version's schema only (a neighbour's could
// refuse a member the asked version has). The recorded Network PUT bodies
// in testdata/corpus (502 from the azure-cli-extensions recordings, and
// the spec examples) carry no member the index lacks, so the index is
// complete enough for this to refuse only what the provider refuses.

// checkUnknownMembers refuses the first member of a Network body the
// exact api-version's schema does not declare.
func checkUnknownMembers(p armid.Path, t *schema.Type, body map[string]any) *armError {
	// Detailed: the Bicep index's member list, complete for the version
	// (hand-built types in tests declare only a few facts).
	if t == nil || t.Fallback() || !t.Detailed || !schema.RefusesUnknownMembers(p.Type()) {
		return nil
	}
	for _, path := range t.Undeclared(body) {
		if !schema.RefusesUnknownMember(p.Type(), path) {
			continue // ARM's own envelope (location, ids, etag)
		}
		if t.DeclaringVersion(path) != "" {
			continue // the provider's model knows it from another version
		}
		segs := schema.SplitPath(path)
		member := segs[len(segs)-1]
		owner := lastSegment(p.Type())
		if len(segs) > 1 {
			// The provider names its model class; the index has no class
			// names, so the owner is named by its path.
			owner = string(schema.SchemaPath(segs[:len(segs)-1]))
		}
		e := newError(http.StatusBadRequest, "InvalidRequestFormat", "Cannot parse the request.")
		e.Details = []armError{*newError(http.StatusBadRequest, "InvalidJson",
			"Could not find member '%s' on object of type '%s'. Path '%s'. Remove it or check its spelling and place (kubectl azure explain %s@%s).",
			member, owner, path, t.Name, t.APIVersion)}
		return e
	}
	return nil
}

func lastSegment(typ string) string {
	if i := strings.LastIndexByte(typ, '/'); i >= 0 {
		return typ[i+1:]
	}
	return typ
}
