package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
)

// TestUnservedAPIVersionIsOneProblem: an api-version the schema index lacks
// is checked with ARM's providers API while the manifests load, and one ARM
// does not serve is a single problem on spec.type with its line (exit 2,
// nothing written), not a warning followed by a contradicting error.
func TestUnservedAPIVersionIsOneProblem(t *testing.T) {
	e := newEnv(t, nil)
	doc := `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: stversions}
spec:
  type: Microsoft.Storage/storageAccounts@2099-02-01
  resourceGroup: rg-versions
  body: {location: westeurope, sku: {name: Standard_LRS}, kind: StorageV2}
`
	dir := t.TempDir()
	f := filepath.Join(dir, "st.yaml")
	if err := os.WriteFile(f, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := e.run("diff", "-f", f)
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "ARM does not serve api-version 2099-02-01") || !strings.Contains(stderr, "line 5") {
		t.Errorf("stderr does not name the unserved version with its line:\n%s", stderr)
	}
	if strings.Contains(stderr, "warning:") && strings.Contains(stderr, "2099-02-01") && strings.Count(stderr, "2099-02-01") > 1 {
		t.Errorf("the version is reported more than once:\n%s", stderr)
	}
	if _, err := os.Stat(e.state); err == nil {
		t.Errorf("state was written for invalid input")
	}
}

// TestPlanSaysWhenItWaitsForARMsBudget: a plan slowed by a small read
// bucket says so on stderr, naming the bucket, instead of going quiet.
func TestPlanSaysWhenItWaitsForARMsBudget(t *testing.T) {
	e := newEnv(t, func(o *emulator.Options) {
		o.Throttle.Reads = emulator.Bucket{Size: 2, Refill: 4}
	})
	_, stderr, code := e.run("diff", "-f", e.dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (changes)\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "waiting for ARM's read budget") || !strings.Contains(stderr, "subscription reads") {
		t.Errorf("stderr does not say the plan waited for ARM's read budget:\n%s", stderr)
	}
}
