package cli

import (
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator/emulatortest"
)

// TestOneShotBodyLogsHideValueFromPathsChangedInAzure: at -v 8, diff and
// apply log every body they read and write. A tag filled from valueFrom is
// secret by the one rule wherever it is, also once someone changed it in
// Azure: the run never registered that value, so only its path can hide
// it. Before, the one-shot commands gave the client no paths and printed
// it in clear (the loop already did).
func TestOneShotBodyLogsHideValueFromPathsChangedInAzure(t *testing.T) {
	const sent, rotated = "Sent-Secret-Value-5512", "Rotated-In-Azure-8834"
	t.Setenv("ONESHOT_TAG_SECRET", sent)
	e := newLoopEnv(t)
	e.write("infra.yaml", emulatortest.Manifests(
		emulatortest.Group("rg-loop"),
		emulatortest.Identity("id-a", "rg-loop", "tags:", "  env: prod", "  buildref:", "    valueFrom: {env: ONESHOT_TAG_SECRET}"),
	))
	e.cli(0, "apply", "-f", e.dir, "--yes")
	for _, args := range [][]string{{"diff"}, {"apply", "--yes"}} {
		e.setTag(identityID("id-a"), "buildref", rotated)
		want := ExitChanges
		if args[0] == "apply" {
			want = ExitOK
		}
		text := e.cliOut(want, append(args, "-f", e.dir, "-v", "8")...)
		assertBodyLogHides(t, args[0], text, `"buildref":"REDACTED"`, sent, rotated)
	}
}

// TestOneShotBodyLogsHideSchemaSecretPaths: a property the schema marks
// secret under a name that says nothing (an Event Grid webhook's
// endpointUrl, whose query carries a key) is hidden in the -v 8 log of
// the request body that writes it.
func TestOneShotBodyLogsHideSchemaSecretPaths(t *testing.T) {
	const sent = "hook-5531.example.net"
	e := newLoopEnv(t)
	const api = "2025-02-15"
	e.write("infra.yaml", emulatortest.Manifests(
		emulatortest.Group("rg-loop"),
		emulatortest.Doc{Name: "tp-a", Type: "Microsoft.EventGrid/topics@" + api, Place: "resourceGroup: rg-loop", Body: []string{"location: westeurope"}},
		emulatortest.Doc{Name: "sub-a", Type: "Microsoft.EventGrid/topics/eventSubscriptions@" + api, Place: "parent: tp-a",
			Body: []string{"properties:", "  destination:", "    endpointType: WebHook", "    properties: {endpointUrl: https://" + sent + "/hook}"}},
	))
	text := e.cliOut(ExitOK, "apply", "-f", e.dir, "--yes", "-v", "8")
	if !strings.Contains(text, "request body:") {
		t.Fatalf("no request body was logged at -v 8:\n%s", text)
	}
	assertBodyLogHides(t, "apply", text, `"endpointUrl":"REDACTED"`, sent)
}

// assertBodyLogHides fails when a -v 8 log shows no body, shows one of
// values, or does not show the path hidden (hidden).
func assertBodyLogHides(t *testing.T, cmd, text, hidden string, values ...string) {
	t.Helper()
	if !strings.Contains(text, "response body:") {
		t.Fatalf("%s: no body was logged at -v 8:\n%s", cmd, text)
	}
	for _, v := range values {
		if i := strings.Index(text, v); i >= 0 {
			t.Errorf("%s: %q is logged in clear:\n...%s...", cmd, v, text[max(0, i-300):min(len(text), i+100)])
		}
	}
	if !strings.Contains(text, hidden) {
		t.Errorf("%s: the body log does not show %s", cmd, hidden)
	}
}
