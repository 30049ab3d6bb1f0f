package manifest

import (
	"hash/maphash"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// idIndex finds the entries of a load by ARM ID, compared as ARM compares
// them (armid.Equal). It is keyed by a hash of the comparison key, not by
// the key: on large sets a lowered copy of every ID would weigh as much as
// the IDs themselves. Entries whose hashes collide are kept in more.
type idIndex struct {
	sum  func(key string) uint64
	one  map[uint64]*entry
	more map[uint64][]*entry
}

func newIDIndex() *idIndex {
	seed := maphash.MakeSeed()
	return &idIndex{sum: func(k string) uint64 { return maphash.String(seed, k) }, one: map[uint64]*entry{}}
}

func (x *idIndex) hash(id string) uint64 { return x.sum(armid.Key(id)) }

// get returns the entry whose ID equals id, nil when none (or x is nil).
func (x *idIndex) get(id string) *entry {
	if x == nil {
		return nil
	}
	h := x.hash(id)
	if e := x.one[h]; e != nil && armid.Equal(e.res.ID, id) {
		return e
	}
	for _, e := range x.more[h] {
		if armid.Equal(e.res.ID, id) {
			return e
		}
	}
	return nil
}

// add indexes e under its ID; the caller has checked no entry has it yet.
func (x *idIndex) add(e *entry) {
	h := x.hash(e.res.ID)
	if _, taken := x.one[h]; !taken {
		x.one[h] = e
		return
	}
	if x.more == nil {
		x.more = map[uint64][]*entry{}
	}
	x.more[h] = append(x.more[h], e)
}
