package emulator

import "sync"

// Stats counts ARM requests as GET /_emulator/stats reports them. Admin
// and token requests are not counted; LRO status polls are counted under
// "POLL", not "GET".
type Stats struct {
	Requests  map[string]int64 `json:"requests"`
	Throttled int64            `json:"throttled"`
	Faults    int64            `json:"faults"`
}

type statsCounter struct {
	mu        sync.Mutex
	requests  map[string]int64
	throttled int64
	faults    int64
}

func newStatsCounter() *statsCounter {
	c := &statsCounter{}
	c.reset()
	return c
}

func (c *statsCounter) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	// The five methods are always present so callers can read them without
	// checking for absence.
	c.requests = map[string]int64{"GET": 0, "PUT": 0, "PATCH": 0, "DELETE": 0, "POST": 0, "POLL": 0}
	c.throttled, c.faults = 0, 0
}

func (c *statsCounter) request(method string) {
	c.mu.Lock()
	c.requests[method]++
	c.mu.Unlock()
}

func (c *statsCounter) throttle() {
	c.mu.Lock()
	c.throttled++
	c.mu.Unlock()
}

func (c *statsCounter) fault() {
	c.mu.Lock()
	c.faults++
	c.mu.Unlock()
}

func (c *statsCounter) snapshot() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := Stats{Requests: map[string]int64{}, Throttled: c.throttled, Faults: c.faults}
	for k, v := range c.requests {
		s.Requests[k] = v
	}
	return s
}
