package specgen

import (
	"slices"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema/internal/format"
)

// The neighbours fixture: one Swagger file (2024-01-01) describes two
// resources of fixed names, Contoso.Gizmos/settings/service and
// Contoso.Gizmos/probes/default; another (2023-01-01) describes the
// settings the user names. The Bicep index has both types named by the
// user (2025-01-01-preview) and by the fixed names (2024-01-01,
// 2025-06-01-preview), as Microsoft.Insights has diagnosticSettings
// (user-named, previews) beside diagnosticSettings/service (2016-09-01).
const neighbours = "testdata/neighbours"

// Facts come only from a Swagger of the same resource: the exact
// api-version, else the nearest one that describes that resource. A
// Swagger of another resource of the same type (a fixed name the type's
// names are not) lends nothing: no create-only (a wrong one plans a
// replace), default, identifiers, arm-id, number type, PATCH, ETag,
// long-running or status codes.
func TestMergeFactsOnlyFromTheSameResource(t *testing.T) {
	src, err := OpenSource(neighbours + "/specs")
	if err != nil {
		t.Fatal(err)
	}
	blobs, _, err := GenerateMerged(src, neighbours+"/bicep")
	if err != nil {
		t.Fatal(err)
	}
	type prop struct {
		createOnly, fromSwagger, armID bool
		typ, def                       string
		ids                            []string // nil: none
	}
	cases := []struct {
		name, typ, version          string
		factsFrom                   string
		patch, etag, putLRO, delLRO bool
		putStatus, delStatus        []int
		props                       map[string]prop
	}{
		{
			name: "exact version of the fixed-name resource", typ: "Contoso.Gizmos/settings", version: "2024-01-01",
			factsFrom: "2024-01-01", patch: true, etag: true, putLRO: true, delLRO: true,
			putStatus: []int{200, 201}, delStatus: []int{200, 202},
			props: map[string]prop{
				"location":               {createOnly: true, typ: "string"},
				"properties.mode":        {createOnly: true, typ: "string", def: `"Auto"`},
				"properties.weight":      {typ: "number"},
				"properties.workspaceId": {armID: true, typ: "string"},
				"properties.rules":       {typ: "array", ids: []string{"ruleName"}},
			},
		},
		{
			name: "another version of the same fixed-name resource", typ: "Contoso.Gizmos/settings", version: "2025-06-01-preview",
			factsFrom: "2024-01-01", patch: true, etag: true, putLRO: true, delLRO: true,
			putStatus: []int{200, 201}, delStatus: []int{200, 202},
			props: map[string]prop{
				"location":               {createOnly: true, fromSwagger: true, typ: "string"},
				"properties.mode":        {createOnly: true, fromSwagger: true, typ: "string", def: `"Auto"`},
				"properties.weight":      {typ: "number"},
				"properties.workspaceId": {armID: true, fromSwagger: true, typ: "string"},
				"properties.rules":       {fromSwagger: true, typ: "array", ids: []string{"ruleName"}},
			},
		},
		{
			// The nearest Swagger (2024-01-01) is settings/service's; the
			// user-named settings are described by 2023-01-01.
			name: "user-named: the nearest Swagger of the same resource, not the nearest Swagger", typ: "Contoso.Gizmos/settings", version: "2025-01-01-preview",
			factsFrom: "2023-01-01", putStatus: []int{200}, delStatus: []int{200, 204},
			props: map[string]prop{
				"location":               {createOnly: true, typ: "string"}, // the location rule, not a Swagger
				"properties.mode":        {typ: "string"},
				"properties.weight":      {typ: "number"},
				"properties.workspaceId": {typ: "string"},
				"properties.rules":       {fromSwagger: true, typ: "array", ids: []string{"name"}},
			},
		},
		{
			name: "exact version of the other fixed-name resource", typ: "Contoso.Gizmos/probes", version: "2024-01-01",
			factsFrom: "2024-01-01", patch: true, putLRO: true, putStatus: []int{200, 202},
			props: map[string]prop{
				"location":            {createOnly: true, typ: "string"},
				"properties.interval": {createOnly: true, typ: "number", def: "30"},
				"properties.targets":  {typ: "array", ids: []string{}},
			},
		},
		{
			// diagnosticSettings 2017-05-01-preview to 2021-05-01-preview:
			// no Swagger describes them.
			name: "user-named, only a fixed-name Swagger", typ: "Contoso.Gizmos/probes", version: "2025-01-01-preview",
			props: map[string]prop{
				"location":            {createOnly: true, typ: "string"}, // the location rule
				"properties.interval": {typ: "integer"},
				"properties.targets":  {typ: "array"},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			props, v, _ := facts(t, blobs, tc.typ, tc.version)
			if v.FactsFrom != tc.factsFrom {
				t.Errorf("facts from %q, want %q", v.FactsFrom, tc.factsFrom)
			}
			for _, f := range []struct {
				name string
				flag uint64
				want bool
			}{{"PATCH", format.VFlagPatch, tc.patch}, {"ETag", format.VFlagEtag, tc.etag}, {"PUT long-running", format.VFlagPutLRO, tc.putLRO}, {"DELETE long-running", format.VFlagDeleteLRO, tc.delLRO}} {
				if got := v.Flags&f.flag != 0; got != f.want {
					t.Errorf("%s = %v, want %v", f.name, got, f.want)
				}
			}
			if !tc.patch && len(v.PatchPaths) != 0 {
				t.Errorf("PATCH paths %v without PATCH", v.PatchPaths)
			}
			if !slices.Equal(v.PutStatus, tc.putStatus) || !slices.Equal(v.DeleteStatus, tc.delStatus) {
				t.Errorf("status codes PUT %v DELETE %v, want %v %v", v.PutStatus, v.DeleteStatus, tc.putStatus, tc.delStatus)
			}
			for path, want := range tc.props {
				p, ok := props[path]
				if !ok {
					t.Errorf("%s missing", path)
					continue
				}
				got := prop{
					createOnly: p.Flags&format.FlagCreateOnly != 0, fromSwagger: p.Flags&format.FlagFromSwagger != 0,
					armID: p.Flags&format.FlagARMID != 0, typ: p.Type,
				}
				if p.Flags&format.FlagHasDefault != 0 {
					got.def = p.Default
				}
				if p.Flags&format.FlagHasIdentifiers != 0 {
					got.ids = p.Identifiers
					if got.ids == nil {
						got.ids = []string{}
					}
				}
				if got.createOnly != want.createOnly || got.fromSwagger != want.fromSwagger || got.armID != want.armID ||
					got.typ != want.typ || got.def != want.def || (got.ids == nil) != (want.ids == nil) || !slices.Equal(got.ids, want.ids) {
					t.Errorf("%s = %+v, want %+v", path, got, want)
				}
			}
		})
	}
}
