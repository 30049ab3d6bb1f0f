package state

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// A file that is not a state file of this tool is refused at Open with a
// *FormatError saying what was found, and neither it nor its backup is
// ever modified, however often the refusal happens.
func TestLocalRefusesForeignFiles(t *testing.T) {
	tests := []struct {
		name, content, found string
	}{
		{"tsconfig", `{"compilerOptions": {"strict": true}, "include": ["src"]}`, `members "compilerOptions", "include"`},
		{"null", "null", "JSON null"},
		{"array", `[{"id": "x"}]`, "a JSON array"},
		{"string", `"state"`, "a JSON string"},
		{"number", `42`, "a JSON number"},
		{"yaml", "apiVersion: azure.kubectl.io/v1\nkind: Resource\n", "not JSON"},
		{"other marker", `{"format": "terraform/state", "version": 1, "lineage": "x", "resources": {}}`, `"format": "terraform/state"`},
		{"newer version", `{"format": "kubectl-azure/state", "version": 9, "serial": 1, "lineage": "x", "resources": {}}`, "version 9"},
		{"no lineage", `{"version": 1, "resources": {}}`, "no \"format\""},
		{"corrupt state", `{"format": "kubectl-azure/state", "version": 1, "resources": {`, "corrupt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "tsconfig.json")
			const backup = "previous backup, must survive"
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path+".backup", []byte(backup), 0o644); err != nil {
				t.Fatal(err)
			}
			for run := range 2 {
				_, err := Open(context.Background(), path, Options{})
				var fe *FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("run %d: Open = %v, want a *FormatError", run, err)
				}
				if !strings.Contains(err.Error(), tt.found) || !strings.Contains(err.Error(), path) {
					t.Errorf("run %d: message %q does not name the file and %q", run, err, tt.found)
				}
			}
			if b, _ := os.ReadFile(path); string(b) != tt.content {
				t.Errorf("the refused file was modified: %q", b)
			}
			if b, _ := os.ReadFile(path + ".backup"); string(b) != backup {
				t.Errorf("the refused file's backup was modified: %q", b)
			}
			if _, err := os.Stat(path + ".journal"); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a journal was created beside a refused file: %v", err)
			}
		})
	}
}

func TestLocalAcceptsEmptyAndFirstReleaseFiles(t *testing.T) {
	ctx := context.Background()
	legacy := `{
  "version": 1,
  "serial": 4,
  "lineage": "0123456789abcdef",
  "resources": {
    "` + armid.Key(testID) + `": {"id": "` + testID + `", "type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-05-01", "updated": "2026-01-01T00:00:00Z", "serial": 2}
  }
}
`
	for name, content := range map[string]string{"empty": "", "whitespace": " \n", "first release": legacy} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			st, err := Open(ctx, path, Options{})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer st.Close()
			id2 := strings.Replace(testID, "stdemo001", "stdemo002", 1)
			if err := st.Put(ctx, testRecord(id2)); err != nil {
				t.Fatal(err)
			}
			f := readState(t, path)
			if f.Format != FileFormat {
				t.Errorf("written file has format %q, want %q", f.Format, FileFormat)
			}
			want := 1
			if content == legacy {
				want = 2
				if f.Lineage != "0123456789abcdef" || f.Serial != 5 {
					t.Errorf("first-release file: lineage %s serial %d, want it kept and bumped", f.Lineage, f.Serial)
				}
			}
			if len(f.Resources) != want {
				t.Errorf("%d records, want %d", len(f.Resources), want)
			}
		})
	}
}

// Records written before Subscription existed derive it from their ID.
func TestLocalSubscriptionDerivedOnRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	old := `{"format": "kubectl-azure/state", "version": 1, "serial": 1, "lineage": "ab", "resources": {"` + armid.Key(testID) +
		`": {"id": "` + testID + `", "type": "T", "apiVersion": "v", "set": "demo", "updated": "2026-01-01T00:00:00Z", "serial": 1}}}`
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	st := openLocalT(t, path)
	r, err := st.Get(context.Background(), testID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Subscription != "00000000-0000-0000-0000-000000000001" {
		t.Errorf("Subscription = %q, want the ID's", r.Subscription)
	}
}

// filter returns the records of recs that are InScope(subscription, set),
// in their order.
func filter(recs []*Record, subscription, set string) []*Record {
	var out []*Record
	for _, r := range recs {
		if r.InScope(subscription, set) {
			out = append(out, r)
		}
	}
	return out
}

func TestFilterBySubscriptionAndSet(t *testing.T) {
	mk := func(sub, set string) *Record {
		return &Record{ID: "/subscriptions/" + sub + "/resourceGroups/rg", Set: set}
	}
	recs := []*Record{mk("AAAA", "prod"), mk("bbbb", "prod"), mk("aaaa", "dev"), mk("aaaa", ""),
		{ID: "/providers/Microsoft.Management/managementGroups/mg", Set: "prod"}}
	tests := []struct {
		sub, set string
		want     []int
	}{
		{"aaaa", "prod", []int{0}},
		{"AAAA", "dev", []int{2}},
		{"aaaa", "", []int{3}},
		{"aaaa", DefaultSet, []int{3}},
		{"", "prod", []int{0, 1, 4}},
		{"cccc", "prod", nil},
	}
	for _, tt := range tests {
		got := filter(recs, tt.sub, tt.set)
		var idx []int
		for _, g := range got {
			for i, r := range recs {
				if g == r {
					idx = append(idx, i)
				}
			}
		}
		if !equalJSON(idx, tt.want) {
			t.Errorf("Filter(%q, %q) = %v, want %v", tt.sub, tt.set, idx, tt.want)
		}
	}
}

// Numbers in L and B come back exactly, through the journal and the file.
func TestLocalNumbersExact(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.json")
	st, err := Open(ctx, path, Options{SnapshotInterval: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	unlock, err := st.Lock(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	r := testRecord(testID)
	r.LastApplied["big"] = json.Number("12345678901234567890")
	r.Baseline["big"] = json.Number("9007199254740993")
	for range 2 { // the second Put goes to the journal only
		if err := st.Put(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string, st Store) {
		got, err := st.Get(ctx, testID)
		if err != nil {
			t.Fatal(err)
		}
		if got.LastApplied["big"] != json.Number("12345678901234567890") || got.Baseline["big"] != json.Number("9007199254740993") {
			t.Errorf("%s: numbers changed: %#v %#v", when, got.LastApplied["big"], got.Baseline["big"])
		}
	}
	other, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	check("read through the journal", other)
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	check("after unlock", other)
	if b, _ := os.ReadFile(path); !bytes.Contains(b, []byte("12345678901234567890")) {
		t.Error("the number is not in the file as written")
	}
}

// Whatever a --state file holds, decoding never panics, and a file it
// accepts survives a write and a read unchanged.
func FuzzDecodeFile(f *testing.F) {
	f.Add([]byte(`{"format": "kubectl-azure/state", "version": 1, "serial": 2, "lineage": "ab", "resources": {"k": {"id": "/subscriptions/s/resourceGroups/rg", "serial": 1}}}`))
	f.Add([]byte(`{"version": 1, "lineage": "ab", "resources": {}}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"compilerOptions": {}}`))
	f.Add([]byte(" \n"))
	f.Add([]byte(`{"format": "kubectl-azure/state", "version": 1, "resources": {`))
	f.Fuzz(func(t *testing.T, b []byte) {
		lf, err := decodeFile("state.json", "state.json.backup", b)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("refusal is not a *FormatError: %v", err)
			}
			return
		}
		want, _ := json.Marshal(lf.Resources)
		enc, err := encodeFile(lf)
		if err != nil {
			t.Fatal(err)
		}
		again, err := decodeFile("state.json", "state.json.backup", enc)
		if err != nil {
			t.Fatalf("a file we wrote is refused: %v\n%s", err, enc)
		}
		if got, _ := json.Marshal(again.Resources); !bytes.Equal(got, want) {
			t.Fatalf("resources changed by a write and a read:\n%s\n%s", want, got)
		}
	})
}
