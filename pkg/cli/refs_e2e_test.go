package cli_test

import (
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

// TestPrintedNamesResolveBack: every name state list prints, alone or after
// its TYPE, names its resource again for state show, get and --replace;
// the full child TYPE/NAME does too.
func TestPrintedNamesResolveBack(t *testing.T) {
	e := newEnv(t, nil)
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	out := e.mustRun(0, "state", "list")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 5 || !strings.Contains(out, "vnet-demo/snet-storage") {
		t.Fatalf("state list:\n%s", out)
	}
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		if len(f) < 6 || strings.HasPrefix(line, "pending:") {
			continue
		}
		name, typ, id := f[0], f[1], f[len(f)-1]
		for _, ref := range []string{name, typ + "/" + name} {
			got, errOut, code := e.run("state", "show", ref, "-o", "json")
			if code != 0 || !strings.Contains(got, id) {
				t.Errorf("state show %s: exit %d\n%s%s", ref, code, got, errOut)
			}
		}
	}
	const child = "Microsoft.Network/virtualNetworks/subnets/snet-storage"
	for _, ref := range []string{"vnet-demo/snet-storage", child, "Microsoft.Network/virtualNetworks/subnets/vnet-demo/snet-storage"} {
		if got, errOut, code := e.run("get", ref, "-o", "json"); code != 0 || !strings.Contains(got, "snet-storage") {
			t.Errorf("get %s: exit %d\n%s%s", ref, code, got, errOut)
		}
		got, errOut, code := e.run("diff", "-f", e.dir, "--replace", ref)
		if code != 1 || !strings.Contains(got, "snet-storage") {
			t.Errorf("diff --replace %s: exit %d\n%s%s", ref, code, got, errOut)
		}
	}
	// Without -f there are no manifest names to offer.
	_, errOut, code := e.run("state", "show", "vnet-demo/nothing")
	if code != 2 || !strings.Contains(errOut, "names no resource here") || strings.Contains(errOut, "manifest name") {
		t.Errorf("state show of nothing: exit %d\n%s", code, errOut)
	}
	// state rm takes the parent/child name too; off a terminal it wants
	// --yes, as apply does, and then says what it forgot.
	if got, errOut, code := e.run("state", "rm", "vnet-demo/snet-storage"); code != 2 || !strings.Contains(errOut, "--yes") {
		t.Errorf("state rm without --yes: exit %d\n%s%s", code, got, errOut)
	}
	e.mustRun(0, "state", "show", child)
	got, errOut, code := e.run("state", "rm", "vnet-demo/snet-storage", "--yes")
	if code != 0 || !strings.Contains(got, "Microsoft.Network/virtualNetworks/vnet-demo/subnets/snet-storage forgotten") {
		t.Errorf("state rm: exit %d\n%s%s", code, got, errOut)
	}
	if _, _, code := e.run("state", "show", child); code != 2 {
		t.Errorf("state show after rm: exit %d", code)
	}
}

// TestManifestNameOfAComputedName: a resource whose ARM name is computed
// (spec.name, known only at apply) is named on the command line by its
// metadata.name, as convert writes it: get, diff --replace and delete
// TYPE/NAME find it.
func TestManifestNameOfAComputedName(t *testing.T) {
	e := newEnv(t, nil)
	dir := t.TempDir()
	writeFile(t, dir, "m.yaml", `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: rg-sym}
spec:
  type: Microsoft.Resources/resourceGroups@2021-04-01
  body: {location: westeurope}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: id}
spec:
  type: Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31
  resourceGroup: rg-sym
  name: id-${uniqueString:${ref:rg-sym}}
  body: {location: westeurope}
`)
	e.mustRun(0, "apply", "-f", dir, "--yes")
	for _, ref := range []string{"id", "Microsoft.ManagedIdentity/userAssignedIdentities/id-" + manifest.ARMUniqueString("/subscriptions/"+testSub+"/resourceGroups/rg-sym")} {
		if got, errOut, code := e.run("get", "-f", dir, ref, "-o", "jsonpath={.body.location}"); code != 0 || strings.TrimSpace(got) != "westeurope" {
			t.Errorf("get %s: exit %d\n%s%s", ref, code, got, errOut)
		}
	}
	if got, errOut, code := e.run("diff", "-f", dir, "--replace", "id"); code != 1 || !strings.Contains(got, "userAssignedIdentities") {
		t.Errorf("diff --replace id: exit %d\n%s%s", code, got, errOut)
	}
}
