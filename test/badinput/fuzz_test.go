package badinput

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// The manifest loader and the diff have their own fuzz targets (pkg/manifest
// FuzzLoad, pkg/diff FuzzCompute). These two cover the other files the CLI
// reads from disk, through the CLI itself.

// FuzzSavedPlan: `apply FILE --yes` on arbitrary bytes must not panic, and
// when it fails it must have written nothing to ARM.
func FuzzSavedPlan(f *testing.F) {
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"resources": [], "summary": {}, "source": {}}`))
	f.Add([]byte(`{"resources": [{"id": "/subscriptions/x/resourceGroups/rg", "action": "create"}], "source": {"filenames": ["nope.yaml"]}}`))
	f.Add([]byte("resources: [\n"))
	f.Add([]byte{0xff, 0xfe, 0x00})
	// One emulator for every input: starting one per input would dominate
	// the fuzzer's time.
	a := harness.StartARM(f, harness.FastOptions())
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		plan := filepath.Join(dir, "plan.json")
		if err := os.WriteFile(plan, data, 0o600); err != nil {
			t.Fatal(err)
		}
		before := harness.Writes(a.Stats())
		r := harness.Run(a.URL, filepath.Join(dir, "state.json"), "apply", plan, "--yes")
		if r.Code != 0 && harness.Writes(a.Stats()) != before {
			t.Fatalf("apply of an invalid saved plan failed (exit %d) after writing to ARM:\n%s", r.Code, r.Stderr)
		}
	})
}

// FuzzStateFile: `state list` on an arbitrary state file must not panic,
// and when it cannot read the file it must leave it byte for byte as it
// was (a corrupt state is reported, never replaced: it may be the only
// record of what exists).
func FuzzStateFile(f *testing.F) {
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"serial": 3, "resources": {}}`))
	f.Add([]byte(`{"resources": {"/subscriptions/x": {"id": 5}}}`))
	f.Add([]byte(`not json`))
	f.Add([]byte(``))
	// One emulator for every input: starting one per input would dominate
	// the fuzzer's time.
	a := harness.StartARM(f, harness.FastOptions())
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		st := filepath.Join(dir, "state.json")
		if err := os.WriteFile(st, data, 0o600); err != nil {
			t.Fatal(err)
		}
		r := harness.Run(a.URL, st, "state", "list")
		if r.Code == 0 {
			return
		}
		after, err := os.ReadFile(st)
		if err != nil {
			t.Fatalf("state file gone after a failed read: %v", err)
		}
		if !bytes.Equal(after, data) {
			t.Fatalf("unreadable state file was rewritten (exit %d: %s)", r.Code, r.Stderr)
		}
	})
}
