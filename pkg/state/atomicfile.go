package state

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// Crash-safe file replacement: the local state file is only ever replaced
// whole (temp file, fsync, rename, fsync of the directory), with the state
// before a run kept as its backup.

// snapshotFile replaces state.json and keeps state.json.backup.
type snapshotFile struct {
	path, backupPath string
	// backedUp: the backup for the current lock session is taken; a
	// session's backup is the state as it was before the session.
	backedUp bool
	// fault, when set, fails a replace before anything is written: the
	// store's write faults (writeFaults), one per store, never global.
	fault func() error
	// count is what every successful replace wrote.
	count writeCount
}

// replace writes b as the new state file: temp file, fsync, backup link,
// rename, fsync of the directory. A crash at any point leaves either the
// old or the new file in place, never a torn one. With session the backup
// is taken once until backedUp is reset; without, before every replace.
func (w *snapshotFile) replace(b []byte, session bool) error {
	if w.fault != nil {
		if err := w.fault(); err != nil {
			return err
		}
	}
	tmp := tempName(w.path)
	if err := writeSynced(tmp, b); err != nil {
		return err
	}
	if !w.backedUp {
		if err := w.backup(); err != nil {
			_ = os.Remove(tmp)
			return err
		}
		w.backedUp = session
	}
	if err := os.Rename(tmp, w.path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("cannot replace state %s: %w", w.path, err)
	}
	if err := syncDir(filepath.Dir(w.path)); err != nil {
		return err
	}
	w.count.add(len(b))
	return nil
}

// backup makes the backup the current state file, atomically: a hard link
// costs nothing; where links are unsupported, a synced copy.
func (w *snapshotFile) backup() error {
	if _, err := os.Stat(w.path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	tmp := w.backupPath + ".tmp"
	_ = os.Remove(tmp)
	if err := os.Link(w.path, tmp); err != nil {
		b, rerr := readRegular(w.path, maxStateBytes)
		if rerr != nil {
			return fmt.Errorf("cannot back up state %s: %w", w.path, rerr)
		}
		if err := writeSynced(tmp, b); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, w.backupPath); err != nil {
		return fmt.Errorf("cannot back up state %s: %w", w.path, err)
	}
	return nil
}

// cleanTemps removes temp files of writers that died mid-write; only call
// it with the file lock held, so no live writer owns them.
func (w *snapshotFile) cleanTemps() {
	matches, _ := filepath.Glob(w.path + ".tmp-*")
	for _, m := range matches {
		_ = os.Remove(m)
	}
}

// tempName is a fresh temp file beside path, matched by cleanTemps.
func tempName(path string) string {
	return fmt.Sprintf("%s.tmp-%d-%s", path, os.Getpid(), randomHex(4))
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

// writeFileAtomic replaces path with b, never leaving it torn; the
// directory is not synced, so after a power loss it may hold the old file.
func writeFileAtomic(path string, b []byte) error {
	tmp := tempName(path)
	if err := writeSynced(tmp, b); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
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
