//go:build linux

package cli_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/internal/ptytest"
	"github.com/kubectl-azure/kubectl-azure/pkg/cli"
)

// TestStateRmAsksOnATerminal: on a terminal, state rm names what it would
// forget and forgets it only after "yes".
func TestStateRmAsksOnATerminal(t *testing.T) {
	e := newEnv(t, nil)
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	rm := func(answer string) (string, string, int) {
		master, tty := ptytest.Open(t, 100, 40)
		go io.Copy(io.Discard, master) // the terminal's echo
		if _, err := master.Write([]byte(answer + "\n")); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		code := cli.Main([]string{"--endpoint", e.srv.URL(), "--subscription", testSub, "--state", e.state, "state", "rm", "storageAccounts/stdemo001"},
			genericiooptions.IOStreams{In: tty, Out: &out, ErrOut: &errOut})
		return out.String(), errOut.String(), code
	}
	out, errOut, code := rm("no")
	if code == 0 || !strings.Contains(errOut, "Microsoft.Storage/storageAccounts/stdemo001") || !strings.Contains(errOut, "Cancelled") {
		t.Errorf("answering no: exit %d\n%s%s", code, out, errOut)
	}
	e.mustRun(0, "state", "show", "storageAccounts/stdemo001")
	out, errOut, code = rm("yes")
	if code != 0 || !strings.Contains(out, "stdemo001 forgotten") {
		t.Errorf("answering yes: exit %d\n%s%s", code, out, errOut)
	}
	if _, _, code := e.run("state", "show", "storageAccounts/stdemo001"); code != 2 {
		t.Errorf("still recorded after yes (exit %d)", code)
	}
}
