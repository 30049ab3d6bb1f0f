package reconcile

import "sync"

// Tracker is the worker/observer lock. A worker marks a resource busy for
// as long as it writes it; every begin and end bumps the resource's
// generation. The observer notes the generations before it reads and
// throws away what it read of a resource that was busy at any time since:
// judging a body the worker was changing would enqueue the worker's own
// write as drift, and the two would fight.
type Tracker struct {
	mu   sync.Mutex
	gen  map[string]uint64
	busy map[string]bool
}

// NewTracker returns an empty tracker.
func NewTracker() *Tracker {
	return &Tracker{gen: map[string]uint64{}, busy: map[string]bool{}}
}

// Begin marks key busy; the returned function ends it.
func (t *Tracker) Begin(key string) (end func()) {
	t.mu.Lock()
	t.gen[key]++
	t.busy[key] = true
	t.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			t.mu.Lock()
			t.gen[key]++
			delete(t.busy, key)
			t.mu.Unlock()
		})
	}
}

// Mark is a generation snapshot taken before an observation.
type Mark map[string]uint64

// Mark snapshots every generation.
func (t *Tracker) Mark() Mark {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := make(Mark, len(t.gen))
	for k, v := range t.gen {
		m[k] = v
	}
	return m
}

// Stale reports whether key was written (or is being written) since m.
func (t *Tracker) Stale(m Mark, key string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.busy[key] || t.gen[key] != m[key]
}
