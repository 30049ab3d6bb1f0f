package reconcile

import (
	"net/http"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// TestReadShareIsInitialUntilTheFirstSweep: a term reads at the initial
// share until a sweep of the whole set completed, then at the steady one;
// a new term (init: a restart, a new leader) starts at the initial share
// again; an initial share below the steady one is raised to it.
func TestReadShareIsInitialUntilTheFirstSweep(t *testing.T) {
	st, err := state.Open(t.Context(), t.TempDir()+"/state.json", state.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	o := DefaultOptions()
	if o.InitialReadBudget != 0.5 || o.ReadBudget != 0.05 {
		t.Fatalf("defaults: initial %v, steady %v; want 0.5 and 0.05", o.InitialReadBudget, o.ReadBudget)
	}
	c, err := New(Config{Options: o, Reflector: NewReflector(&DirSource{Paths: []string{t.TempDir()}}), Store: st,
		ARM: func(http.RoundTripper, int) (apply.Client, error) { return listingClient{}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	share := func() float64 { c.setReadShare(); return c.Budget().Fraction() }
	c.init()
	if f := share(); f != 0.5 {
		t.Fatalf("share before the first sweep %v, want 0.5", f)
	}
	c.mu.Lock()
	c.swept = 1
	c.mu.Unlock()
	if f := share(); f != 0.05 {
		t.Fatalf("share after the first sweep %v, want 0.05", f)
	}
	c.init()
	if f := share(); f != 0.5 {
		t.Fatalf("share in a new term %v, want 0.5 again", f)
	}
	c.Options.InitialReadBudget, c.Options.ReadBudget = 0.1, 0.2
	if f := share(); f != 0.2 {
		t.Fatalf("initial 10%% under a steady 20%%: share %v, want 0.2", f)
	}
}

func TestValidateInitialReadBudget(t *testing.T) {
	for _, v := range []float64{0, -0.1, 1.5} {
		o := DefaultOptions()
		o.InitialReadBudget = v
		if err := o.Validate(); err == nil {
			t.Errorf("Validate accepted an initial read budget of %v", v)
		}
	}
	if _, err := ParseShare("--initial-read-budget", "0%"); err == nil {
		t.Error("ParseShare accepted 0%")
	}
}
