package emulator

import (
	"math/rand"
	"net"
	"net/http"
	"sort"
	"sync"
	"time"
)

// chaos draws latency and faults from one seeded source so a run can be
// reproduced with Options.Seed.
type chaos struct {
	mu   sync.Mutex
	rnd  *rand.Rand
	opts *Options
}

func newChaos(o *Options) *chaos {
	seed := o.Seed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	return &chaos{rnd: rand.New(rand.NewSource(seed)), opts: o}
}

func (c *chaos) float() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rnd.Float64()
}

// delay returns the latency to add to a request: uniform in [0.5, 1.5] × the
// method's mean, so the mean is what the flag says.
func (c *chaos) delay(method string) time.Duration {
	mean := c.opts.Latency
	if d, ok := c.opts.LatencyByMethod[method]; ok {
		mean = d
	}
	if mean <= 0 {
		return 0
	}
	return time.Duration(float64(mean) * (0.5 + c.float()))
}

// fault picks at most one injected fault for a request: a status code, or
// reset == true. Status codes are tried in ascending order so that the draw
// is stable for a given seed.
func (c *chaos) fault() (status int, reset bool) {
	f := c.opts.Faults
	if f.Reset > 0 && c.float() < f.Reset {
		return 0, true
	}
	codes := make([]int, 0, len(f.Status))
	for code := range f.Status {
		codes = append(codes, code)
	}
	sort.Ints(codes)
	for _, code := range codes {
		if c.float() < f.Status[code] {
			return code, false
		}
	}
	return 0, false
}

func (c *chaos) lroFails() bool {
	return c.opts.Faults.LROFailure > 0 && c.float() < c.opts.Faults.LROFailure
}

func (c *chaos) lroLost() bool {
	return c.opts.Faults.LostOperation > 0 && c.float() < c.opts.Faults.LostOperation
}

// resetConnection closes the client's TCP connection with RST, which is what
// a client sees when a load balancer drops it.
func resetConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		// HTTP/2 cannot be hijacked; abort the stream instead.
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

func faultError(status int) *armError {
	switch status {
	case http.StatusServiceUnavailable:
		return newError(status, "ServiceUnavailable", "The service is temporarily unavailable (injected by the emulator). Retry the request.")
	case http.StatusInternalServerError:
		return newError(status, "InternalServerError", "An internal server error occurred (injected by the emulator). Retry the request.")
	case http.StatusTooManyRequests:
		return newError(status, "TooManyRequests", "Too many requests (injected by the emulator). Retry after the Retry-After interval.")
	}
	return newError(status, http.StatusText(status), "Fault injected by the emulator.")
}
