package state

// writeFaults makes every state-file rewrite and journal append of s call
// fault first and fail with its error: how the tests show that a failed
// write fails only its own changes. Set before the store is used.
func (s *localStore) writeFaults(fault func() error) {
	s.snap.fault, s.jnl.fault = fault, fault
}

// writeStatsOf reads the write statistics of a local store.
func writeStatsOf(st Store) WriteStats { return st.(WriteCounter).WriteStats() }
