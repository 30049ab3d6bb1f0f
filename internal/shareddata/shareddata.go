// Package shareddata locates the project's shared data folder (DESIGN.md,
// corpus, azure-specs), which lives beside the repository as ../shared and
// is never copied into it.
package shareddata

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// EnvVar overrides the location of the shared folder.
const EnvVar = "KUBECTL_AZURE_SHARED"

// Dir returns the shared folder: $KUBECTL_AZURE_SHARED, else ../shared
// relative to the repository root (the directory holding go.mod).
func Dir() (string, error) {
	if d := os.Getenv(EnvVar); d != "" {
		if _, err := os.Stat(d); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvVar, d, err)
		}
		return d, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			s := filepath.Join(filepath.Dir(d), "shared")
			if _, err := os.Stat(s); err != nil {
				return "", fmt.Errorf("shared data folder not found at %s (expected ../shared beside the repository, or set %s)", s, EnvVar)
			}
			return s, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod above %s; cannot locate ../shared (set %s)", wd, EnvVar)
		}
	}
}

// Path returns a path inside the shared folder and fails the test with a
// clear message when it is missing. Tests that need the corpus fail rather
// than skip: a skipped measurement is not a passing one.
func Path(t testing.TB, elem ...string) string {
	t.Helper()
	d, err := Dir()
	if err != nil {
		t.Fatalf("shared data missing: %v", err)
	}
	p := filepath.Join(append([]string{d}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("shared data missing: %s: %v (this test reads ../shared; see README)", p, err)
	}
	return p
}
