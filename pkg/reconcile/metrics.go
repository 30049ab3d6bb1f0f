package reconcile

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the loop's Prometheus metrics, all named kubectl_azure_*.
type Metrics struct {
	Registry *prometheus.Registry

	managed       prometheus.Gauge
	states        *prometheus.GaugeVec
	driftDetected *prometheus.CounterVec
	driftFixed    *prometheus.CounterVec
	applied       *prometheus.CounterVec
	requests      *prometheus.CounterVec
	writes        *prometheus.CounterVec
	sweeps        prometheus.Counter
	sweepSeconds  prometheus.Histogram
	sourceValid   prometheus.Gauge
	leader        prometheus.Gauge
	discarded     prometheus.Counter

	mu         sync.Mutex
	lastSweep  time.Time // start of the newest complete sweep
	reads      []time.Time
	bucketSize func() (size, remaining float64)
	now        func() time.Time
}

// readWindow is how far back the used share of the read refill is measured.
const readWindow = time.Minute

// NewMetrics registers the metrics on a new registry.
func NewMetrics() *Metrics {
	m := &Metrics{Registry: prometheus.NewRegistry(), now: time.Now}
	f := promauto(m.Registry)
	m.managed = f.gauge("kubectl_azure_managed_resources", "Resources of the manifest set being observed.")
	m.states = f.gaugeVec("kubectl_azure_resources", "Resources by state (in-sync, drifted, correcting, contested, unconvergeable, error).", "state")
	m.driftDetected = f.counterVec("kubectl_azure_drift_detected_total", "Drift confirmed by a GET, by cause (drift: a path changed in Azure) and kind of change (add, remove, change).", "cause", "kind")
	m.driftFixed = f.counterVec("kubectl_azure_drift_corrected_total", "Drifted paths written back, by cause and kind of change.", "cause", "kind")
	m.applied = f.counterVec("kubectl_azure_manifest_changes_applied_total", "Manifest changes written, by cause (user, removal, default-reset).", "cause")
	m.requests = f.counterVec("kubectl_azure_arm_requests_total", "ARM requests by class (read, write, delete) and HTTP status code (0: no response).", "class", "code")
	m.writes = f.counterVec("kubectl_azure_writes_total", "Resources written by the workers, by result (done, failed).", "result")
	m.sweeps = f.counter("kubectl_azure_sweeps_total", "Completed observation sweeps.")
	m.sweepSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "kubectl_azure_sweep_duration_seconds", Help: "Duration of an observation sweep.", Buckets: prometheus.ExponentialBuckets(0.05, 2, 14)})
	m.Registry.MustRegister(m.sweepSeconds)
	m.sourceValid = f.gauge("kubectl_azure_source_valid", "1 when the newest manifest set loaded; 0 while a refused set is kept out (the last good one is observed).")
	m.leader = f.gauge("kubectl_azure_leader", "1 while this replica leads (always 1 without leader election).")
	m.discarded = f.counter("kubectl_azure_observations_discarded_total", "Observations thrown away because the resource was written while it was read.")
	m.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "kubectl_azure_observation_age_seconds", Help: "Age of the newest complete observation of the set (from the start of its sweep)."}, func() float64 {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.lastSweep.IsZero() {
			return 0
		}
		return m.now().Sub(m.lastSweep).Seconds()
	}))
	m.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "kubectl_azure_read_budget_used_ratio", Help: "Observer reads per second over the last minute as a share of ARM's measured read refill."}, m.budgetUsed))
	m.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "kubectl_azure_read_bucket_remaining", Help: "x-ms-ratelimit-remaining-subscription-reads last seen (-1: not seen yet)."}, func() float64 {
		m.mu.Lock()
		bs := m.bucketSize
		m.mu.Unlock()
		if bs == nil {
			return -1
		}
		_, rem := bs()
		return rem
	}))
	m.leader.Set(1)
	return m
}

type factory struct{ r *prometheus.Registry }

func promauto(r *prometheus.Registry) factory { return factory{r} }

func (f factory) gauge(name, help string) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
	f.r.MustRegister(g)
	return g
}

func (f factory) counter(name, help string) prometheus.Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
	f.r.MustRegister(c)
	return c
}

func (f factory) gaugeVec(name, help string, labels ...string) *prometheus.GaugeVec {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	f.r.MustRegister(g)
	return g
}

func (f factory) counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	f.r.MustRegister(c)
	return c
}

// Request counts one ARM response; it is the Budget's observe function.
func (m *Metrics) Request(method string, code int) {
	class := "write"
	switch method {
	case http.MethodGet, http.MethodHead:
		class = "read"
	case http.MethodDelete:
		class = "delete"
	}
	m.requests.WithLabelValues(class, strconv.Itoa(code)).Inc()
}

// ObserverRead notes one read the observer sent, for the budget ratio.
func (m *Metrics) ObserverRead(method string, _ int) {
	if !isRead(method) {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.reads = append(m.reads, now)
	m.trim(now)
}

func (m *Metrics) trim(now time.Time) {
	i := 0
	for i < len(m.reads) && now.Sub(m.reads[i]) > readWindow {
		i++
	}
	m.reads = m.reads[i:]
}

func (m *Metrics) budgetUsed() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.trim(m.now())
	size := float64(defaultReadBucket)
	if m.bucketSize != nil {
		size, _ = m.bucketSize()
	}
	return float64(len(m.reads)) / readWindow.Seconds() / (size * refillPerSize)
}

// SetBudget lets the metrics read the measured bucket.
func (m *Metrics) SetBudget(b *Budget) {
	m.mu.Lock()
	m.bucketSize = b.Measured
	m.mu.Unlock()
}

// SetLeader reports whether this replica leads.
func (m *Metrics) SetLeader(on bool) {
	if on {
		m.leader.Set(1)
	} else {
		m.leader.Set(0)
	}
}

func (m *Metrics) sweepDone(start time.Time) {
	m.mu.Lock()
	m.lastSweep = start
	m.mu.Unlock()
	m.sweeps.Inc()
	m.sweepSeconds.Observe(m.now().Sub(start).Seconds())
}

// Health is what /healthz and /readyz answer.
type Health interface {
	// Ready is nil once a manifest set loaded and a sweep completed (or
	// this replica waits for leadership).
	Ready() error
}

// Serve serves /metrics, /healthz and /readyz on addr until ctx ends. The
// returned address is the one bound (addr may end in :0).
func Serve(ctx context.Context, addr string, m *Metrics, h Health) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if err := h.Ready(); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err // the listener closed under us: nothing to report to
		}
	}()
	return ln.Addr().String(), nil
}
