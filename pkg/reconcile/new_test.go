package reconcile

import (
	"net/http"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// TestNewWiresTheClients: New gives the observer a client behind the read
// budget with few requests in flight and the workers one behind the
// request counter, and refuses a Config without its parts.
func TestNewWiresTheClients(t *testing.T) {
	st, err := state.Open(t.Context(), t.TempDir()+"/state.json", state.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	type call struct {
		rt          http.RoundTripper
		concurrency int
	}
	var calls []call
	cfg := Config{Options: DefaultOptions(), Reflector: NewReflector(&DirSource{Paths: []string{t.TempDir()}}), Store: st,
		ARM: func(rt http.RoundTripper, n int) (apply.Client, error) {
			calls = append(calls, call{rt, n})
			return listingClient{}, nil
		}}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 {
		t.Fatalf("%d clients built, want 2", len(calls))
	}
	if b, ok := calls[0].rt.(*Budget); !ok || b != c.Budget() || calls[0].concurrency != observerConcurrency {
		t.Errorf("the observer's client: %T, %d in flight", calls[0].rt, calls[0].concurrency)
	}
	if _, ok := calls[1].rt.(*Counter); !ok || calls[1].concurrency != 0 {
		t.Errorf("the workers' client: %T, %d in flight", calls[1].rt, calls[1].concurrency)
	}
	if c.Metrics == nil || c.Log == nil {
		t.Error("New left the metrics or the log unset")
	}
	cfg.ARM = nil
	if _, err := New(cfg); err == nil {
		t.Error("New accepted a Config without ARM")
	}
}
