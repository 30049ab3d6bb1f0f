package state

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"
)

// localFormatVersion is bumped only on an incompatible file layout change.
const localFormatVersion = 1

// localFile is the on-disk layout. Records stay encoded (RawMessage) in
// memory so every Get hands out a fresh copy and a Put re-encodes only the
// record it changes.
type localFile struct {
	Version int    `json:"version"`
	Serial  int64  `json:"serial"`  // bumped on every write of the file
	Lineage string `json:"lineage"` // random, fixed at creation: tells two state files apart
	// Resources and Intents are keyed by the lower-cased ARM ID.
	Resources map[string]json.RawMessage `json:"resources"`
	Intents   map[string]json.RawMessage `json:"intents,omitempty"`
}

// localStore is the file backend. Files, all mode 0600, beside the state:
//
//	state.json         the state, replaced atomically
//	state.json.backup  the state as it was before the current run's first write
//	state.json.lock    flock(2) target; never deleted (deleting a locked file races)
//	state.json.holder  who holds the lock, for the waiting run's message
//	state.json.key     the HMAC key, apart so state.json can be shared without it
type localStore struct {
	path, backupPath, lockPath, holderPath, keyPath string
	opts                                            Options

	mu       sync.Mutex // guards the fields below and serialises writes in this process
	fl       *flock.Flock
	held     bool       // the run lock is held through Lock
	backedUp bool       // the backup for the current lock session is taken
	cache    *localFile // the file as last read or written, valid while held
	key      []byte

	// Group commit while held: every change to cache gets a sequence
	// number; one goroutine at a time (flushMu) writes the cache out, and
	// that write makes every change up to its snapshot durable, so parallel
	// workers share file writes instead of rewriting the file once each.
	flushMu   sync.Mutex // taken before mu, never after
	seq       int64      // last change applied to cache
	attempted int64      // last change included in a write attempt
	failed    []seqRange // changes whose write failed
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
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the state directory: %w; check permissions or pass --state elsewhere", err)
	}
	s := &localStore{
		path:       abs,
		backupPath: abs + ".backup",
		lockPath:   abs + ".lock",
		holderPath: abs + ".holder",
		keyPath:    abs + ".key",
		opts:       opts,
	}
	// Fail at Open, not mid-run, when the file is unreadable or corrupt.
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
	s.mu.Lock()
	if s.held || s.fl != nil {
		s.mu.Unlock()
		return nil, errors.New("state: Lock called twice in one run (bug: unlock first)")
	}
	fl := flock.New(s.lockPath, flock.SetPermissions(0o600))
	s.fl = fl // reserve, so a concurrent Lock in this process fails fast
	s.mu.Unlock()

	if err := s.acquireFlock(ctx, fl, timeout); err != nil {
		s.mu.Lock()
		s.fl = nil
		s.mu.Unlock()
		return nil, err
	}
	info := LockInfo{Holder: holder, PID: os.Getpid(), Since: time.Now().UTC()}
	info.Host, _ = os.Hostname()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writeHolder(&info); err != nil {
		_ = fl.Unlock()
		s.fl = nil
		return nil, err
	}
	f, err := s.load()
	if err != nil {
		s.releaseLocked()
		return nil, err
	}
	s.cleanTemps()
	s.held, s.backedUp, s.cache = true, false, f
	s.seq, s.attempted, s.failed = 0, 0, nil
	var once sync.Once
	var uerr error
	return func() error {
		once.Do(func() {
			// flushMu first: a write still being flushed finishes under the lock.
			s.flushMu.Lock()
			defer s.flushMu.Unlock()
			s.mu.Lock()
			defer s.mu.Unlock()
			uerr = s.releaseLocked()
		})
		return uerr
	}, nil
}

// acquireFlock polls rather than blocking in flock(2) so the context and
// the timeout are honoured.
func (s *localStore) acquireFlock(ctx context.Context, fl *flock.Flock, timeout time.Duration) error {
	start := time.Now()
	deadline := start.Add(timeout)
	for {
		ok, err := fl.TryLock()
		if err != nil {
			return fmt.Errorf("cannot lock %s: %w; check that the directory is writable", s.lockPath, err)
		}
		if ok {
			return nil
		}
		if !time.Now().Before(deadline) {
			return &LockedError{Ref: s.path, Holder: s.readHolder(), Waited: time.Since(start)}
		}
		wait := min(s.opts.LockPoll, time.Until(deadline))
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the state lock held by %s: %w", s.readHolder(), ctx.Err())
		case <-time.After(wait):
		}
	}
}

// releaseLocked drops the run lock; s.mu must be held.
func (s *localStore) releaseLocked() error {
	if s.fl == nil {
		return nil
	}
	// Holder file first: once the flock is gone another run may write its own.
	_ = os.Remove(s.holderPath)
	err := s.fl.Unlock()
	_ = s.fl.Close()
	s.fl, s.held, s.cache = nil, false, nil
	return err
}

func (s *localStore) writeHolder(info *LockInfo) error {
	b, _ := json.Marshal(info)
	return writeFileAtomic(s.holderPath, b, false)
}

func (s *localStore) readHolder() *LockInfo {
	b, err := os.ReadFile(s.holderPath)
	if err != nil {
		return &LockInfo{Holder: "another process (its identity is not recorded yet)"}
	}
	var li LockInfo
	if json.Unmarshal(b, &li) != nil || li.Holder == "" {
		return &LockInfo{Holder: "another process (unreadable " + s.holderPath + ")"}
	}
	return &li
}

// LockHolder implements LockInspector.
func (s *localStore) LockHolder(ctx context.Context) (*LockInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held {
		return s.readHolder(), nil
	}
	fl := flock.New(s.lockPath, flock.SetPermissions(0o600))
	defer fl.Close()
	ok, err := fl.TryLock()
	if err != nil {
		return nil, err
	}
	if ok {
		// Nobody holds it; a holder file left by a killed run is stale.
		_ = os.Remove(s.holderPath)
		return nil, fl.Unlock()
	}
	return s.readHolder(), nil
}

// cleanTemps removes temp files of writers that died mid-write; only
// called with the flock held, so no live writer owns them.
func (s *localStore) cleanTemps() {
	matches, _ := filepath.Glob(s.path + ".tmp-*")
	for _, m := range matches {
		_ = os.Remove(m)
	}
}

// ---- file I/O ----

func (s *localStore) load() (*localFile, error) {
	b, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return &localFile{Version: localFormatVersion, Lineage: randomHex(8), Resources: map[string]json.RawMessage{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read state %s: %w", s.path, err)
	}
	var f localFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("state file %s is corrupt (%v); the previous version is in %s: inspect it and copy it over the state file",
			s.path, err, s.backupPath)
	}
	if f.Version > localFormatVersion {
		return nil, fmt.Errorf("state file %s has format version %d, newer than this kubectl-azure understands (%d); upgrade kubectl-azure",
			s.path, f.Version, localFormatVersion)
	}
	if f.Resources == nil {
		f.Resources = map[string]json.RawMessage{}
	}
	return &f, nil
}

// save writes f as the new state: temp file, fsync, backup link, rename,
// fsync of the directory. A crash at any point leaves either the old or the
// new file in place, never a torn one.
func (s *localStore) save(f *localFile) error {
	b, err := encodeFile(f)
	if err != nil {
		return err
	}
	return s.writeEncoded(b)
}

// encodeFile bumps the file serial and encodes f.
func encodeFile(f *localFile) ([]byte, error) {
	f.Serial++
	f.Version = localFormatVersion
	// One record per line, in key order: cheap to write (records are kept
	// encoded) and readable in a diff of two state files.
	var buf bytes.Buffer
	buf.Grow(64 + len(f.Resources)*1024)
	fmt.Fprintf(&buf, "{\n  \"version\": %d,\n  \"serial\": %d,\n  \"lineage\": %q,\n", f.Version, f.Serial, f.Lineage)
	writeMap := func(name string, m map[string]json.RawMessage, last bool) {
		fmt.Fprintf(&buf, "  %q: {", name)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			kb, _ := json.Marshal(k)
			buf.WriteString("\n    ")
			buf.Write(kb)
			buf.WriteString(": ")
			buf.Write(m[k])
			if i < len(keys)-1 {
				buf.WriteByte(',')
			}
		}
		if len(keys) > 0 {
			buf.WriteString("\n  ")
		}
		buf.WriteString("}")
		if !last {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	writeMap("resources", f.Resources, false)
	writeMap("intents", f.Intents, true)
	buf.WriteString("}\n")
	return buf.Bytes(), nil
}

// writeFault, when set by a test, fails a state write before it lands.
var writeFault func() error

func (s *localStore) writeEncoded(b []byte) error {
	if writeFault != nil {
		if err := writeFault(); err != nil {
			return err
		}
	}
	tmp := fmt.Sprintf("%s.tmp-%d-%s", s.path, os.Getpid(), randomHex(4))
	if err := writeSynced(tmp, b); err != nil {
		return err
	}
	if !s.backedUp {
		if err := s.backup(); err != nil {
			_ = os.Remove(tmp)
			return err
		}
		// Per lock session: the backup is the state before this run.
		s.backedUp = s.held
	}
	if err := os.Rename(tmp, s.path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("cannot replace state %s: %w", s.path, err)
	}
	return syncDir(filepath.Dir(s.path))
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
		return nil // written by a flush another goroutine made
	}
	s.mu.Lock()
	if !s.held {
		s.mu.Unlock()
		return errors.New("state: the lock was released while a write was pending (bug: unlock after all writes return)")
	}
	lo, hi := s.attempted, s.seq
	b, err := encodeFile(s.cache)
	s.mu.Unlock()
	if err == nil {
		err = s.writeEncoded(b)
	}
	if err != nil {
		// The cache holds changes that never reached the disk: reread it.
		// Changes made since the snapshot are dropped by that too, so they
		// fail with this batch rather than be reported durable later.
		s.mu.Lock()
		hi = s.seq
		if f, lerr := s.load(); lerr == nil {
			s.cache = f
		}
		s.mu.Unlock()
		s.failed = append(s.failed, seqRange{lo, hi, err})
	}
	s.attempted = hi
	return err
}

// backup makes state.json.backup the current state.json, atomically: a
// hard link costs nothing; where links are unsupported, a synced copy.
func (s *localStore) backup() error {
	if _, err := os.Stat(s.path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	tmp := s.backupPath + ".tmp"
	_ = os.Remove(tmp)
	if err := os.Link(s.path, tmp); err != nil {
		b, rerr := os.ReadFile(s.path)
		if rerr != nil {
			return fmt.Errorf("cannot back up state %s: %w", s.path, rerr)
		}
		if err := writeSynced(tmp, b); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, s.backupPath); err != nil {
		return fmt.Errorf("cannot back up state %s: %w", s.path, err)
	}
	return nil
}

func writeSynced(path string, b []byte) error {
	fh, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w; check the directory's permissions and free space", path, err)
	}
	_, err = fh.Write(b)
	if err == nil {
		err = fh.Sync()
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return fmt.Errorf("cannot write %s: %w; check free space", path, err)
	}
	return nil
}

// writeFileAtomic replaces path with b; with sync it survives power loss.
func writeFileAtomic(path string, b []byte, sync bool) error {
	tmp := fmt.Sprintf("%s.tmp-%d-%s", path, os.Getpid(), randomHex(4))
	if err := writeSynced(tmp, b); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if sync {
		return syncDir(filepath.Dir(path))
	}
	return nil
}

func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil // directories cannot be opened for sync there; rename is durable enough
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("cannot sync directory %s: %w", dir, err)
	}
	return nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// withFile runs fn on the current state. Under Lock it uses the cached
// file; otherwise a write takes the flock just for itself, and a read needs
// no lock because the file is only ever replaced whole.
func (s *localStore) withFile(ctx context.Context, write bool, fn func(f *localFile) error) error {
	s.mu.Lock()
	if s.held {
		if err := fn(s.cache); err != nil {
			s.mu.Unlock()
			return err
		}
		if !write {
			s.mu.Unlock()
			return nil
		}
		s.seq++
		seq := s.seq
		s.mu.Unlock()
		return s.flushTo(seq)
	}
	defer s.mu.Unlock()
	if !write {
		f, err := s.load()
		if err != nil {
			return err
		}
		return fn(f)
	}
	if s.fl != nil {
		// Another goroutine is waiting in Lock: the reservation is ours.
		return errors.New("state: write while Lock is still being acquired (bug: wait for Lock to return)")
	}
	fl := flock.New(s.lockPath, flock.SetPermissions(0o600))
	if err := s.acquireFlock(ctx, fl, s.opts.LockTimeout); err != nil {
		_ = fl.Close()
		return err
	}
	defer func() { _ = fl.Unlock(); _ = fl.Close() }()
	f, err := s.load()
	if err != nil {
		return err
	}
	s.cleanTemps()
	if err := fn(f); err != nil {
		return err
	}
	s.backedUp = false
	return s.save(f)
}

// ---- records ----

func (s *localStore) Get(ctx context.Context, id string) (*Record, error) {
	var r *Record
	err := s.withFile(ctx, false, func(f *localFile) error {
		raw, ok := f.Resources[key(id)]
		if !ok {
			return ErrNotFound
		}
		r = new(Record)
		return json.Unmarshal(raw, r)
	})
	return r, err
}

func (s *localStore) Put(ctx context.Context, r *Record) error {
	if err := validateRecord(r); err != nil {
		return err
	}
	c, err := sanitizedRecord(func() ([]byte, error) { return s.SecretKey(ctx) }, r)
	if err != nil {
		return err
	}
	return s.withFile(ctx, true, func(f *localFile) error {
		k := key(r.ID)
		c.Serial = 1
		if raw, ok := f.Resources[k]; ok {
			var prev Record
			if json.Unmarshal(raw, &prev) == nil {
				c.Serial = prev.Serial + 1
			}
		}
		if c.Updated.IsZero() {
			c.Updated = time.Now().UTC()
		}
		b, err := json.Marshal(c)
		if err != nil {
			return err
		}
		f.Resources[k] = b
		delete(f.Intents, k)
		r.Serial, r.Updated = c.Serial, c.Updated
		return nil
	})
}

func (s *localStore) Delete(ctx context.Context, id string) error {
	return s.withFile(ctx, true, func(f *localFile) error {
		delete(f.Resources, key(id))
		delete(f.Intents, key(id))
		return nil
	})
}

func (s *localStore) List(ctx context.Context) ([]*Record, error) {
	var out []*Record
	err := s.withFile(ctx, false, func(f *localFile) error {
		keys := make([]string, 0, len(f.Resources))
		for k := range f.Resources {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out = make([]*Record, 0, len(keys))
		for _, k := range keys {
			r := new(Record)
			if err := json.Unmarshal(f.Resources[k], r); err != nil {
				return fmt.Errorf("state %s: record %s is unreadable: %w", s.path, k, err)
			}
			out = append(out, r)
		}
		return nil
	})
	return out, err
}

// ---- journal ----

func (s *localStore) BeginIntent(ctx context.Context, in Intent) error {
	in, err := prepareIntent(in, func() ([]byte, error) { return s.SecretKey(ctx) })
	if err != nil {
		return err
	}
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return s.withFile(ctx, true, func(f *localFile) error {
		if f.Intents == nil {
			f.Intents = map[string]json.RawMessage{}
		}
		f.Intents[key(in.ID)] = b
		return nil
	})
}

func (s *localStore) CommitIntent(ctx context.Context, id string) error {
	return s.withFile(ctx, true, func(f *localFile) error {
		delete(f.Intents, key(id))
		return nil
	})
}

func (s *localStore) Intents(ctx context.Context) ([]Intent, error) {
	var out []Intent
	err := s.withFile(ctx, false, func(f *localFile) error {
		for k, raw := range f.Intents {
			var in Intent
			if err := json.Unmarshal(raw, &in); err != nil {
				return fmt.Errorf("state %s: journal entry %s is unreadable: %w", s.path, k, err)
			}
			out = append(out, in)
		}
		return nil
	})
	sortIntents(out)
	return out, err
}

func sortIntents(in []Intent) {
	sort.Slice(in, func(i, j int) bool {
		if !in[i].Started.Equal(in[j].Started) {
			return in[i].Started.Before(in[j].Started)
		}
		return key(in[i].ID) < key(in[j].ID)
	})
}

// ---- secret key ----

func (s *localStore) SecretKey(ctx context.Context) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.key != nil {
		return s.key, nil
	}
	k, err := readKeyFile(s.keyPath)
	if errors.Is(err, fs.ErrNotExist) {
		if k, err = newSecretKey(); err != nil {
			return nil, err
		}
		tmp := fmt.Sprintf("%s.tmp-%d-%s", s.keyPath, os.Getpid(), randomHex(4))
		if err := writeSynced(tmp, []byte(base64.StdEncoding.EncodeToString(k)+"\n")); err != nil {
			return nil, err
		}
		// link, unlike rename, fails if another run created the key first:
		// then both runs must use that one.
		lerr := os.Link(tmp, s.keyPath)
		_ = os.Remove(tmp)
		if lerr != nil {
			if k, err = readKeyFile(s.keyPath); err != nil {
				return nil, fmt.Errorf("cannot create the state's secret key %s: %w", s.keyPath, lerr)
			}
		} else if err := syncDir(filepath.Dir(s.keyPath)); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	s.key = k
	return k, nil
}

func readKeyFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	k, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(k) < 16 {
		return nil, fmt.Errorf("state secret key %s is corrupt; delete it (every stored secret hash then shows as changed once)", path)
	}
	return k, nil
}

func (s *localStore) Close() error {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.releaseLocked()
}
