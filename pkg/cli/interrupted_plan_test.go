package cli_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// TestInterruptedWriteIsNotAdopt: a write whose run died before it was
// recorded (kill -9) is journaled; a read-only plan must not tell the user
// it is adopted only with --adopt, since plain apply settles it first.
func TestInterruptedWriteIsNotAdopt(t *testing.T) {
	e := newEnv(t, nil)
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	sa := rg("rg-demo") + "/providers/Microsoft.Storage/storageAccounts/stdemo001"

	// What a run killed between the PUT and its record leaves behind.
	ctx := context.Background()
	st, err := state.Open(ctx, e.state, state.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	rec, err := st.Get(ctx, sa)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Delete(ctx, sa); err != nil {
		t.Fatal(err)
	}
	in := state.Intent{ID: rec.ID, Op: state.OpPut, Type: rec.Type, APIVersion: rec.APIVersion, Started: time.Now(), Record: rec}
	if err := st.BeginIntent(ctx, in); err != nil {
		t.Fatal(err)
	}
	st.Close()

	for _, args := range [][]string{{"diff", "-f", e.dir}, {"apply", "-f", e.dir, "--dry-run"}} {
		out, errOut, _ := e.run(args...)
		if strings.Contains(out, "--adopt") || !strings.Contains(out, "an interrupted write: apply settles it") ||
			!strings.Contains(out, "0 to adopt; 1 interrupted write that apply settles") {
			t.Errorf("%v:\n%s%s", args, out, errOut)
		}
	}
	out, errOut, code := e.run("diff", "-f", e.dir, "-o", "json")
	if strings.Contains(out, "only with --adopt") || !strings.Contains(out, "an interrupted write: apply settles it") {
		t.Errorf("diff -o json: exit %d\n%s%s", code, out, errOut)
	}
	// Plain apply settles it, and the next plan is quiet.
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	e.mustRun(0, "diff", "-f", e.dir)
}
