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

// journalFile is state.json.journal being appended to during a locked run.
type journalFile struct {
	path string
	f    *os.File // nil: not opened (created) yet in this run
	size int64    // its length after the last successful append
	// fault and count: as snapshotFile's.
	fault func() error
	count writeCount
}

// append appends entries and syncs the journal once for all of them,
// creating it with header h first if it is not open yet. On failure the
// journal is cut back to its last good length, so a later append never
// follows a torn line.
func (j *journalFile) append(h journalHeader, entries []jentry) error {
	if j.fault != nil {
		if err := j.fault(); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	created := false
	if j.f == nil {
		// Never through a link: a journal linked elsewhere would
		// overwrite its target.
		if err := checkRegular(j.path); err != nil {
			return fmt.Errorf("cannot write the state journal: %w", err)
		}
		fh, err := os.OpenFile(j.path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|oNoFollow|oNonBlock, 0o600)
		if err != nil {
			return fmt.Errorf("cannot write the state journal %s: %w; check the directory's permissions and free space", j.path, err)
		}
		j.f, j.size, created = fh, 0, true
		hb, _ := json.Marshal(h)
		buf.Write(hb)
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
	_, err := j.f.WriteAt(buf.Bytes(), j.size)
	if err == nil {
		err = j.f.Sync()
	}
	if err == nil && created {
		err = syncDir(filepath.Dir(j.path))
	}
	if err != nil {
		if created || j.f.Truncate(j.size) != nil {
			j.close()
		}
		return fmt.Errorf("cannot write the state journal %s: %w; check free space", j.path, err)
	}
	j.size += int64(buf.Len())
	j.count.add(buf.Len())
	return nil
}

// close stops appending to the journal file and leaves it in place.
func (j *journalFile) close() {
	if j.f != nil {
		_ = j.f.Close()
		j.f, j.size = nil, 0
	}
}

// drop removes the journal once state.json contains its changes.
func (j *journalFile) drop() {
	j.close()
	_ = os.Remove(j.path)
}
