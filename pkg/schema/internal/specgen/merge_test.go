package specgen

import (
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema/internal/format"
)

// bicepVersion and swaggerVersion build the two sides of a merge by hand.
func bicepVersion(props map[string]format.Prop) *version {
	return &version{name: "Contoso.Widgets/widgets", flags: format.VFlagBicep, props: props, descs: map[string]string{}}
}

func swaggerVersion(ver string, props map[string]format.Prop, fixedNames ...string) *version {
	v := &version{name: "Contoso.Widgets/widgets", flags: format.VFlagSwagger | format.VFlagPatch, props: props, descs: map[string]string{},
		patch: []string{"properties", "tags"}, factsFrom: ver, fixedNames: fixedNames, namedByParam: len(fixedNames) == 0}
	return v
}

// The Bicep type index has no float type: it writes integer for the
// Swagger's number (format double/float). The Swagger's number wins, from
// the same api-version or the nearest one.
func TestMergeNumberBeatsBicepInteger(t *testing.T) {
	for _, bicepVer := range []string{"2024-06-01", "2025-01-01-preview"} {
		bt := map[string]map[string]*version{"contoso.widgets/widgets": {bicepVer: bicepVersion(map[string]format.Prop{
			"name":                    {Type: "string"},
			"properties.dailyQuotaGb": {Type: "integer"},
			"properties.retention":    {Type: "integer"},
			"properties.ratio":        {Type: "integer"},
		})}}
		sw := map[string]map[string]*version{"contoso.widgets/widgets": {"2024-06-01": swaggerVersion("2024-06-01", map[string]format.Prop{
			"properties.dailyQuotaGb": {Type: "number"},
			"properties.retention":    {Type: "integer"},
			"properties.ratio":        {Type: "string"}, // a disagreement that is not number/integer: Bicep stays
		})}}
		got := mergeSources(bt, sw)["contoso.widgets/widgets"][bicepVer].props
		want := map[string]string{"properties.dailyQuotaGb": "number", "properties.retention": "integer", "properties.ratio": "integer"}
		for p, ty := range want {
			if got[p].Type != ty {
				t.Errorf("%s: %s is %q, want %q", bicepVer, p, got[p].Type, ty)
			}
		}
	}
}

// PATCH support, like every Swagger fact, is taken only from a Swagger
// that describes the same resource: a Swagger whose path fixes the name
// (Microsoft.Insights 2016-09-01 has only .../diagnosticSettings/service)
// says nothing about a type whose names the user picks
// (diagnosticSettings 2021-05-01-preview has no PATCH), not even at the
// same api-version; the version then has no Swagger facts at all.
func TestMergePatchFromAnotherVersion(t *testing.T) {
	service := format.Prop{Type: "string", Enum: []string{"service"}, Flags: format.FlagEnumClosed}
	cases := []struct {
		name       string
		bicepVer   string
		bicepName  format.Prop
		fixedNames []string
		wantPatch  bool
	}{
		{"same version, the fixed name", "2016-09-01", service, []string{"service"}, true},
		{"same version, a fixed name the type does not restrict to", "2016-09-01", format.Prop{Type: "string"}, []string{"service"}, false},
		{"nearest version, named by a parameter", "2021-05-01-preview", format.Prop{Type: "string"}, nil, true},
		{"nearest version, fixed name the type does not restrict to", "2021-05-01-preview", format.Prop{Type: "string"}, []string{"service"}, false},
		{"nearest version, the same singleton", "2021-05-01-preview", format.Prop{Type: "string", Enum: []string{"default"}, Flags: format.FlagEnumClosed}, []string{"default"}, true},
		{"nearest version, one of the fixed names", "2021-05-01-preview", format.Prop{Type: "string", Enum: []string{"appsettings", "web"}}, []string{"web", "logs"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bt := map[string]map[string]*version{"contoso.widgets/widgets": {tc.bicepVer: bicepVersion(map[string]format.Prop{
				"name": tc.bicepName, "properties": {Type: "object"}, "tags": {Type: "object"},
			})}}
			sw := map[string]map[string]*version{"contoso.widgets/widgets": {"2016-09-01": swaggerVersion("2016-09-01", map[string]format.Prop{}, tc.fixedNames...)}}
			v := mergeSources(bt, sw)["contoso.widgets/widgets"][tc.bicepVer]
			if got := v.flags&format.VFlagPatch != 0; got != tc.wantPatch {
				t.Fatalf("PATCH = %v, want %v (facts from %s)", got, tc.wantPatch, v.factsFrom)
			}
			if !tc.wantPatch && len(v.patch) != 0 {
				t.Errorf("PATCH paths %v without PATCH", v.patch)
			}
			wantFrom := ""
			if tc.wantPatch {
				wantFrom = "2016-09-01"
			}
			if v.factsFrom != wantFrom {
				t.Errorf("facts from %q, want %q", v.factsFrom, wantFrom)
			}
		})
	}
}

func TestFixedNameOf(t *testing.T) {
	for p, want := range map[string]string{
		"/{resourceUri}/providers/microsoft.insights/diagnosticSettings/service":                                                 "service",
		"/{resourceUri}/providers/Microsoft.Insights/diagnosticSettings/{name}":                                                  "",
		"/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.Web/sites/{name}/config/appsettings":                         "appsettings",
		"/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.Storage/storageAccounts/{a}/blobServices/{BlobServicesName}": "",
	} {
		if got := fixedNameOf(p); got != want {
			t.Errorf("fixedNameOf(%s) = %q, want %q", p, got, want)
		}
	}
}
