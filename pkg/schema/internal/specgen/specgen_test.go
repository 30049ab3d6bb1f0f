package specgen

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema/internal/format"
)

const fixture = "testdata/specs"

func generate(t *testing.T, p string) []*format.Blob {
	t.Helper()
	src, err := OpenSource(p)
	if err != nil {
		t.Fatal(err)
	}
	blobs, _, err := Generate(src)
	if err != nil {
		t.Fatal(err)
	}
	return blobs
}

// facts returns path -> record for one type and version of the fixture.
func facts(t *testing.T, blobs []*format.Blob, typ, version string) (map[string]format.Prop, format.APIVersion, *format.Blob) {
	t.Helper()
	for _, b := range blobs {
		if b.Name != typ {
			continue
		}
		for _, v := range b.Versions {
			if v.Version == version {
				out := map[string]format.Prop{}
				for _, pp := range v.Props {
					out[b.Paths[pp.Path]] = b.Props[pp.Prop]
				}
				return out, v, b
			}
		}
	}
	t.Fatalf("%s@%s not generated", typ, version)
	return nil, format.APIVersion{}, nil
}

func TestFixtureTypes(t *testing.T) {
	src, err := OpenSource(fixture)
	if err != nil {
		t.Fatal(err)
	}
	blobs, st, err := Generate(src)
	if err != nil {
		t.Fatal(err)
	}
	if st.Types != 2 || st.Pairs != 3 || st.Fallbacks == 0 {
		t.Errorf("stats = %+v, want 2 types, 3 pairs, some fallbacks", st)
	}
	var names []string
	for _, b := range blobs {
		names = append(names, b.Name)
	}
	// The collection PUT and the POST action are not resources.
	want := []string{"Contoso.Widgets/widgets", "Contoso.Widgets/widgets/gears"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("types = %v, want %v", names, want)
	}
}

func TestFixtureFacts(t *testing.T) {
	props, v, _ := facts(t, generate(t, fixture), "Contoso.Widgets/widgets", "2024-06-01")
	has := func(path string, flag uint64) bool {
		p, ok := props[path]
		if !ok {
			t.Fatalf("path %s missing; have %v", path, keys(props))
		}
		return p.Flags&flag != 0
	}
	checks := []struct {
		path string
		flag uint64
		want bool
		why  string
	}{
		{"location", format.FlagCreateOnly, true, "common-types mutability read+create across files"},
		{"tags", format.FlagCreateOnly, false, "tags are updatable"},
		{"id", format.FlagReadOnly, true, "Resource.id via allOf in another file"},
		{"id", format.FlagARMID, true, "format arm-id"},
		{"systemData.createdBy", format.FlagReadOnly, true, "readonly inherited from a $ref sibling"},
		{"properties.region", format.FlagCreateOnly, true, "x-ms-mutability without update"},
		{"properties.seed", format.FlagSecret, true, "x-ms-secret"},
		{"properties.seed", format.FlagWriteOnly, true, "mutability without read"},
		{"properties.adminPassword", format.FlagSecret, true, "format password"},
		{"properties.bootstrapToken", format.FlagWriteOnly, true, "in the PUT model, absent from GET"},
		{"properties.size", format.FlagWriteOnly, false, "in both models"},
		{"properties.provisioningState", format.FlagReadOnly, true, "readOnly"},
		{"properties.status.health", format.FlagReadOnly, true, "inside a readonly object"},
		{"properties.subnetId", format.FlagARMID, true, "format arm-id"},
		{"properties.size", format.FlagEnumClosed, true, "modelAsString false"},
		{"properties.color", format.FlagEnumClosed, false, "modelAsString true"},
		{"properties.steps", format.FlagPositional, true, "x-ms-identifiers: []"},
		{"properties.parts", format.FlagPositional, false, "keyed"},
		{"properties.labels", format.FlagHasIdentifiers, false, "spec silent: callers fall back to name"},
	}
	for _, c := range checks {
		if got := has(c.path, c.flag); got != c.want {
			t.Errorf("%s flag %b = %v, want %v (%s)", c.path, c.flag, got, c.want, c.why)
		}
	}
	if p := props["properties.size"]; p.Default != `"Small"` || !reflect.DeepEqual(p.Enum, []string{"Small", "Large"}) || p.Type != "string" {
		t.Errorf("properties.size = %+v", p)
	}
	if p := props["properties.replicas"]; p.Default != "3" || p.Type != "integer" {
		t.Errorf("properties.replicas = %+v", p)
	}
	if p := props["properties.parts"]; !reflect.DeepEqual(p.Identifiers, []string{"partNumber"}) || p.Type != "array" {
		t.Errorf("properties.parts = %+v", p)
	}
	if p := props["tags.*"]; p.Type != "string" {
		t.Errorf("tags.* = %+v", p)
	}
	if _, ok := props["properties.settings"]; !ok {
		t.Error("free-form object properties.settings missing")
	}
	// Recursion stops at the first repetition of Node.
	for _, p := range []string{"properties.tree.value", "properties.tree.children", "properties.tree.children[]"} {
		if _, ok := props[p]; !ok {
			t.Errorf("%s missing", p)
		}
	}
	if _, ok := props["properties.tree.children[].children[].value"]; ok {
		t.Error("recursive model expanded past its first repetition")
	}
	// x-ms-client-flatten is a client concern: no flattened paths.
	if _, ok := props["size"]; ok {
		t.Error("flattened path generated")
	}
	if v.Flags&format.VFlagPatch == 0 || v.Flags&format.VFlagPutLRO == 0 || v.Flags&format.VFlagDeleteLRO != 0 || v.Flags&format.VFlagEtag != 0 {
		t.Errorf("widget version flags = %b", v.Flags)
	}
}

func TestFixturePatchPathsAndDiscriminator(t *testing.T) {
	blobs := generate(t, fixture)
	_, v, b := facts(t, blobs, "Contoso.Widgets/widgets", "2024-06-01")
	var patch []string
	for _, i := range v.PatchPaths {
		patch = append(patch, b.Paths[i])
	}
	if !reflect.DeepEqual(patch, []string{"tags", "tags.*"}) {
		t.Errorf("patch paths = %v, want tags only", patch)
	}
	props, gv, _ := facts(t, blobs, "Contoso.Widgets/widgets/gears", "2024-06-01")
	// Sub-types live in a sibling file of the api-version folder; the
	// grandchild extends the child.
	// "properties.isDefault" comes from the gears/default path: one type,
	// a model per fixed name, united.
	for _, p := range []string{"properties.kind", "properties.teeth", "properties.angle", "etag", "properties.isDefault"} {
		if _, ok := props[p]; !ok {
			t.Errorf("gears: %s missing (discriminated sub-types not merged?); have %v", p, keys(props))
		}
	}
	// Sub-types disagree on teeth's type: the merged path has none, so a
	// value valid for either passes validation.
	if p := props["properties.teeth"]; p.Type != "" {
		t.Errorf("teeth type = %q, want none (integer in SpurGear, string in WormGear)", p.Type)
	}
	if p := props["properties.material"]; p.Flags&format.FlagEnumClosed == 0 {
		t.Errorf("material (one sub-type only) = %+v, want its closed enum", p)
	}
	if gv.Flags&format.VFlagEtag == 0 || gv.Flags&format.VFlagDeleteLRO == 0 || gv.Flags&format.VFlagPatch != 0 {
		t.Errorf("gears version flags = %b", gv.Flags)
	}
}

func TestFixtureVersions(t *testing.T) {
	props, _, b := facts(t, generate(t, fixture), "Contoso.Widgets/widgets", "2024-01-01")
	if len(b.Versions) != 2 || b.Versions[0].Version != "2024-01-01" || b.Versions[1].Version != "2024-06-01" {
		t.Fatalf("versions = %+v", b.Versions)
	}
	if p, ok := props["properties.size"]; !ok || p.Flags&format.FlagEnumClosed != 0 {
		t.Errorf("2024-01-01 properties.size = %+v (no x-ms-enum: open)", p)
	}
	if _, ok := props["properties.region"]; ok {
		t.Error("2024-01-01 has a property only 2024-06-01 declares")
	}
	// 2024-01-01 extends a service-local common file that the tree lacks
	// (as the stable-only archive lacks compute's and sql's): the shared
	// common-types stand in, so the ARM basics are still described.
	if p, ok := props["location"]; !ok || p.Flags&format.FlagCreateOnly == 0 {
		t.Errorf("2024-01-01 location = %+v (present %v), want create-only via the common-types fallback", p, ok)
	}
	if p, ok := props["id"]; !ok || p.Flags&format.FlagReadOnly == 0 {
		t.Errorf("2024-01-01 id = %+v (present %v)", p, ok)
	}
}

// TestDeterministic generates the fixture twice from the directory and
// once from a .tar.gz of it: every output file must be byte-identical.
func TestDeterministic(t *testing.T) {
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	for _, out := range []string{a, b} {
		src, err := OpenSource(fixture)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Run(src, out); err != nil {
			t.Fatal(err)
		}
	}
	tgz := filepath.Join(t.TempDir(), "specs.tar.gz")
	writeTarGz(t, fixture, tgz)
	src, err := OpenSource(tgz)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(src, c); err != nil {
		t.Fatal(err)
	}
	want := readDir(t, a)
	if len(want) < 2 {
		t.Fatalf("expected an index and a shard, got %v", keys(want))
	}
	for _, other := range []string{b, c} {
		got := readDir(t, other)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("output of %s differs from %s", other, a)
		}
	}
}

func TestOpenSourceErrors(t *testing.T) {
	if _, err := OpenSource(t.TempDir()); err == nil {
		t.Error("a folder without specification/ was accepted")
	}
	if _, err := OpenSource(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("a missing path was accepted")
	}
}

func TestTypeFromPath(t *testing.T) {
	cases := map[string]string{
		"/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.Network/virtualNetworks/{v}/subnets/{n}":          "Microsoft.Network/virtualNetworks/subnets",
		"/{scope}/providers/Microsoft.Authorization/roleAssignments/{id}":                                             "Microsoft.Authorization/roleAssignments",
		"/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.Storage/storageAccounts/{a}/blobServices/default": "Microsoft.Storage/storageAccounts/blobServices",
		"/subscriptions/{s}/resourcegroups/{rg}":                                                                      "Microsoft.Resources/resourceGroups",
		"/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.Web/sites/{n}/start":                              "",
		"/subscriptions/{s}/providers/{ns}/things/{n}":                                                                "",
		"/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.Foo/{type}/{n}":                                   "",
		"/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.Foo/things/{n}?x=y":                               "Microsoft.Foo/things",
	}
	for p, want := range cases {
		got, ok := typeFromPath(p)
		if got != want || ok != (want != "") {
			t.Errorf("typeFromPath(%s) = %q %v, want %q", p, got, ok, want)
		}
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

func writeTarGz(t *testing.T, dir, dst string) {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err = tw.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
