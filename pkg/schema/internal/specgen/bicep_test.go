package specgen

import (
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema/internal/format"
)

const bicepFixture = "testdata/bicep"

func readBicepFixture(t *testing.T) map[string]map[string]*version {
	t.Helper()
	vs, err := ReadBicep(bicepFixture)
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

func TestBicepFacts(t *testing.T) {
	v := readBicepFixture(t)["contoso.widgets/widgets"]["2024-06-01"]
	if v == nil || v.name != "Contoso.Widgets/widgets" || v.flags&format.VFlagBicep == 0 {
		t.Fatalf("widgets@2024-06-01 = %+v", v)
	}
	p := v.props
	cases := []struct {
		path       string
		set, unset uint64
	}{
		{"location", format.FlagRequired, 0},
		{"name", format.FlagHasMinLength | format.FlagHasMaxLength | format.FlagHasPattern, format.FlagRequired}, // from the URL
		{"id", format.FlagReadOnly, format.FlagRequired},
		{"properties.size", format.FlagEnumClosed, 0},
		{"properties.color", 0, format.FlagEnumClosed},
		{"properties.seed", format.FlagSecret | format.FlagWriteOnly, 0},
		{"properties.status", format.FlagReadOnly, 0},
		{"properties.status.health", format.FlagReadOnly, 0}, // inside a readonly object
		{"properties.replicas", format.FlagHasMinValue | format.FlagHasMaxValue, 0},
		{"properties.parts[].partNumber", format.FlagRequired, 0},
		{"tags.*", 0, 0},
	}
	for _, c := range cases {
		f, ok := p[c.path]
		if !ok {
			t.Errorf("%s missing", c.path)
			continue
		}
		if f.Flags&c.set != c.set || f.Flags&c.unset != 0 {
			t.Errorf("%s flags %b, want %b set and %b unset", c.path, f.Flags, c.set, c.unset)
		}
	}
	if _, ok := p["apiVersion"]; ok {
		t.Error("apiVersion is not part of an ARM body")
	}
	if got := p["properties.size"].Enum; !reflect.DeepEqual(got, []string{"Small", "Large"}) {
		t.Errorf("size enum = %v (spec order)", got)
	}
	if r := p["properties.replicas"]; r.MinValue != 1 || r.MaxValue != 100 || p["properties.replicas"].Type != "integer" {
		t.Errorf("replicas = %+v", r)
	}
	if d := v.descs["properties.size"]; d != "How big." {
		t.Errorf("description = %q", d)
	}
}

func TestBicepDiscriminators(t *testing.T) {
	all := readBicepFixture(t)
	g := all["contoso.widgets/widgets/gears"]["2024-06-01"]
	if g.props[""].Discriminator != "kind" {
		t.Errorf("gears root = %+v", g.props[""])
	}
	if teeth := g.props["teeth"]; !slices.Equal(teeth.Variants, []string{"Spur"}) || teeth.Flags&format.FlagRequired == 0 {
		t.Errorf("teeth = %+v", teeth)
	}
	// Every body declares kind; its values are open (services add kinds).
	if k := g.props["kind"]; k.Flags&(format.FlagVariants|format.FlagEnumClosed) != 0 || !slices.Equal(k.Enum, []string{"Spur", "Worm"}) {
		t.Errorf("kind = %+v", k)
	}
	c := all["contoso.widgets/widgets/config"]["2024-06-01"]
	if c.props[""].Discriminator != "name" {
		t.Errorf("config root = %+v", c.props[""])
	}
	// Both bodies are maps: the map itself belongs to both, the members
	// of a connection string only to one.
	if m := c.props["properties.*"]; m.Flags&format.FlagVariants != 0 || m.Type != "" {
		t.Errorf("properties.* = %+v (both bodies; string in one, object in the other)", m)
	}
	if val := c.props["properties.*.value"]; !slices.Equal(val.Variants, []string{"connectionstrings"}) || val.Flags&format.FlagRequired == 0 {
		t.Errorf("properties.*.value = %+v", val)
	}
}

func TestGenerateMerged(t *testing.T) {
	src, err := OpenSource(fixture)
	if err != nil {
		t.Fatal(err)
	}
	blobs, st, err := GenerateMerged(src, bicepFixture)
	if err != nil {
		t.Fatal(err)
	}
	if st.Types != 3 {
		t.Errorf("types = %d, want widgets, gears, config", st.Types)
	}
	props, v, _ := facts(t, blobs, "Contoso.Widgets/widgets", "2024-06-01")
	if v.FactsFrom != "2024-06-01" || v.Flags&(format.VFlagBicep|format.VFlagSwagger|format.VFlagPatch) != format.VFlagBicep|format.VFlagSwagger|format.VFlagPatch {
		t.Errorf("exact version: facts from %q, flags %b", v.FactsFrom, v.Flags)
	}
	if !slices.Equal(v.PutStatus, []int{200, 201}) {
		t.Errorf("put status = %v", v.PutStatus)
	}
	if r := props["properties.region"]; r.Flags&format.FlagCreateOnly == 0 || r.Flags&format.FlagRequired == 0 || r.Flags&format.FlagFromSwagger != 0 {
		t.Errorf("region = %+v: create-only from the Swagger, required from Bicep", r)
	}
	if bt := props["properties.bootstrapToken"]; bt.Flags&format.FlagWriteOnly == 0 {
		t.Errorf("bootstrapToken = %+v: write-only as the Swagger infers it (PUT model only)", bt)
	}
	if pt := props["properties.parts"]; !slices.Equal(pt.Identifiers, []string{"partNumber"}) {
		t.Errorf("parts identifiers = %v", pt.Identifiers)
	}
	if l := props["location"]; l.Flags&format.FlagCreateOnly == 0 {
		t.Errorf("location = %+v, want create-only", l)
	}
	props, v, _ = facts(t, blobs, "Contoso.Widgets/widgets", "2025-01-01-preview")
	if v.FactsFrom != "2024-06-01" || v.Flags&format.VFlagSwagger != 0 {
		t.Errorf("preview: facts from %q, flags %b", v.FactsFrom, v.Flags)
	}
	if r := props["properties.region"]; r.Flags&(format.FlagCreateOnly|format.FlagFromSwagger) != format.FlagCreateOnly|format.FlagFromSwagger {
		t.Errorf("preview region = %+v: create-only from the nearest Swagger, marked so", r)
	}
	if _, ok := props["properties.turbo"]; !ok {
		t.Error("preview-only member missing")
	}
	// The Swagger-only version stays.
	facts(t, blobs, "Contoso.Widgets/widgets", "2024-01-01")
	_, v, _ = facts(t, blobs, "Contoso.Widgets/widgets/config", "2024-06-01")
	if v.FactsFrom != "" {
		t.Errorf("config has no Swagger, facts from %q", v.FactsFrom)
	}
}

func TestBicepTarGz(t *testing.T) {
	tgz := filepath.Join(t.TempDir(), "bicep.tar.gz")
	writeTarGz(t, bicepFixture, tgz)
	a := readBicepFixture(t)
	b, err := ReadBicep(tgz)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("the archive and the folder read differently")
	}
	if _, err := ReadBicep(t.TempDir()); err == nil {
		t.Error("a folder without types was accepted")
	}
}
