package state

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// readMemo is the state file as last read without the lock, with the
// stamps of the two files it was read from.
type readMemo struct {
	state, jnl fileStamp
	f          *localFile
	serials    map[string]Serial
}

// fileStamp tells whether a file changed: the same file (inode), size and
// modification time. A missing file has a zero stamp.
type fileStamp struct{ fi os.FileInfo }

func stampOf(path string) fileStamp {
	fi, err := os.Lstat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{fi}
}

func (a fileStamp) same(b fileStamp) bool {
	if a.fi == nil || b.fi == nil {
		return a.fi == nil && b.fi == nil
	}
	return os.SameFile(a.fi, b.fi) && a.fi.Size() == b.fi.Size() && a.fi.ModTime().Equal(b.fi.ModTime())
}

// Serial is what a reader needs to tell whether a record was written
// since it last looked.
type Serial struct {
	Serial  int64
	Updated time.Time
}

// SerialLister is implemented by stores that list every record's Serial,
// keyed by armid.Key of its ID, without decoding the records.
type SerialLister interface {
	ListSerials(ctx context.Context) (map[string]Serial, error)
}

// ListSerials reads only each record's serial and time; without the lock
// it reuses the last reading while the files are unchanged.
func (s *localStore) ListSerials(ctx context.Context) (map[string]Serial, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held {
		return serialsOf(s.path, s.cache)
	}
	f, err := s.loadShared()
	if err != nil {
		return nil, err
	}
	if s.memo.f == f && s.memo.serials != nil {
		return cloneSerials(s.memo.serials), nil
	}
	m, err := serialsOf(s.path, f)
	if err != nil {
		return nil, err
	}
	if s.memo.f == f {
		s.memo.serials = m
	}
	return cloneSerials(m), nil
}

func serialsOf(path string, f *localFile) (map[string]Serial, error) {
	out := make(map[string]Serial, len(f.Resources))
	for k, raw := range f.Resources {
		var h struct {
			Serial  int64     `json:"serial"`
			Updated time.Time `json:"updated"`
		}
		if err := json.Unmarshal(raw, &h); err != nil {
			return nil, fmt.Errorf("state %s: record %s is unreadable: %w", path, k, err)
		}
		out[k] = Serial{h.Serial, h.Updated}
	}
	return out, nil
}

func cloneSerials(m map[string]Serial) map[string]Serial {
	out := make(map[string]Serial, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
