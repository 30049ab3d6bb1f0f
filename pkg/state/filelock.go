package state

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/gofrs/flock"
)

// fileLock is the local backend's lock: flock(2) on state.json.lock, which
// is never deleted (deleting a locked file races), and state.json.holder
// naming who holds it, for the message of a run that waits.
type fileLock struct {
	ref, lockPath, holderPath string
	poll                      time.Duration
}

func (l fileLock) newFlock() *flock.Flock {
	return flock.New(l.lockPath, flock.SetPermissions(0o600))
}

// acquire takes fl, polling rather than blocking in flock(2) so the context
// and the timeout are honoured.
func (l fileLock) acquire(ctx context.Context, fl *flock.Flock, timeout time.Duration) error {
	start := time.Now()
	deadline := start.Add(timeout)
	for {
		ok, err := fl.TryLock()
		if err != nil {
			return fmt.Errorf("cannot lock %s: %w; check that the directory is writable", l.lockPath, err)
		}
		if ok {
			return nil
		}
		if !time.Now().Before(deadline) {
			return &LockedError{Ref: l.ref, Holder: l.readHolder(), Waited: time.Since(start)}
		}
		wait := min(l.poll, time.Until(deadline))
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the state lock held by %s: %w", l.readHolder(), ctx.Err())
		case <-time.After(wait):
		}
	}
}

// release drops fl taken for a run, holder file first: once the flock is
// gone another run may write its own.
func (l fileLock) release(fl *flock.Flock) error {
	_ = os.Remove(l.holderPath)
	err := fl.Unlock()
	_ = fl.Close()
	return err
}

// writeHolder records who holds the lock; call it with the lock held.
func (l fileLock) writeHolder(holder string) error {
	info := LockInfo{Holder: holder, PID: os.Getpid(), Since: time.Now().UTC()}
	info.Host, _ = os.Hostname()
	b, _ := json.Marshal(&info)
	return writeFileAtomic(l.holderPath, b)
}

func (l fileLock) readHolder() *LockInfo {
	b, err := readRegular(l.holderPath, maxHolderBytes)
	if err != nil {
		return &LockInfo{Holder: "another process (its identity is not recorded yet)"}
	}
	var li LockInfo
	if json.Unmarshal(b, &li) != nil || li.Holder == "" {
		return &LockInfo{Holder: "another process (unreadable " + l.holderPath + ")"}
	}
	return &li
}

// inspect reports who holds the lock when this process does not: nil when
// nobody does (a holder file left by a killed run is then removed).
func (l fileLock) inspect() (*LockInfo, error) {
	fl := l.newFlock()
	defer fl.Close()
	ok, err := fl.TryLock()
	if err != nil {
		return nil, err
	}
	if ok {
		_ = os.Remove(l.holderPath)
		return nil, fl.Unlock()
	}
	return l.readHolder(), nil
}
