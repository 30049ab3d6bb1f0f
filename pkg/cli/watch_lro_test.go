package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator/emulatortest"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
)

// TestLoopLetsGoOfTheLockWhileAzureProvisions: a virtual network whose
// provisioning never ends (an hour here) is being created by the loop.
// While it waits, a person's apply takes the state lock and finishes, and
// the loop's other worker corrects drift elsewhere. Before, the batch held
// the state lock and every other writer of the loop for the whole wait.
func TestLoopLetsGoOfTheLockWhileAzureProvisions(t *testing.T) {
	e := newLoopEnvWith(t, func(o *emulator.Options) {
		o.LROByType = map[string]time.Duration{"Microsoft.Network/virtualNetworks": time.Hour}
	})
	e.cli(0, "apply", "-f", e.dir, "--yes")
	slow := emulatortest.VNet("vnet-slow", "rg-loop", "10.40.0.0/16")
	e.write("infra.yaml", loopManifests+"---\n"+slow.YAML())
	_, log := e.loop(t.Context(), "--drift-policy", "correct", "--workers", "2")
	vnet := "/subscriptions/" + loopSub + "/resourceGroups/rg-loop/providers/Microsoft.Network/virtualNetworks/vnet-slow"
	deadline := time.Now().Add(10 * time.Second)
	for e.front.WritesOf(vnet) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the loop never sent the vnet's create\n%s", log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}

	// A person's apply gets the state lock.
	other := strings.Replace(loopManifests, "owner: platform", "owner: apps", 1)
	e.write("infra.yaml", other+"---\n"+slow.YAML())
	start := time.Now()
	e.cli(0, "apply", "-f", e.dir, "--yes", "--lock-timeout", "5s")
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the apply waited %s for the lock", took)
	}
	if got := tagOf(e.get(identityID("id-a")), "owner"); got != "apps" {
		t.Fatalf("owner = %q after the person's apply", got)
	}
	// The loop's other worker is free to correct drift.
	e.setTag(identityID("id-b"), "env", "dev")
	e.waitFor("the drift is corrected while the vnet provisions", 10*time.Second, log, func(st *reconcile.Status) bool {
		r := resource(st, identityID("id-b"))
		return r != nil && r.State == reconcile.StateInSync && r.Corrections == 1
	})
	props, _ := e.get(vnet)["properties"].(map[string]any)
	if ps := props["provisioningState"]; ps == "Succeeded" {
		t.Fatalf("the vnet finished provisioning (%v): the test did not wait on a long operation", ps)
	}
}
