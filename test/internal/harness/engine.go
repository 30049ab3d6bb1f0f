package harness

import (
	"bytes"
	"context"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/apply/armclient"
	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
	"github.com/kubectl-azure/kubectl-azure/plugins"
)

// ApplyWithClient runs what `apply -f dir --yes` runs, but with ARM client
// options the CLI has no flag for (operation timeout, retries), so a test
// can bound how long the client waits on a broken ARM.
// It returns the error and the progress output (per-resource errors).
func ApplyWithClient(ctx context.Context, t testing.TB, endpoint, statePath, dir string, mutate func(*arm.Options)) (string, error) {
	t.Helper()
	o := arm.DefaultOptions()
	o.Endpoint = endpoint
	if mutate != nil {
		mutate(&o)
	}
	c, err := arm.New(o)
	if err != nil {
		t.Fatalf("arm client: %v", err)
	}
	lo := manifest.NewLoadOptions()
	lo.Filenames = []string{dir}
	lo.Subscription = Sub
	set, err := manifest.Load(ctx, lo)
	if err != nil {
		t.Fatalf("manifests: %v", err)
	}
	st, err := state.Open(ctx, statePath, state.DefaultOptions())
	if err != nil {
		t.Fatalf("state: %v", err)
	}
	defer st.Close()
	unlock, err := st.Lock(ctx, "", 0)
	if err != nil {
		t.Fatalf("lock: %v", err)
	}
	defer unlock()
	eng := &apply.Engine{Client: armclient.New(c), Store: st, Schemas: schema.Default(), Plugins: plugins.For, Options: apply.DefaultOptions()}
	var out bytes.Buffer
	prog := printer.NewProgress(&out, printer.DefaultOptions())
	eng.Progress = progressTo{prog}
	if _, err := eng.Repair(ctx); err != nil {
		return out.String(), err
	}
	prep, err := eng.Plan(ctx, set)
	if err != nil {
		return out.String(), err
	}
	_, err = eng.Execute(ctx, prep)
	_ = prog.Close()
	return out.String(), err
}

// progressTo shows the engine's events in a printer progress view.
type progressTo struct{ p printer.Progress }

func (a progressTo) Event(id, name string, s apply.Status, detail string) {
	a.p.Event(id, name, s, detail)
}
