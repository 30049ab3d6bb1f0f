package importer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/apply/armclient"
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

// loadYAMLEnv loads manifests with env as the environment (the secrets a
// user exports for an import's placeholders).
func loadYAMLEnv(t testing.TB, data []byte, env map[string]string) *manifest.Set {
	t.Helper()
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	set, err := manifest.Load(context.Background(), manifest.LoadOptions{Filenames: []string{"-"}, Stdin: bytes.NewReader(data), Subscription: testSub, LookupEnv: lookup})
	if err != nil {
		t.Fatalf("emitted manifests do not load: %v\n%s", err, data)
	}
	return set
}

// planSet plans manifests with the apply engine against st.
func planSet(t testing.TB, c *arm.Client, st state.Store, set *manifest.Set) *plan.Plan {
	t.Helper()
	eng := &apply.Engine{Client: armclient.New(c), Store: st, Schemas: schema.Default(), Plugins: plugins.For, Options: apply.DefaultOptions()}
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

// memStore is an in-memory state.Store for the corpus test, which plans
// thousands of resources: the local backend's fsyncs would dominate its
// run time. Records go through JSON as in every real backend, so numbers
// and nesting come back exactly as a backend would return them.
type memStore struct {
	mu   sync.Mutex
	recs map[string][]byte
	key  []byte
}

func newMemStore() *memStore {
	return &memStore{recs: map[string][]byte{}, key: []byte("corpus-test-key-0123456789abcdef")}
}

func (m *memStore) Lock(context.Context, string, time.Duration) (func() error, error) {
	return func() error { return nil }, nil
}

func (m *memStore) Get(_ context.Context, id string) (*state.Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.recs[strings.ToLower(id)]
	if !ok {
		return nil, state.ErrNotFound
	}
	var r state.Record
	return &r, json.Unmarshal(b, &r)
}

func (m *memStore) Put(_ context.Context, r *state.Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs[strings.ToLower(r.ID)] = b
	return nil
}

func (m *memStore) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.recs, strings.ToLower(id))
	return nil
}

func (m *memStore) List(ctx context.Context) ([]*state.Record, error) {
	m.mu.Lock()
	keys := make([]string, 0, len(m.recs))
	for k := range m.recs {
		keys = append(keys, k)
	}
	m.mu.Unlock()
	sort.Strings(keys)
	var out []*state.Record
	for _, k := range keys {
		r, err := m.Get(ctx, k)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (m *memStore) BeginIntent(context.Context, state.Intent) error { return nil }
func (m *memStore) CommitIntent(context.Context, string) error      { return nil }
func (m *memStore) Intents(context.Context) ([]state.Intent, error) { return nil, nil }
func (m *memStore) SecretKey(context.Context) ([]byte, error)       { return m.key, nil }
func (m *memStore) Close() error                                    { return nil }
