package state

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// The local backend's journal, state.json.journal, makes a locked run's
// changes durable without rewriting state.json for each: every change is
// one JSON line appended to it, and concurrent changes share one fsync.
// Its first line names the state.json it extends (lineage and serial); a
// journal that names another serial is already contained in state.json
// (which is written before the journal is dropped) and is ignored. A torn
// last line is a change whose append never returned, so no caller was told
// it was durable: it is ignored too.

// JournalFormat marks the first line of a journal file.
const JournalFormat = "kubectl-azure/state-journal"

// Journal entry operations.
const (
	jPut    = "put"    // Value is the record; clears the intent
	jDelete = "delete" // drops the record and the intent
	jIntent = "intent" // Value is the intent
	jCommit = "commit" // drops the intent
)

// jentry is one change to a state file.
type jentry struct {
	Op    string          `json:"op"`
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value,omitempty"`
}

type journalHeader struct {
	Format  string `json:"format"`
	Lineage string `json:"lineage"`
	Base    int64  `json:"base"` // serial of the state.json it extends
}

// apply makes one change to f. Replaying a prefix of changes f already
// contains leaves f as it is, since every change sets or drops one key.
func (f *localFile) apply(e jentry) {
	switch e.Op {
	case jPut:
		f.Resources[e.Key] = e.Value
		delete(f.Intents, e.Key)
	case jDelete:
		delete(f.Resources, e.Key)
		delete(f.Intents, e.Key)
	case jIntent:
		if f.Intents == nil {
			f.Intents = map[string]json.RawMessage{}
		}
		f.Intents[e.Key] = e.Value
	case jCommit:
		delete(f.Intents, e.Key)
	}
}

// replayJournal applies the journal b to f when it extends f, and reports
// whether it applied anything.
func replayJournal(f *localFile, b []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	if !sc.Scan() {
		return false
	}
	var h journalHeader
	if json.Unmarshal(sc.Bytes(), &h) != nil || h.Format != JournalFormat || h.Lineage != f.Lineage || h.Base != f.Serial {
		return false
	}
	n := 0
	for sc.Scan() {
		var e jentry
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Key == "" {
			break // torn tail: never acknowledged
		}
		f.apply(e)
		n++
	}
	return n > 0
}

// appendJournal appends entries and syncs the journal once for all of
// them. flushMu must be held. On failure the journal is cut back to its
// last good length, so a later append never follows a torn line.
func (s *localStore) appendJournal(entries []jentry) error {
	if writeFault != nil {
		if err := writeFault(); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	created := false
	if s.jf == nil {
		// Never through a link: a journal linked elsewhere would
		// overwrite its target.
		if err := checkRegular(s.journalPath); err != nil {
			return fmt.Errorf("cannot write the state journal: %w", err)
		}
		fh, err := os.OpenFile(s.journalPath, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|oNoFollow|oNonBlock, 0o600)
		if err != nil {
			return fmt.Errorf("cannot write the state journal %s: %w; check the directory's permissions and free space", s.journalPath, err)
		}
		s.jf, s.jsize, created = fh, 0, true
		h, _ := json.Marshal(journalHeader{Format: JournalFormat, Lineage: s.cache.Lineage, Base: s.diskSer})
		buf.Write(h)
		buf.WriteByte('\n')
	}
	for _, e := range entries {
		b, err := json.Marshal(e)
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	_, err := s.jf.WriteAt(buf.Bytes(), s.jsize)
	if err == nil {
		err = s.jf.Sync()
	}
	if err == nil && created {
		err = syncDir(filepath.Dir(s.journalPath))
	}
	if err != nil {
		if created || s.jf.Truncate(s.jsize) != nil {
			s.closeJournal()
		}
		return fmt.Errorf("cannot write the state journal %s: %w; check free space", s.journalPath, err)
	}
	s.jsize += int64(buf.Len())
	if appendHook != nil {
		appendHook(buf.Len())
	}
	return nil
}

// closeJournal stops appending to the journal file and leaves it in place.
func (s *localStore) closeJournal() {
	if s.jf != nil {
		_ = s.jf.Close()
		s.jf, s.jsize = nil, 0
	}
}

// dropJournal removes the journal once state.json contains its changes.
func (s *localStore) dropJournal() {
	s.closeJournal()
	_ = os.Remove(s.journalPath)
}
