package importer_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/cli"
)

// runCLI runs kubectl-azure in-process and returns stdout, stderr and the
// exit code.
func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Main(args, genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errb})
	return out.String(), errb.String(), code
}

// TestCLIImportThenDiffIsEmpty is the user's path end to end: import a
// resource group with its children into files, then diff those files
// against the same state: exit 0 and no change.
func TestCLIImportThenDiffIsEmpty(t *testing.T) {
	srv := startEmulator(t, false)
	seedGroup(t, srv, 10)
	net := "/subscriptions/" + testSub + "/resourceGroups/" + timingRG + "/providers/Microsoft.Network/"
	if err := srv.Seed(net+"virtualNetworks/vnet-000/subnets/default", "2023-09-01", map[string]any{
		"id": net + "virtualNetworks/vnet-000/subnets/default", "name": "default", "etag": "x", "type": "Microsoft.Network/virtualNetworks/subnets",
		"properties": map[string]any{"addressPrefix": "10.0.0.0/24", "provisioningState": "Succeeded"}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	stateFile := filepath.Join(dir, "state.json")
	outDir := filepath.Join(dir, "infra")
	common := []string{"--endpoint", srv.URL(), "--state", stateFile, "--subscription", testSub}

	// The subnet is named explicitly and found again under its vnet: it
	// must be imported once (a duplicate would make the manifests fail to load).
	stdout, stderr, code := runCLI(t, append([]string{"import", net + "virtualNetworks/vnet-000/subnets/default",
		"--resource-group", timingRG, "--children", "--output-dir", outDir}, common...)...)
	if code != 0 {
		t.Fatalf("import exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(outDir, "*.yaml"))
	if len(files) != 12 {
		t.Fatalf("got %d files, want the group, 10 resources and 1 subnet: %v\n%s", len(files), files, stderr)
	}
	if _, err := os.Stat(filepath.Join(outDir, "resourcegroup-"+timingRG+".yaml")); err != nil {
		t.Errorf("import -g does not include the resource group itself: %v", err)
	}
	nic, err := os.ReadFile(filepath.Join(outDir, "networkinterfaces-nic-000.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("nic manifest:\n%s", nic)
	for _, want := range []string{
		"resourceGroup: " + timingRG,
		"${ref:Microsoft.Network/networkSecurityGroups/nsg-000}",
		"${ref:Microsoft.Network/virtualNetworks/subnets/default}",
	} {
		if !strings.Contains(string(nic), want) {
			t.Errorf("nic manifest lacks %q", want)
		}
	}
	if strings.Contains(string(nic), testSub) {
		t.Errorf("nic manifest hard-codes the subscription")
	}
	subnet, err := os.ReadFile(filepath.Join(outDir, "virtualnetworks-vnet-000-subnets-default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(subnet), "parent: Microsoft.Network/virtualNetworks/vnet-000") {
		t.Errorf("subnet not placed under its parent:\n%s", subnet)
	}

	stdout, stderr, code = runCLI(t, append([]string{"diff", "-f", outDir, "-o", "json"}, common...)...)
	if code != 0 {
		t.Fatalf("diff after import: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// Problems (warnings) carry paths too: count changes, not paths.
	var doc struct {
		Resources []struct {
			ID      string            `json:"id"`
			Changes []json.RawMessage `json:"changes"`
		} `json:"resources"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || len(doc.Resources) == 0 {
		t.Fatalf("diff -o json after import: %v\n%s", err, stdout)
	}
	for _, r := range doc.Resources {
		if len(r.Changes) > 0 {
			t.Errorf("diff after import lists changes for %s:\n%s", r.ID, stdout)
		}
	}
}

// TestCLIImportOfAParentAndItsChildByID: the vnet's ID and its subnet's ID
// given side by side (no --children) write the subnet once, as its own
// manifest and not again inline in the vnet, so the files load and the
// next diff is silent.
func TestCLIImportOfAParentAndItsChildByID(t *testing.T) {
	srv := startEmulator(t, false)
	seedGroup(t, srv, 1)
	net := "/subscriptions/" + testSub + "/resourceGroups/" + timingRG + "/providers/Microsoft.Network/"
	vnet := net + "virtualNetworks/vnet-000"
	if err := srv.Seed(vnet+"/subnets/default", "2023-09-01", map[string]any{
		"id": vnet + "/subnets/default", "name": "default", "etag": "x", "type": "Microsoft.Network/virtualNetworks/subnets",
		"properties": map[string]any{"addressPrefix": "10.0.0.0/24", "provisioningState": "Succeeded"}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	outDir := filepath.Join(dir, "infra")
	common := []string{"--endpoint", srv.URL(), "--state", filepath.Join(dir, "state.json"), "--subscription", testSub}
	stdout, stderr, code := runCLI(t, append([]string{"import", vnet, vnet + "/subnets/default", "--output-dir", outDir}, common...)...)
	if code != 0 {
		t.Fatalf("import exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	v, err := os.ReadFile(filepath.Join(outDir, "virtualnetworks-vnet-000.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(v), "10.0.0.0/24") {
		t.Errorf("the vnet's manifest still declares the subnet imported on its own:\n%s", v)
	}
	if stdout, stderr, code = runCLI(t, append([]string{"diff", "-f", outDir}, common...)...); code != 0 {
		t.Fatalf("diff after import: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
