package emulator

import "sync"

// Stats counts ARM requests as GET /_emulator/stats reports them. Admin
// and token requests are not counted; LRO status polls are counted under
// "POLL", not "GET". ByClient splits the same counts by the request's
// User-Agent header, so a test can tell one client's traffic from
// another's (a controller's writes from a simulated person's).
type Stats struct {
	Requests  map[string]int64            `json:"requests"`
	Throttled int64                       `json:"throttled"`
	Faults    int64                       `json:"faults"`
	ByClient  map[string]map[string]int64 `json:"byClient"`
}

type statsCounter struct {
	mu        sync.Mutex
	requests  map[string]int64
	byClient  map[string]map[string]int64
	throttled int64
	faults    int64
}

// maxClients bounds ByClient: a client that sends a new User-Agent on every
// request must not grow the emulator's memory without limit. Later agents
// are counted under otherClients.
const (
	maxClients   = 1000
	otherClients = "(other)"
)

// newMethodCounts returns the six counters, always present so callers can
// read them without checking for absence.
func newMethodCounts() map[string]int64 {
	return map[string]int64{"GET": 0, "PUT": 0, "PATCH": 0, "DELETE": 0, "POST": 0, "POLL": 0}
}

func newStatsCounter() *statsCounter {
	c := &statsCounter{}
	c.reset()
	return c
}

func (c *statsCounter) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests = newMethodCounts()
	c.byClient = map[string]map[string]int64{}
	c.throttled, c.faults = 0, 0
}

// request counts one request of method (or "POLL") sent by userAgent.
func (c *statsCounter) request(method, userAgent string) {
	c.mu.Lock()
	c.requests[method]++
	m := c.byClient[userAgent]
	if m == nil {
		if len(c.byClient) >= maxClients {
			userAgent = otherClients
			m = c.byClient[userAgent]
		}
		if m == nil {
			m = newMethodCounts()
			c.byClient[userAgent] = m
		}
	}
	m[method]++
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
	s := Stats{Requests: map[string]int64{}, Throttled: c.throttled, Faults: c.faults, ByClient: map[string]map[string]int64{}}
	for k, v := range c.requests {
		s.Requests[k] = v
	}
	for ua, m := range c.byClient {
		cp := make(map[string]int64, len(m))
		for k, v := range m {
			cp[k] = v
		}
		s.ByClient[ua] = cp
	}
	return s
}
