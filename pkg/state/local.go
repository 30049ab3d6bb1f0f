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
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// localFormatVersion is bumped only on an incompatible file layout change.
const localFormatVersion = 1

// FileFormat is the marker every local state file carries in its "format"
// member; Open refuses a non-empty file without it.
const FileFormat = "kubectl-azure/state"

// localFile is the on-disk layout. Records stay encoded (RawMessage) in
// memory so every Get hands out a fresh copy and a Put re-encodes only the
// record it changes.
type localFile struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Serial  int64  `json:"serial"`  // bumped on every write of the file
	Lineage string `json:"lineage"` // random, fixed at creation: tells two state files apart
	// Resources and Intents are keyed by the lower-cased ARM ID.
	Resources map[string]json.RawMessage `json:"resources"`
	Intents   map[string]json.RawMessage `json:"intents,omitempty"`

	onDisk   bool // read from an existing, non-empty state.json
	replayed bool // journal entries were applied on top of it
}

// localStore is the file backend. Files, all mode 0600, beside the state:
//
//	state.json         the state, replaced atomically
//	state.json.backup  the state as it was before the current run's first write
//	state.json.lock    flock(2) target; never deleted (deleting a locked file races)
//	state.json.holder  who holds the lock, for the waiting run's message
//	state.json.key     the HMAC key, apart so state.json can be shared without it
//	state.json.journal changes since state.json was last written (see journal.go)
type localStore struct {
	path, backupPath, lockPath, holderPath, keyPath, journalPath string
	opts                                                         Options

	mu       sync.Mutex // guards the fields below and serialises writes in this process
	fl       *flock.Flock
	held     bool       // the run lock is held through Lock
	backedUp bool       // the backup for the current lock session is taken
	cache    *localFile // the file as last read or written, valid while held
	key      []byte

	// Group commit while held: every change to cache gets a sequence
	// number and a journal entry; one goroutine at a time (flushMu) appends
	// the entries waiting and syncs the journal once for all of them, and
	// the whole file is rewritten only every Options.SnapshotInterval and
	// at unlock. Parallel workers thus share one fsync per batch instead
	// of rewriting the whole file once each.
	flushMu   sync.Mutex // taken before mu, never after
	seq       int64      // last change applied to cache
	attempted int64      // last change included in a write attempt
	failed    []seqRange // changes whose write failed
	pending   []jentry   // changes after attempted, in order
	snapSeq   int64      // last change included in the file on disk

	// Guarded by flushMu while held (set up by Lock before held is set).
	jf       *os.File  // the journal being appended to; nil: none yet
	jsize    int64     // its length after the last successful append
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
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the state directory: %w; check permissions or pass --state elsewhere", err)
	}
	s := &localStore{
		path:        abs,
		backupPath:  abs + ".backup",
		lockPath:    abs + ".lock",
		holderPath:  abs + ".holder",
		keyPath:     abs + ".key",
		journalPath: abs + ".journal",
		opts:        opts,
	}
	for _, p := range []string{s.backupPath, s.lockPath, s.holderPath, s.keyPath, s.journalPath} {
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
	s.mu.Lock()
	if s.held || s.fl != nil {
		s.mu.Unlock()
		return nil, errors.New("state: Lock called twice in one run (bug: unlock first)")
	}
	if err := checkRegular(s.lockPath); err != nil {
		s.mu.Unlock()
		return nil, err
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
	s.seq, s.attempted, s.failed, s.pending, s.snapSeq = 0, 0, nil, nil, 0
	s.jf, s.jsize, s.onDisk, s.diskSer = nil, 0, f.onDisk, f.Serial
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
	b, err := readRegular(s.holderPath, maxHolderBytes)
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

// load reads the state as it is durable now: state.json plus the journal
// of changes since it was written. The journal is read first: a writer
// replaces state.json before it drops the journal, so whatever order the
// two reads interleave with a writer in, a journal that does not belong to
// the state.json read (another base serial) is already contained in it.
func (s *localStore) load() (*localFile, error) {
	jb, jerr := readRegular(s.journalPath, maxStateBytes)
	if jerr != nil && !errors.Is(jerr, fs.ErrNotExist) {
		return nil, fmt.Errorf("cannot read the state journal %s: %w", s.journalPath, jerr)
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
	f, err := decodeFile(s.path, s.backupPath, b)
	if err != nil {
		return nil, err
	}
	if jerr == nil {
		f.replayed = replayJournal(f, jb)
	}
	return f, nil
}

func newLocalFile() *localFile {
	return &localFile{Format: FileFormat, Version: localFormatVersion, Lineage: randomHex(8), Resources: map[string]json.RawMessage{}}
}

// decodeFile parses a state file, refusing anything that is not one: an
// empty file is a new state; anything else must carry the format marker
// (or be a file of the first release, which had none but is recognisable
// by its lineage and resources members).
func decodeFile(path, backupPath string, b []byte) (*localFile, error) {
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 {
		f := newLocalFile()
		return f, nil
	}
	// Only the member names matter here: skipping the values keeps a large
	// state from being copied once more just to be recognised.
	var members map[string]skipped
	if err := json.Unmarshal(trimmed, &members); err != nil {
		if !json.Valid(trimmed) && looksLikeState(trimmed) {
			return nil, &FormatError{Path: path, Found: fmt.Sprintf("a corrupt state file (%v)", err),
				Hint: "the previous version is in " + backupPath + ": inspect it and copy it over the state file"}
		}
		return nil, &FormatError{Path: path, Found: describeJSON(trimmed)}
	}
	if members == nil {
		return nil, &FormatError{Path: path, Found: "JSON null"}
	}
	var f localFile
	d := json.NewDecoder(bytes.NewReader(trimmed))
	if err := d.Decode(&f); err != nil {
		return nil, &FormatError{Path: path, Found: fmt.Sprintf("a JSON object whose members do not fit a state file (%v)", err)}
	}
	switch {
	case f.Format == FileFormat:
	case f.Format == "" && f.Lineage != "" && f.Version == 1 && has(members, "resources") && !has(members, "format"):
		f.Format = FileFormat // first release: upgraded on the next write
	case f.Format != "":
		return nil, &FormatError{Path: path, Found: fmt.Sprintf("a JSON object with \"format\": %q", armid.Printable(f.Format))}
	default:
		return nil, &FormatError{Path: path, Found: "a JSON object with " + describeKeys(members) + " and no \"format\": \"" + FileFormat + "\" marker"}
	}
	if f.Version > localFormatVersion || f.Version < 1 {
		return nil, &FormatError{Path: path, Found: fmt.Sprintf("state format version %d; this kubectl-azure reads version %d", f.Version, localFormatVersion),
			Hint: "upgrade kubectl-azure to the release that wrote it"}
	}
	if f.Resources == nil {
		f.Resources = map[string]json.RawMessage{}
	}
	f.onDisk = true
	return &f, nil
}

// looksLikeState reports whether invalid JSON was probably written as a
// state file (then it is damaged, not foreign).
func looksLikeState(b []byte) bool {
	return bytes.Contains(b, []byte(`"`+FileFormat+`"`)) ||
		(bytes.Contains(b, []byte(`"lineage"`)) || bytes.Contains(b, []byte(`"version"`))) && bytes.Contains(b, []byte(`"resources"`))
}

// describeJSON names what a non-object file holds, for the refusal message.
func describeJSON(b []byte) string {
	if !json.Valid(b) {
		head := string(b[:min(len(b), 24)])
		return fmt.Sprintf("not JSON: it starts with %q", armid.Printable(head))
	}
	switch b[0] {
	case '[':
		return "a JSON array"
	case '"':
		return "a JSON string"
	case 't', 'f':
		return "a JSON boolean"
	case 'n':
		return "JSON null"
	}
	return "a JSON number"
}

func has(m map[string]skipped, k string) bool {
	_, ok := m[k]
	return ok
}

func describeKeys(m map[string]skipped) string {
	if len(m) == 0 {
		return "no members"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, strconv.Quote(armid.Printable(k)))
	}
	sort.Strings(keys)
	if len(keys) > 5 {
		keys = append(keys[:5], "...")
	}
	return "members " + strings.Join(keys, ", ")
}

// encodeFile bumps the file serial and encodes f.
func encodeFile(f *localFile) ([]byte, error) {
	f.Serial++
	f.Version = localFormatVersion
	f.Format = FileFormat
	// One record per line, in key order: cheap to write (records are kept
	// encoded) and readable in a diff of two state files.
	var buf bytes.Buffer
	buf.Grow(64 + len(f.Resources)*1024)
	fmt.Fprintf(&buf, "{\n  \"format\": %q,\n  \"version\": %d,\n  \"serial\": %d,\n  \"lineage\": %q,\n", f.Format, f.Version, f.Serial, f.Lineage)
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

// Test hooks: writeFault fails a state or journal write before it lands;
// snapHook and appendHook count full rewrites and journal appends.
var (
	writeFault           func() error
	snapHook, appendHook func(bytes int)
)

// writeEncoded writes b as the new state.json: temp file, fsync, backup
// link, rename, fsync of the directory. A crash at any point leaves either
// the old or the new file in place, never a torn one.
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

// writeSnapshot replaces state.json with b (serial ser) and drops the
// journal, whose changes b contains. flushMu must be held.
func (s *localStore) writeSnapshot(b []byte, ser int64) error {
	if err := s.writeEncoded(b); err != nil {
		return err
	}
	if snapHook != nil {
		snapHook(len(b))
	}
	s.onDisk, s.diskSer, s.lastSnap, s.needSnap = true, ser, time.Now(), false
	s.snapSize = int64(len(b))
	s.dropJournal()
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
	compact := s.jsize >= max(s.opts.CompactBytes, int64(s.opts.CompactFactor)*s.snapSize)
	snap := s.needSnap || !s.onDisk || (compact && time.Since(s.lastSnap) >= s.opts.SnapshotInterval)
	var b []byte
	var ser int64
	if snap {
		b, _ = encodeFile(s.cache)
		ser = s.cache.Serial
	}
	s.mu.Unlock()
	var err error
	if snap {
		err = s.writeSnapshot(b, ser)
	} else {
		err = s.appendJournal(entries)
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
			s.closeJournal()
			return fmt.Errorf("writing the final state %s: %w; the journal %s keeps the changes and the next run applies them", s.path, err, s.journalPath)
		}
		s.snapSeq = s.seq
	}
	s.dropJournal()
	return nil
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
		b, rerr := readRegular(s.path, maxStateBytes)
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

// change computes the journal entries of one write from the current state
// without modifying it.
type change func(f *localFile) ([]jentry, error)

// read runs fn on the current state. Under Lock it uses the cached file;
// otherwise no lock is needed because state.json is only ever replaced
// whole and the journal only appended to.
func (s *localStore) read(fn func(f *localFile) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held {
		return fn(s.cache)
	}
	f, err := s.load()
	if err != nil {
		return err
	}
	return fn(f)
}

// write applies one change. Under Lock it goes to the cache and the journal
// (group commit, see flushTo); otherwise the write takes the file lock just
// for itself and rewrites state.json.
func (s *localStore) write(ctx context.Context, fn change) error {
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
	es, err := fn(f)
	if err != nil || len(es) == 0 {
		return err
	}
	for _, e := range es {
		f.apply(e)
	}
	s.backedUp = false
	b, _ := encodeFile(f)
	if err := s.writeEncoded(b); err != nil {
		return err
	}
	_ = os.Remove(s.journalPath) // replayed into what was just written
	return nil
}

// ---- records ----

func (s *localStore) Get(ctx context.Context, id string) (*Record, error) {
	var r *Record
	err := s.read(func(f *localFile) error {
		raw, ok := f.Resources[armid.Key(id)]
		if !ok {
			return ErrNotFound
		}
		var err error
		r, err = decodeRecord(raw)
		return err
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
	return s.write(ctx, func(f *localFile) ([]jentry, error) {
		k := armid.Key(r.ID)
		c.Serial = 1
		if raw, ok := f.Resources[k]; ok {
			var prev struct {
				Serial int64 `json:"serial"`
			}
			if json.Unmarshal(raw, &prev) == nil {
				c.Serial = prev.Serial + 1
			}
		}
		if c.Updated.IsZero() {
			c.Updated = time.Now().UTC()
		}
		b, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		r.Serial, r.Updated, r.Subscription = c.Serial, c.Updated, c.Subscription
		return []jentry{{Op: jPut, Key: k, Value: b}}, nil
	})
}

func (s *localStore) Delete(ctx context.Context, id string) error {
	return s.write(ctx, func(*localFile) ([]jentry, error) {
		return []jentry{{Op: jDelete, Key: armid.Key(id)}}, nil
	})
}

func (s *localStore) ListHeads(ctx context.Context) ([]*Record, LoadBodies, error) {
	var heads []recordHead
	err := s.read(func(f *localFile) error {
		heads = make([]recordHead, 0, len(f.Resources))
		for _, k := range sortedKeys(f.Resources) {
			h, err := decodeHead(f.Resources[k])
			if err != nil {
				return fmt.Errorf("state %s: record %s is unreadable: %w", s.path, k, err)
			}
			heads = append(heads, h)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return headsAndLoader(s.path, heads)
}

func (s *localStore) List(ctx context.Context) ([]*Record, error) {
	var out []*Record
	err := s.read(func(f *localFile) error {
		out = make([]*Record, 0, len(f.Resources))
		for _, k := range sortedKeys(f.Resources) {
			r, err := decodeRecord(f.Resources[k])
			if err != nil {
				return fmt.Errorf("state %s: record %s is unreadable: %w", s.path, k, err)
			}
			out = append(out, r)
		}
		return nil
	})
	return out, err
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ---- intents ----

func (s *localStore) BeginIntent(ctx context.Context, in Intent) error {
	in, err := prepareIntent(in, func() ([]byte, error) { return s.SecretKey(ctx) })
	if err != nil {
		return err
	}
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return s.write(ctx, func(*localFile) ([]jentry, error) {
		return []jentry{{Op: jIntent, Key: armid.Key(in.ID), Value: b}}, nil
	})
}

func (s *localStore) CommitIntent(ctx context.Context, id string) error {
	return s.write(ctx, func(f *localFile) ([]jentry, error) {
		if _, ok := f.Intents[armid.Key(id)]; !ok {
			return nil, nil
		}
		return []jentry{{Op: jCommit, Key: armid.Key(id)}}, nil
	})
}

func (s *localStore) Intents(ctx context.Context) ([]Intent, error) {
	var out []Intent
	err := s.read(func(f *localFile) error {
		for k, raw := range f.Intents {
			var in Intent
			if err := unmarshalNumbers(raw, &in); err != nil {
				return fmt.Errorf("state %s: journal entry %s is unreadable: %w", s.path, k, err)
			}
			if in.Record != nil {
				in.Record.fillSubscription()
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
		return armid.Key(in[i].ID) < armid.Key(in[j].ID)
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
	b, err := readRegular(path, maxKeyBytes)
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
	return errors.Join(s.finishLocked(), s.releaseLocked())
}
