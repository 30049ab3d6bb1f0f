package reconcile

// Rate is the reads per second the budget allows now.
func (b *Budget) Rate() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return float64(b.limiter.Limit())
}
