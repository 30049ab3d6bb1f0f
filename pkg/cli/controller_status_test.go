package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
)

func TestStatusCommand(t *testing.T) {
	path := filepath.Join(t.TempDir(), "status.json")
	now := time.Now().UTC()
	st := &reconcile.Status{ObservedAt: now, Policy: "detect", Resources: []reconcile.ResourceStatus{
		{ID: identityID("id-a"), State: reconcile.StateDrifted, LastObserved: now,
			Changes: []plan.Change{{Path: "tags.owner", Before: "someone", After: "platform", Cause: plan.CauseDrift}},
			Message: "changed in Azure outside this tool"},
		{ID: identityID("id-b"), State: reconcile.StateInSync, LastObserved: now},
	}}
	if err := reconcile.WriteStatus(path, st); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, int) {
		var out bytes.Buffer
		streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out}
		g := DefaultGlobalOptions()
		root := newRootCommand(g, streams)
		root.AddCommand(newStatusCommand(g, streams))
		root.SetArgs(args)
		code := exitCode(root.ExecuteContext(t.Context()))
		return out.String(), code
	}
	out, code := run("status", "--status-file", path)
	if code != ExitChanges {
		t.Fatalf("a drifted resource: exit %d, want %d\n%s", code, ExitChanges, out)
	}
	for _, want := range []string{"userAssignedIdentities/id-a", "drifted", "tags.owner", "in-sync"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, code = run("status", "--status-file", path, "-o", "json")
	var back reconcile.Status
	if err := json.Unmarshal([]byte(out), &back); err != nil || code != ExitChanges || len(back.Resources) != 2 {
		t.Fatalf("-o json: exit %d, %v\n%s", code, err, out)
	}
	st.Resources = st.Resources[1:]
	if err := reconcile.WriteStatus(path, st); err != nil {
		t.Fatal(err)
	}
	if out, code = run("status", "--status-file", path); code != 0 {
		t.Fatalf("all in sync: exit %d\n%s", code, out)
	}
	if _, code = run("status"); code != ExitValidation {
		t.Fatalf("no --status-file: exit %d, want %d", code, ExitValidation)
	}
}
