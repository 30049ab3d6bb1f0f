package state

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
)

// How both backends decode stored records: numbers exact, bodies only when
// a caller gets to them.

// decodeRecord reads a stored record with exact numbers (json.Number).
func decodeRecord(b []byte) (*Record, error) {
	r := new(Record)
	if err := unmarshalNumbers(b, r); err != nil {
		return nil, err
	}
	r.fillSubscription()
	return r, nil
}

// recordHead decodes a stored record with its bodies left encoded: a
// plan decodes those when it gets to the record, and keeps only a few
// hundred bytes per record until then instead of their maps.
type recordHead struct {
	*Record
	LastApplied json.RawMessage `json:"lastApplied"`
	Baseline    json.RawMessage `json:"baseline"`
}

// skipped is a JSON value read past without being kept.
type skipped struct{}

func (*skipped) UnmarshalJSON([]byte) error { return nil }

func decodeHead(b []byte) (recordHead, error) {
	h := recordHead{Record: new(Record)}
	if err := json.Unmarshal(b, &h); err != nil {
		return h, err
	}
	h.fillSubscription()
	return h, nil
}

// decodeBodies fills the record's bodies from their encoded form, numbers
// exact.
func (h recordHead) decodeBodies() error {
	for _, b := range []struct {
		raw json.RawMessage
		to  *map[string]any
	}{{h.LastApplied, &h.Record.LastApplied}, {h.Baseline, &h.Record.Baseline}} {
		if len(b.raw) == 0 {
			continue
		}
		if err := unmarshalNumbers(b.raw, b.to); err != nil {
			return err
		}
	}
	return nil
}

// unmarshalNumbers is json.Unmarshal keeping numbers as json.Number, so
// big integers in L and B round-trip exactly.
func unmarshalNumbers(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// headsAndLoader hands out the heads, keeping each one's encoded bodies
// until they are loaded.
func headsAndLoader(where string, heads []recordHead) ([]*Record, LoadBodies, error) {
	out := make([]*Record, len(heads))
	pending := make(map[*Record]recordHead, len(heads))
	for i, h := range heads {
		out[i] = h.Record
		pending[h.Record] = h
	}
	var mu sync.Mutex
	load := func(_ context.Context, recs []*Record) error {
		mu.Lock()
		defer mu.Unlock()
		for _, r := range recs {
			h, ok := pending[r]
			if !ok {
				return fmt.Errorf("state %s: record %s was not listed by this reading (or its bodies were loaded already)", where, r.ID)
			}
			delete(pending, r)
			if err := h.decodeBodies(); err != nil {
				return fmt.Errorf("state %s: record %s is unreadable (%v); restore the state from its backup, or forget the record with `kubectl azure state rm %s` and import it again", where, r.ID, err, r.ID)
			}
		}
		return nil
	}
	return out, load, nil
}
