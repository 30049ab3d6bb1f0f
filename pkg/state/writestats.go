package state

import "sync/atomic"

// WriteStats is what a local store wrote to disk since it was opened: full
// rewrites of the state file and appends to its journal, each synced.
// Issue-sized runs are judged by it (bytes written against the final
// state's size), and it shows what a run cost the disk.
type WriteStats struct {
	Snapshots, SnapshotBytes int64
	Appends, AppendBytes     int64
}

// WriteCounter is implemented by stores that write local files.
type WriteCounter interface {
	WriteStats() WriteStats
}

// writeCount counts one kind of synced write.
type writeCount struct {
	n, bytes atomic.Int64
}

func (c *writeCount) add(bytes int) {
	c.n.Add(1)
	c.bytes.Add(int64(bytes))
}

// WriteStats reports the writes of this store so far.
func (s *localStore) WriteStats() WriteStats {
	return WriteStats{
		Snapshots: s.snap.count.n.Load(), SnapshotBytes: s.snap.count.bytes.Load(),
		Appends: s.jnl.count.n.Load(), AppendBytes: s.jnl.count.bytes.Load(),
	}
}
