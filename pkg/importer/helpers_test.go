package importer_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
	"github.com/kubectl-azure/kubectl-azure/pkg/importer"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
	"github.com/kubectl-azure/kubectl-azure/plugins"
)

const testSub = "00000000-0000-0000-0000-000000000000"

// startEmulator runs an in-process ARM emulator; throttle=false turns off
// its token buckets (for tests that measure correctness, not time).
func startEmulator(t testing.TB, throttle bool) *emulator.Server {
	t.Helper()
	o := emulator.DefaultOptions()
	o.Throttle.Enabled = throttle
	srv, err := emulator.Start(o)
	if err != nil {
		t.Fatalf("starting the emulator: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// armClient talks to the emulator; pacing=false turns off the client's
// own token-bucket model, which would otherwise pace a correctness test
// at ARM's real read rate.
func armClient(t testing.TB, url string, pacing bool) *arm.Client {
	t.Helper()
	o := arm.DefaultOptions()
	o.Endpoint = url
	o.Pacing = pacing
	c, err := arm.New(o)
	if err != nil {
		t.Fatalf("arm client: %v", err)
	}
	return c
}

func openStore(t testing.TB) state.Store {
	t.Helper()
	st, err := state.Open(context.Background(), filepath.Join(t.TempDir(), "state.json"), state.DefaultOptions())
	if err != nil {
		t.Fatalf("opening state: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func newImporter(c *arm.Client, o importer.Options) *importer.Importer {
	return &importer.Importer{ARM: c, Schemas: schema.Default(), Plugins: plugins.For, Options: o}
}

// loadYAML loads manifests the way diff -f does.
func loadYAML(t testing.TB, data []byte) *manifest.Set {
	t.Helper()
	set, err := manifest.Load(context.Background(), manifest.LoadOptions{Filenames: []string{"-"}, Stdin: bytes.NewReader(data), Subscription: testSub})
	if err != nil {
		t.Fatalf("emitted manifests do not load: %v\n%s", err, data)
	}
	return set
}

// planSet plans manifests with the apply engine against st.
func planSet(t testing.TB, c *arm.Client, st state.Store, set *manifest.Set) *plan.Plan {
	t.Helper()
	eng := &apply.Engine{ARM: c, Store: st, Schemas: schema.Default(), Plugins: plugins.For, Options: apply.DefaultOptions()}
	prep, err := eng.Plan(context.Background(), set)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	return prep.Plan
}

func yamlOf(t testing.TB, res *importer.Result) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := res.WriteYAML(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func describeChanges(cs []plan.Change) string {
	var b strings.Builder
	for i, c := range cs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(c.Path + " (" + c.Reason + ")")
	}
	return b.String()
}
