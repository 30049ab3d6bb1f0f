package manifest

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// testSub is the subscription tests load with; goldens never contain it
// unless a message has to show an ID.
const testSub = "00000000-0000-0000-0000-00000000c0de"

// envOf returns a LookupEnv that sees only vars, so tests never depend on
// the machine's environment or Azure CLI login.
func envOf(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}
}

// repoRoot makes test paths relative to the repository root, as a user
// running the CLI there would see them; goldens must not hold machine paths.
func repoRoot(t *testing.T) {
	t.Helper()
	t.Chdir(filepath.Join("..", ".."))
	if _, err := os.Stat("go.mod"); err != nil {
		t.Fatalf("not at the repository root: %v", err)
	}
}

// badCaseEnv gives the few cases that need a special environment theirs.
func badCaseEnv(name string) map[string]string {
	switch name {
	case "no-subscription":
		return map[string]string{}
	}
	return map[string]string{"AZURE_SUBSCRIPTION_ID": testSub}
}

// TestBadCases loads every testdata/bad/NAME.yaml and requires exactly the
// message in testdata/bad/NAME.golden (-update rewrites them).
func TestBadCases(t *testing.T) {
	repoRoot(t)
	cwd, _ := os.Getwd()
	files, err := filepath.Glob(filepath.Join("testdata", "bad", "*.yaml"))
	if err != nil || len(files) < 20 {
		t.Fatalf("expected at least 20 bad cases under testdata/bad, found %d (%v)", len(files), err)
	}
	goldens, _ := filepath.Glob(filepath.Join("testdata", "bad", "*.golden"))
	for _, g := range goldens {
		if _, err := os.Stat(strings.TrimSuffix(g, ".golden") + ".yaml"); err != nil {
			t.Errorf("%s has no case beside it: delete it or restore the .yaml", g)
		}
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) {
			set, err := Load(context.Background(), LoadOptions{
				Filenames: []string{f},
				LookupEnv: envOf(badCaseEnv(name)),
				Stdin:     strings.NewReader(""),
			})
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("want a *ValidationError, got set=%v err=%v", set, err)
			}
			for _, p := range ve.Problems {
				if p.File != f {
					t.Errorf("problem %q does not name the file %s", p, f)
				}
			}
			got := ve.Error() + "\n"
			if strings.Contains(got, cwd) {
				t.Errorf("message contains the machine path %s:\n%s", cwd, got)
			}
			golden := strings.TrimSuffix(f, ".yaml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./pkg/manifest -run TestBadCases -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("message differs from %s\n--- got\n%s--- want\n%s", golden, got, want)
			}
		})
	}
}
