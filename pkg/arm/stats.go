package arm

import (
	"net/http"
	"sync"
	"time"
)

// Stats counts what a Client sent. Benchmarks and the apply summary use it.
type Stats struct {
	// Calls is logical requests (one per Get/Put/... and per LRO poll),
	// before retries.
	Calls int64
	// Polls is the subset of Calls issued by the LRO loop.
	Polls int64
	// Requests is HTTP attempts by method, retries included.
	Requests map[string]int64
	// Retries is attempts beyond the first of each call.
	Retries int64
	// Throttled counts 429 responses; ServerErrors 5xx responses;
	// TransportErrors attempts that got no response (resets, timeouts).
	Throttled       int64
	ServerErrors    int64
	TransportErrors int64
	// PacingWait is the total time requests waited for the pacer's
	// modelled bucket; PacingWaits how many requests waited at all.
	PacingWait  time.Duration
	PacingWaits int64
}

type statsCollector struct {
	mu sync.Mutex
	s  Stats
}

func newStatsCollector() *statsCollector {
	return &statsCollector{s: Stats{Requests: map[string]int64{}}}
}

func (sc *statsCollector) call(poll bool) {
	sc.mu.Lock()
	sc.s.Calls++
	if poll {
		sc.s.Polls++
	}
	sc.mu.Unlock()
}

func (sc *statsCollector) attempt(method string, attempt int32, resp *http.Response, err error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.s.Requests[method]++
	if attempt > 1 {
		sc.s.Retries++
	}
	switch {
	case resp == nil && err != nil && !isCtxErr(err):
		sc.s.TransportErrors++
	case resp != nil && resp.StatusCode == http.StatusTooManyRequests:
		sc.s.Throttled++
	case resp != nil && resp.StatusCode >= 500:
		sc.s.ServerErrors++
	}
}

func (sc *statsCollector) waited(d time.Duration) {
	sc.mu.Lock()
	sc.s.PacingWait += d
	sc.s.PacingWaits++
	sc.mu.Unlock()
}

// Stats returns a snapshot of the counters.
func (c *Client) Stats() Stats {
	c.stats.mu.Lock()
	defer c.stats.mu.Unlock()
	s := c.stats.s
	s.Requests = make(map[string]int64, len(c.stats.s.Requests))
	for k, v := range c.stats.s.Requests {
		s.Requests[k] = v
	}
	return s
}
