// Package shareddata locates data the project's tests and generators read.
// Tests read only the copies under the repository's testdata/ (Path), so a
// clone with nothing beside it tests completely. Generators (make schema,
// the emulator profile) read the large upstream inputs from a folder given
// by KUBECTL_AZURE_SHARED, else ../shared beside the repository (Dir).
package shareddata

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// EnvVar overrides the location of the generators' input folder.
const EnvVar = "KUBECTL_AZURE_SHARED"

// Dir returns the generators' input folder: $KUBECTL_AZURE_SHARED, else
// ../shared relative to the repository root.
func Dir() (string, error) {
	if d := os.Getenv(EnvVar); d != "" {
		if _, err := os.Stat(d); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvVar, d, err)
		}
		return d, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	s := filepath.Join(filepath.Dir(root), "shared")
	if _, err := os.Stat(s); err != nil {
		return "", fmt.Errorf("generator inputs not found at %s (set %s to the folder holding bicep-types/, azure-specs/ and corpus/)", s, EnvVar)
	}
	return s, nil
}

// RepoRoot returns the directory holding the main module's go.mod.
func RepoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && isMainModule(b) {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod of the main module above %s", wd)
		}
	}
}

func isMainModule(gomod []byte) bool {
	const want = "module github.com/kubectl-azure/kubectl-azure\n"
	return len(gomod) >= len(want) && string(gomod[:len(want)]) == want
}

// Path returns a path under the repository's testdata/ and fails the test
// when it is missing: a skipped measurement is not a passing one.
func Path(t testing.TB, elem ...string) string {
	t.Helper()
	root, err := RepoRoot()
	if err != nil {
		t.Fatalf("test data: %v", err)
	}
	p := filepath.Join(append([]string{root, "testdata"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("test data missing: %s: %v", p, err)
	}
	return p
}
