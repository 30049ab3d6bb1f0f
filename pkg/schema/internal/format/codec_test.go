package format

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func sample() *Blob {
	return &Blob{
		Name:  "Contoso.Widgets/widgets",
		Paths: []string{"location", "properties", "properties.size", "tags", "tags.*"},
		Props: []Prop{
			{Type: "string", Flags: FlagCreateOnly},
			{Type: "object"},
			{Type: "string", Flags: FlagEnumClosed | FlagHasDefault, Default: `"Small"`, Enum: []string{"Small", "Large"}},
			{Type: "array", Flags: FlagHasIdentifiers, Identifiers: []string{"name"}},
			{Type: "integer", Flags: FlagRequired | FlagHasMinValue | FlagHasMaxValue | FlagVariants, MinValue: -3, MaxValue: 1 << 40, Variants: []string{"A", "B"}},
			{Type: "string", Flags: FlagHasMinLength | FlagHasMaxLength | FlagHasPattern | FlagDiscriminator, MinLength: 1, MaxLength: 90, Pattern: "^[a-z]+$", Discriminator: "kind"},
		},
		Versions: []APIVersion{
			{Version: "2024-01-01", Props: []PathProp{{0, 0}, {1, 1}}},
			{Version: "2024-06-01", Flags: VFlagPatch | VFlagEtag, PatchPaths: []int{3, 4},
				Props: []PathProp{{0, 0}, {1, 1}, {2, 4}, {3, 3}, {4, 5}},
				Descs: []PathProp{{0, 1}, {2, 0}}, FactsFrom: "2024-01-01", PutStatus: []int{200, 201}, DeleteStatus: []int{200, 204}},
		},
		Descriptions: []string{"The size.", "Where it lives."},
	}
}

func TestRoundTrip(t *testing.T) {
	in := sample()
	enc, err := Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip changed the blob:\n in %+v\nout %+v", in, out)
	}
}

func TestDecodeRejectsCorruption(t *testing.T) {
	enc, err := Encode(sample())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(enc[:len(enc)/2]); err == nil {
		t.Error("truncated blob decoded without error")
	}
	if _, err := Decode([]byte("not flate at all")); err == nil {
		t.Error("garbage decoded without error")
	}
}

func TestIndexRoundTrip(t *testing.T) {
	dir := t.TempDir()
	a, b := sample(), sample()
	b.Name = "Contoso.Widgets/widgets/gears"
	if err := WriteIndex(dir, []*Blob{a, b}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := ParseIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[1].Name != b.Name || !reflect.DeepEqual(entries[0].VersionList(), []string{"2024-01-01", "2024-06-01"}) {
		t.Fatalf("entries = %+v", entries)
	}
	shard, err := os.ReadFile(filepath.Join(dir, entries[1].Shard))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(shard[entries[1].Offset : entries[1].Offset+entries[1].Length])
	if err != nil || got.Name != b.Name {
		t.Fatalf("second blob: %v %v", got, err)
	}
	if _, err := ParseIndex([]byte("other format 9\n")); err == nil {
		t.Error("unknown index version accepted")
	}
}

// Decode decodes a whole blob, every version and the descriptions, as
// the registry does piecewise with DecodeHeader and Section.
func Decode(b []byte) (*Blob, error) {
	lz, err := DecodeHeader(b)
	if err != nil {
		return nil, err
	}
	for i := range lz.Versions {
		if err := lz.Section(i); err != nil {
			return nil, err
		}
	}
	if err := lz.LoadDescriptions(); err != nil {
		return nil, err
	}
	if len(lz.Descriptions) == 0 {
		lz.Descriptions = nil
	}
	return lz.Blob, nil
}
