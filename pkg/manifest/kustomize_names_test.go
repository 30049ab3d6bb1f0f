package manifest

import (
	"strings"
	"testing"
)

// TestKustomizePerEnvironmentNames: a nameSuffix overlay renames every
// resource, references still resolve by the names in the source files, and
// spec.name keeps a computed ARM name apart from the symbolic name.
func TestKustomizePerEnvironmentNames(t *testing.T) {
	for _, env := range []string{"dev", "prod"} {
		t.Run(env, func(t *testing.T) {
			s := load(t, LoadOptions{Kustomize: "../../testdata/templates/" + env})
			rg := "/subscriptions/" + testSub + "/resourceGroups/rg-app-" + env
			id := byName(t, s, "id-app-"+env)
			if want := rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-app-" + env; id.ID != want {
				t.Errorf("identity ID = %s, want %s", id.ID, want)
			}
			stName := "st" + ARMUniqueString(rg)
			st := byName(t, s, stName)
			if !strings.HasSuffix(st.Origin.File, "app.yaml") || st.Origin.Index != 2 {
				t.Errorf("storage origin = %v, want the base file's document 2", st.Origin)
			}
			if !contains(st.DependsOn, rg) {
				t.Errorf("storage DependsOn = %v", st.DependsOn)
			}
			ra := byName(t, s, nameKnownAfterApply)
			if ra.NameDeferred == nil || !contains(ra.DependsOn, st.ID) || !contains(ra.DependsOn, id.ID) {
				t.Errorf("role assignment: deferred=%v DependsOn=%v", ra.NameDeferred, ra.DependsOn)
			}
			if !strings.HasPrefix(ra.ID, st.ID+"/providers/Microsoft.Authorization/roleAssignments/") {
				t.Errorf("role assignment ID = %s", ra.ID)
			}
		})
	}
}

// TestKustomizeCommaNameNoPanic: kustomize panics renaming a name with a
// comma; the load reports it with the fix instead of ending the process.
func TestKustomizeCommaNameNoPanic(t *testing.T) {
	ve := loadErr(t, LoadOptions{Kustomize: "../../testdata/templates/comma-dev"})
	msg := ve.Error()
	for _, want := range []string{"comma-dev", "kustomize", "${guid:a-b-c}", "spec.name"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
}

// TestSpecName: spec.name is the ARM name, metadata.name the symbolic name
// references use; a name computed at load time is referenceable.
func TestSpecName(t *testing.T) {
	rdType := "Microsoft.Authorization/roleDefinitions@2022-04-01"
	s := load(t, docs(
		doc(rgDocT, rgType, "", "{location: westeurope}"),
		doc("reader-def", rdType, "scope: ${ref:rg-demo}\n  name: ${guid:${ref:rg-demo}-reader}", "{properties: {roleName: r}}"),
		doc("uses", raType, "scope: ${ref:rg-demo}\n  name: ${guid:${ref:rg-demo},${ref:reader-def},p}", "{properties: {roleDefinitionId: '${ref:reader-def}', principalId: p}}"),
	))
	defName := ARMGuid(rgID + "-reader")
	def := byName(t, s, defName)
	defID := rgID + "/providers/Microsoft.Authorization/roleDefinitions/" + defName
	if def.ID != defID {
		t.Fatalf("ID = %s, want %s", def.ID, defID)
	}
	u := byName(t, s, ARMGuid(rgID, defID, "p"))
	if got := u.Body["properties"].(map[string]any)["roleDefinitionId"]; got != defID || !contains(u.DependsOn, defID) {
		t.Errorf("roleDefinitionId = %v, DependsOn = %v", got, u.DependsOn)
	}

	ve := loadErr(t, docs(
		doc(rgDocT, rgType, "", "{location: westeurope}"),
		doc(`"${guid:x}"`, raType, "scope: ${ref:rg-demo}\n  name: y", "{}"),
	))
	if !strings.Contains(ve.Error(), "metadata.name: is the symbolic name when spec.name is set") {
		t.Errorf("err = %v", ve)
	}
}

// TestKustomizeNamePrefixLandingZone: under namePrefix the landing
// zone's role assignment, named by a literal GUID, would be renamed to a
// name ARM refuses: that is the one problem, with the fix; every reference
// of the other documents resolves.
func TestKustomizeNamePrefixLandingZone(t *testing.T) {
	ve := loadErr(t, LoadOptions{Kustomize: "../../testdata/templates/landing-zone-dev"})
	if len(ve.Problems) != 1 || !strings.HasSuffix(ve.Problems[0].File, "role-assignment.yaml") ||
		!strings.Contains(ve.Problems[0].Message, `to "dev-3f0c8a3e-6d4b-4f7e-9a52-1c2b7d9e0a11", which is no GUID`) {
		t.Fatalf("problems = %v", ve)
	}
}
