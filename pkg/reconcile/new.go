package reconcile

// New is the one way the loop is put together, for `apply --watch`,
// `controller` and the tests alike: the observer's client behind the read
// budget, the workers' behind a request counter, both feeding the same
// metrics. A front end differs only in what it passes in.

import (
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// observerConcurrency bounds the observer's requests in flight: its budget,
// not parallelism, paces it, and few requests keep the ARM client's pacer
// model exact.
const observerConcurrency = 4

// Config is what New needs.
type Config struct {
	Options Options
	// Reflector is the loop's manifest source (NewReflector(src)).
	Reflector *Reflector
	Store     state.Store
	// ARM builds an ARM client sending through rt with at most
	// concurrency requests in flight (0: the client's own default).
	ARM func(rt http.RoundTripper, concurrency int) (apply.Client, error)
	// Transport is the base transport under the budget and the counter
	// (nil: http.DefaultTransport).
	Transport  http.RoundTripper
	Schemas    apply.SchemaSource
	Plugins    func(typ string) diff.Plugin
	Engine     apply.Options
	PlanSource apply.Source
	Log        io.Writer
	Events     func(Event)
	Secrets    *secret.Registry
	Now        func() time.Time
}

// New builds the loop; Run it (or RunElected).
func New(cfg Config) (*Controller, error) {
	if cfg.Reflector == nil || cfg.Store == nil || cfg.ARM == nil {
		return nil, errors.New("reconcile.New: Reflector, Store and ARM are required")
	}
	metrics := NewMetrics()
	budget := NewBudget(cfg.Transport, cfg.Options.ReadBudget, func(method string, code int) {
		metrics.Request(method, code)
		metrics.ObserverRead(method, code)
	})
	metrics.SetBudget(budget)
	observe, err := cfg.ARM(budget, observerConcurrency)
	if err != nil {
		return nil, err
	}
	write, err := cfg.ARM(NewCounter(cfg.Transport, metrics.Request), 0)
	if err != nil {
		return nil, err
	}
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	return &Controller{Options: cfg.Options, Reflector: cfg.Reflector, Store: cfg.Store, ObserveARM: observe, WriteARM: write,
		Schemas: cfg.Schemas, Plugins: cfg.Plugins, Engine: cfg.Engine, PlanSource: cfg.PlanSource, Metrics: metrics,
		Log: log, Events: cfg.Events, Secrets: cfg.Secrets, Now: cfg.Now, budget: budget}, nil
}

// Budget is the observer's read budget (nil for a Controller not made by New).
func (c *Controller) Budget() *Budget { return c.budget }
