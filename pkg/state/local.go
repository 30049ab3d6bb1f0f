package state

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gofrs/flock"
)

// localStore is the file backend's state manager. It composes the parts,
// each in its own file: the file format (localfile.go), the atomic replace
// with backup (atomicfile.go), the journal (journal.go) and the lock
// (filelock.go); here they are put together into group commit. Files, all
// mode 0600, beside the state:
//
//	state.json         the state, replaced atomically
//	state.json.backup  the state as it was before the current run's first write
//	state.json.lock    flock(2) target; never deleted (deleting a locked file races)
//	state.json.holder  who holds the lock, for the waiting run's message
//	state.json.key     the HMAC key, apart so state.json can be shared without it
//	state.json.journal changes since state.json was last written (see journal.go)
type localStore struct {
	path, keyPath string
	opts          Options
	lock          fileLock

	mu    sync.Mutex // guards the fields below and serialises writes in this process
	fl    *flock.Flock
	held  bool     // the run lock is held through Lock
	memo  readMemo // the last read without the lock, see loadShared
	snap  snapshotFile
	cache *localFile // the file as last read or written, valid while held
	key   []byte

	// Group commit while held: every change to cache gets a sequence
	// number and a journal entry; one goroutine at a time (flushMu) appends
	// the entries waiting and syncs the journal once for all of them, and
	// the whole file is rewritten only once the journal has outgrown it
	// (see flushTo) and at unlock. Parallel workers thus share one fsync
	// per batch instead of rewriting the whole file once each.
	flushMu   sync.Mutex // taken before mu, never after
	seq       int64      // last change applied to cache
	attempted int64      // last change included in a write attempt
	failed    []seqRange // changes whose write failed
	pending   []jentry   // changes after attempted, in order
	snapSeq   int64      // last change included in the file on disk

	// Guarded by flushMu while held (set up by Lock before held is set).
	jnl      journalFile
	onDisk   bool      // state.json exists with our content
	diskSer  int64     // serial of state.json on disk: the journal's base
	lastSnap time.Time // when state.json was last written
	snapSize int64     // its size then
	needSnap bool      // next flush must rewrite state.json (journal replayed or broken)
}

type seqRange struct {
	lo, hi int64 // (lo, hi]
	err    error
}

func openLocal(path string, opts Options) (*localStore, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("--state %q: %w", path, err)
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("--state %q is a directory; give a file path such as %s", path, filepath.Join(path, "state.json"))
	}
	// Only regular files, never through a link: a state at /dev/null or a
	// link to someone else's file would otherwise be replaced by ours.
	if fi, err := os.Lstat(abs); err == nil && !fi.Mode().IsRegular() {
		return nil, &FormatError{Path: path, Found: kindOf(fi.Mode()),
			Hint: "it was left untouched; kubectl-azure keeps state only in regular files and never writes through a link: pass --state with the path of a regular file, or of one that does not exist yet"}
	}
	// Read-only creates nothing: a missing file reads as an empty state.
	if !opts.ReadOnly {
		if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
			return nil, fmt.Errorf("cannot create the state directory: %w; check permissions or pass --state elsewhere", err)
		}
	}
	s := &localStore{
		path:    abs,
		keyPath: abs + ".key",
		opts:    opts,
		lock:    fileLock{ref: abs, lockPath: abs + ".lock", holderPath: abs + ".holder", poll: opts.LockPoll},
		snap:    snapshotFile{path: abs, backupPath: abs + ".backup"},
		jnl:     journalFile{path: abs + ".journal"},
	}
	for _, p := range []string{s.snap.backupPath, s.lock.lockPath, s.lock.holderPath, s.keyPath, s.jnl.path} {
		if err := checkRegular(p); err != nil {
			return nil, &FormatError{Path: path, Found: "a companion file that is not a regular file (" + err.Error() + ")",
				Hint: "nothing was written; remove or replace that file with a regular one"}
		}
	}
	// Fail at Open, not mid-run, when the file is unreadable, corrupt or
	// not a state file at all (nothing has been written yet).
	if _, err := s.load(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *localStore) String() string { return s.path }

// ---- lock ----

func (s *localStore) Lock(ctx context.Context, holder string, timeout time.Duration) (func() error, error) {
	if holder == "" {
		holder = s.opts.Holder
	}
	if timeout <= 0 {
		timeout = s.opts.LockTimeout
	}
	if s.opts.ReadOnly {
		return nil, ErrReadOnly
	}
	s.mu.Lock()
	if s.held || s.fl != nil {
		s.mu.Unlock()
		return nil, errors.New("state: Lock called twice in one run (bug: unlock first)")
	}
	if err := checkRegular(s.lock.lockPath); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	fl := s.lock.newFlock()
	s.fl = fl // reserve, so a concurrent Lock in this process fails fast
	s.mu.Unlock()

	if err := s.lock.acquire(ctx, fl, timeout); err != nil {
		s.mu.Lock()
		s.fl = nil
		s.mu.Unlock()
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.lock.writeHolder(holder); err != nil {
		_ = s.releaseLocked()
		return nil, err
	}
	f, err := s.load()
	if err != nil {
		_ = s.releaseLocked()
		return nil, err
	}
	s.snap.cleanTemps()
	s.held, s.snap.backedUp, s.cache = true, false, f
	s.seq, s.attempted, s.failed, s.pending, s.snapSeq = 0, 0, nil, nil, 0
	s.jnl.close()
	s.onDisk, s.diskSer = f.onDisk, f.Serial
	s.lastSnap, s.needSnap = time.Now(), f.replayed
	s.snapSize = 0
	if fi, err := os.Lstat(s.path); err == nil {
		s.snapSize = fi.Size()
	}
	var once sync.Once
	var uerr error
	return func() error {
		once.Do(func() {
			// flushMu first: a write still being flushed finishes under the lock.
			s.flushMu.Lock()
			defer s.flushMu.Unlock()
			s.mu.Lock()
			defer s.mu.Unlock()
			uerr = errors.Join(s.finishLocked(), s.releaseLocked())
		})
		return uerr
	}, nil
}

// releaseLocked drops the run lock; s.mu must be held.
func (s *localStore) releaseLocked() error {
	if s.fl == nil {
		return nil
	}
	err := s.lock.release(s.fl)
	s.fl, s.held, s.cache = nil, false, nil
	return err
}

// LockHolder implements LockInspector.
func (s *localStore) LockHolder(ctx context.Context) (*LockInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held {
		return s.lock.readHolder(), nil
	}
	return s.lock.inspect()
}

// ---- reading ----

// load reads the state as it is durable now: state.json plus the journal
// of changes since it was written. The journal is read first: a writer
// replaces state.json before it drops the journal, so whatever order the
// two reads interleave with a writer in, a journal that does not belong to
// the state.json read (another base serial) is already contained in it.
func (s *localStore) load() (*localFile, error) {
	jb, jerr := readRegular(s.jnl.path, maxStateBytes)
	if jerr != nil && !errors.Is(jerr, fs.ErrNotExist) {
		return nil, fmt.Errorf("cannot read the state journal %s: %w", s.jnl.path, jerr)
	}
	b, err := readRegular(s.path, maxStateBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return newLocalFile(), nil
	}
	if errors.Is(err, errNotRegular) {
		return nil, &FormatError{Path: s.path, Found: err.Error()}
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read state %s: %w", s.path, err)
	}
	f, err := decodeFile(s.path, s.snap.backupPath, b)
	if err != nil {
		return nil, err
	}
	if jerr == nil {
		f.replayed = replayJournal(f, jb)
	}
	return f, nil
}

// read runs fn on the current state. Under Lock it uses the cached file;
// otherwise no lock is needed because state.json is only ever replaced
// whole and the journal only appended to.
func (s *localStore) read(fn func(f *localFile) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held {
		return fn(s.cache)
	}
	f, err := s.loadShared()
	if err != nil {
		return err
	}
	return fn(f)
}

// loadShared is load, reused while neither state.json nor the journal
// changed since: a loop reads every record's serial once per sweep part,
// and decoding the whole file each time cost more than the sweep. The file
// it returns is shared: read it, never change it. Call with mu held.
func (s *localStore) loadShared() (*localFile, error) {
	// Stamped before reading: a write in between leaves newer content under
	// older stamps, which only costs one more load.
	st, jst := stampOf(s.path), stampOf(s.jnl.path)
	if s.memo.f != nil && s.memo.state.same(st) && s.memo.jnl.same(jst) {
		return s.memo.f, nil
	}
	f, err := s.load()
	if err != nil {
		s.memo = readMemo{}
		return nil, err
	}
	s.memo = readMemo{state: st, jnl: jst, f: f}
	return f, nil
}

// ---- writing ----

// change computes the journal entries of one write from the current state
// without modifying it.
type change func(f *localFile) ([]jentry, error)

// write applies one change. Under Lock it goes to the cache and the journal
// (group commit, see flushTo); otherwise the write takes the file lock just
// for itself and rewrites state.json.
func (s *localStore) write(ctx context.Context, fn change) error {
	if s.opts.ReadOnly {
		return ErrReadOnly
	}
	s.mu.Lock()
	if s.held {
		es, err := fn(s.cache)
		if err != nil || len(es) == 0 {
			s.mu.Unlock()
			return err
		}
		for _, e := range es {
			s.cache.apply(e)
		}
		s.pending = append(s.pending, es...)
		s.seq++
		seq := s.seq
		s.mu.Unlock()
		return s.flushTo(seq)
	}
	defer s.mu.Unlock()
	if s.fl != nil {
		// Another goroutine is waiting in Lock: the reservation is ours.
		return errors.New("state: write while Lock is still being acquired (bug: wait for Lock to return)")
	}
	fl := s.lock.newFlock()
	if err := s.lock.acquire(ctx, fl, s.opts.LockTimeout); err != nil {
		_ = fl.Close()
		return err
	}
	defer func() { _ = fl.Unlock(); _ = fl.Close() }()
	f, err := s.load()
	if err != nil {
		return err
	}
	s.snap.cleanTemps()
	es, err := fn(f)
	if err != nil || len(es) == 0 {
		return err
	}
	for _, e := range es {
		f.apply(e)
	}
	s.snap.backedUp = false
	b, _ := encodeFile(f)
	if err := s.snap.replace(b, false); err != nil {
		return err
	}
	_ = os.Remove(s.jnl.path) // replayed into what was just written
	return nil
}

// writeSnapshot replaces state.json with b (serial ser) and drops the
// journal, whose changes b contains. flushMu must be held.
func (s *localStore) writeSnapshot(b []byte, ser int64) error {
	if err := s.snap.replace(b, s.held); err != nil {
		return err
	}
	s.onDisk, s.diskSer, s.lastSnap, s.needSnap = true, ser, time.Now(), false
	s.snapSize = int64(len(b))
	s.jnl.drop()
	return nil
}

// flushTo returns once change seq is durable, or failed to become so.
func (s *localStore) flushTo(seq int64) error {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	if seq <= s.attempted {
		for _, r := range s.failed {
			if seq > r.lo && seq <= r.hi {
				return r.err
			}
		}
		return nil // made durable by a flush another goroutine made
	}
	s.mu.Lock()
	if !s.held {
		s.mu.Unlock()
		return errors.New("state: the lock was released while a write was pending (bug: unlock after all writes return)")
	}
	lo, hi := s.attempted, s.seq
	entries := s.pending
	s.pending = nil
	// Compact rarely: only once the journal outgrows both a fixed floor
	// and CompactFactor times the file it extends, so the bytes written
	// during a run stay within a small multiple of the final state's size
	// (rewriting it every SnapshotInterval wrote 170 times its size in an
	// apply at ARM's pace).
	compact := s.jnl.size >= max(s.opts.CompactBytes, int64(s.opts.CompactFactor)*s.snapSize)
	snap := s.needSnap || !s.onDisk || (compact && time.Since(s.lastSnap) >= s.opts.SnapshotInterval)
	var b []byte
	var ser int64
	if snap {
		b, _ = encodeFile(s.cache)
		ser = s.cache.Serial
	}
	hdr := journalHeader{Format: JournalFormat, Lineage: s.cache.Lineage, Base: s.diskSer}
	s.mu.Unlock()
	var err error
	if snap {
		err = s.writeSnapshot(b, ser)
	} else {
		err = s.jnl.append(hdr, entries)
	}
	s.mu.Lock()
	if err == nil && snap {
		s.snapSeq = hi
	}
	if err != nil {
		// The cache holds changes that never reached the disk: reread it.
		// Changes made since the snapshot are dropped by that too, so they
		// fail with this batch rather than be reported durable later.
		hi = s.seq
		s.pending = nil
		if f, lerr := s.load(); lerr == nil {
			s.cache = f
		}
		s.needSnap = true
		s.failed = append(s.failed, seqRange{lo, hi, err})
	}
	s.mu.Unlock()
	s.attempted = hi
	return err
}

// finishLocked writes the final state.json of a locked run (when anything
// changed since the last one) and drops the journal. flushMu and mu must
// be held.
func (s *localStore) finishLocked() error {
	if !s.held || s.cache == nil {
		return nil
	}
	if s.seq > s.snapSeq || s.needSnap {
		b, _ := encodeFile(s.cache)
		if err := s.writeSnapshot(b, s.cache.Serial); err != nil {
			// The journal still holds every acknowledged change: the next
			// run replays it.
			s.jnl.close()
			return fmt.Errorf("writing the final state %s: %w; the journal %s keeps the changes and the next run applies them", s.path, err, s.jnl.path)
		}
		s.snapSeq = s.seq
	}
	s.jnl.drop()
	return nil
}

func (s *localStore) Close() error {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(s.finishLocked(), s.releaseLocked())
}
