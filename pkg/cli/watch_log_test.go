package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator/emulatortest"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
)

// TestLoopBodyLogsHideValueFromPathsChangedInAzure: at -v 8 the loop logs
// every body it reads. A tag filled from valueFrom is secret by the one
// rule wherever it is, also once someone changed it in Azure (a key
// rotated there): the run never registered that value, so only the path
// can hide it. Before, every sweep printed it in clear.
func TestLoopBodyLogsHideValueFromPathsChangedInAzure(t *testing.T) {
	const sent, rotated = "Sent-Secret-Value-4411", "Rotated-In-Azure-7723"
	t.Setenv("LOOP_TAG_SECRET", sent)
	e := newLoopEnv(t)
	e.write("infra.yaml", emulatortest.Manifests(
		emulatortest.Group("rg-loop"),
		emulatortest.Identity("id-a", "rg-loop", "tags:", "  env: prod", "  buildref:", "    valueFrom: {env: LOOP_TAG_SECRET}"),
	))
	e.cli(0, "apply", "-f", e.dir, "--yes")
	e.setTag(identityID("id-a"), "buildref", rotated)
	_, log := e.loop(t.Context(), "-v", "8", "--allow-env", "LOOP_TAG_SECRET")
	e.waitFor("the changed secret is reported as drift", 20*time.Second, log, func(st *reconcile.Status) bool {
		r := resource(st, identityID("id-a"))
		return r != nil && r.State == reconcile.StateDrifted
	})
	mark := time.Now()
	e.waitFor("another sweep", 10*time.Second, log, sweptAfter(mark))
	text := log.String()
	if !strings.Contains(text, "response body:") {
		t.Fatalf("no body was logged at -v 8:\n%s", text)
	}
	if strings.Contains(text, rotated) {
		i := strings.Index(text, rotated)
		t.Fatalf("the value Azure holds at a valueFrom path is logged in clear:\n...%s...", text[max(0, i-300):min(len(text), i+100)])
	}
	if strings.Contains(text, sent) {
		t.Fatal("the value sent is logged in clear")
	}
	if !strings.Contains(text, `"buildref":"REDACTED"`) {
		t.Fatal("the body log does not show the path hidden")
	}
	if st := e.statusNow(); strings.Contains(st.Resources[0].Message+st.Resources[1].Message, rotated) {
		t.Fatal("the status quotes the value")
	}
}
