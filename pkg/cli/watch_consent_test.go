package cli

import (
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator/emulatortest"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
)

// consentStorage is a storage account someone else made in rg-loop: the
// manifests declare it, but no apply of this tool ever wrote it.
var consentStorage = emulatortest.Doc{Name: "stloop001", Type: "Microsoft.Storage/storageAccounts@2023-05-01", Place: "resourceGroup: rg-loop",
	Body: []string{"location: westeurope", "kind: StorageV2", "sku: {name: Standard_LRS}"}}

// consentManifests: the group, the unmanaged storage account, and a new
// identity whose tag takes the account's key through listKeys.
var consentManifests = emulatortest.Manifests(
	emulatortest.Group("rg-loop"),
	consentStorage,
	emulatortest.Identity("id-k", "rg-loop", "tags:", "  env: prod", "  key:", "    valueFrom:", `      action: {resource: stloop001, name: listKeys, path: "keys[0].value"}`),
)

func storageID(name string) string {
	return "/subscriptions/" + loopSub + "/resourceGroups/rg-loop/providers/Microsoft.Storage/storageAccounts/" + name
}

// unmanagedStorageEnv applies the group alone, then lets someone else
// create the storage account, then declares the three resources.
func unmanagedStorageEnv(t *testing.T) *loopEnv {
	t.Helper()
	e := newLoopEnv(t)
	e.write("infra.yaml", emulatortest.Manifests(emulatortest.Group("rg-loop")))
	e.cli(0, "apply", "-f", e.dir, "--yes")
	if err := e.srv.Seed(storageID("stloop001"), "2023-05-01", map[string]any{"location": "westeurope", "kind": "StorageV2",
		"sku": map[string]any{"name": "Standard_LRS"}}); err != nil {
		t.Fatal(err)
	}
	e.write("infra.yaml", consentManifests)
	return e
}

// TestLoopNeverReadsAnUnmanagedResourcesKeys: the loop never adopts the
// storage account it finds unmanaged, and it must not read its keys
// either: a one-shot apply refuses these manifests without --adopt, and
// the loop must not do through a dependant what it refuses to do to the
// account itself. Before, every plan (one-shot and each sweep) called
// listKeys on the account.
func TestLoopNeverReadsAnUnmanagedResourcesKeys(t *testing.T) {
	e := unmanagedStorageEnv(t)
	// A one-shot apply asks for consent and reads nothing without it.
	out := e.cliOut(ExitError, "apply", "-f", e.dir, "--yes")
	if !strings.Contains(out, "--adopt") {
		t.Fatalf("the one-shot apply did not ask for --adopt:\n%s", out)
	}
	if n := e.count("cli", "POST"); n != 0 {
		t.Fatalf("the one-shot plan called %d action(s) on a resource it may not touch", n)
	}
	_, log := e.loop(t.Context())
	e.waitFor("the account is reported as needing adoption", 20*time.Second, log, func(st *reconcile.Status) bool {
		sa := resource(st, storageID("stloop001"))
		return sa != nil && sa.State == reconcile.StateError && strings.Contains(sa.Message, "--adopt")
	})
	mark := time.Now()
	e.waitFor("two more sweeps", 10*time.Second, log, sweptAfter(mark))
	mark = time.Now()
	e.waitFor("two more sweeps", 10*time.Second, log, sweptAfter(mark))
	if n := e.count("loop", "POST"); n != 0 {
		t.Fatalf("the loop called %d action(s) (listKeys) on the unmanaged account", n)
	}
	if body := e.get(identityID("id-k")); body["id"] != nil {
		t.Fatal("the identity was created although its key comes from an unmanaged account")
	}
	if w := e.writes("loop"); w != 0 {
		t.Fatalf("the loop wrote %d times", w)
	}
}

// TestLoopCorrectionNeverReadsAnUnmanagedResourcesKeys: a batch plans its
// resource without the account whose key it reads, so the consent the
// sweep's plan sees (the account needs adopting) never reached it: the
// correction of the identity called listKeys on an account the tool no
// longer manages and wrote its key. The action path itself now refuses.
func TestLoopCorrectionNeverReadsAnUnmanagedResourcesKeys(t *testing.T) {
	e := newLoopEnv(t)
	e.write("infra.yaml", consentManifests)
	e.cli(0, "apply", "-f", e.dir, "--yes")
	// The account leaves the tool's care (it stays in Azure).
	e.cli(0, "state", "rm", storageID("stloop001"), "--yes")
	posts := e.count("cli", "POST")
	_, log := e.loop(t.Context(), "--drift-policy", "correct")
	e.waitFor("the account is reported as needing adoption", 20*time.Second, log, func(st *reconcile.Status) bool {
		sa := resource(st, storageID("stloop001"))
		return sa != nil && sa.State == reconcile.StateError
	})
	e.setTag(identityID("id-k"), "env", "dev")
	st := e.waitFor("the correction of the identity is refused", 20*time.Second, log, func(st *reconcile.Status) bool {
		r := resource(st, identityID("id-k"))
		return r != nil && r.State == reconcile.StateError && strings.Contains(r.Message, "stloop001")
	})
	if msg := resource(st, identityID("id-k")).Message; !strings.Contains(msg, "--adopt") || !strings.Contains(msg, "listKeys") {
		t.Fatalf("the refusal does not name the action and the consent it needs: %q", msg)
	}
	if n := e.count("loop", "POST"); n != 0 {
		t.Fatalf("the loop called %d action(s) (listKeys) on the unmanaged account", n)
	}
	if got := tagOf(e.get(identityID("id-k")), "env"); got != "dev" {
		t.Fatalf("the identity was written (env = %q) with a key read from an unmanaged account", got)
	}
	if e.count("cli", "POST") != posts {
		t.Fatal("unexpected CLI calls")
	}
}

// TestApplyAdoptReadsTheAdoptedResourcesKeys: with the consent, the
// same manifests apply: the account is adopted and its key read.
func TestApplyAdoptReadsTheAdoptedResourcesKeys(t *testing.T) {
	e := unmanagedStorageEnv(t)
	e.cli(0, "apply", "-f", e.dir, "--yes", "--adopt")
	if n := e.count("cli", "POST"); n == 0 {
		t.Fatal("apply --adopt never called listKeys")
	}
	if tagOf(e.get(identityID("id-k")), "env") != "prod" {
		t.Fatal("the identity was not created")
	}
	e.cli(0, "diff", "-f", e.dir)
}

// cliOut runs one CLI command and returns stdout and stderr together.
func (e *loopEnv) cliOut(want int, args ...string) string {
	e.t.Helper()
	var out syncBuffer
	full := append([]string{"--endpoint", e.url, "--subscription", loopSub, "--state", e.state}, args...)
	code := Main(full, genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out})
	if code != want {
		e.t.Fatalf("kubectl azure %s: exit %d, want %d\n%s", strings.Join(args, " "), code, want, out.String())
	}
	return out.String()
}
