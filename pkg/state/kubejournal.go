package state

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The Kubernetes backend's journal: while the lock is held, the run's
// intents live in one ConfigMap, azstate-SET-journal (data: one key per
// resource, a hash of its ID, holding the intent as JSON), so that
// parallel workers share one write per batch of intents (group commit, as
// the local backend's journal does) instead of writing each resource's
// ConfigMap twice. An intent is dropped in memory when its record is
// written or it is committed; that reaches the ConfigMap with the next
// batch or at unlock. A crash in between leaves an intent whose resource
// Repair reads back and settles, which is what intents are for.

// When intents arrive slowly (at ARM's write pace after its burst, about
// ten a second), each batch would hold one and cost a journal write per
// resource. So while the last batch arrived slower than journalSlowRate, a
// flush waits until journalLinger after the previous one, gathering the
// intents that arrive meanwhile; the write to ARM starts that much later,
// which the write bucket's pace hides. Under load batches form by
// themselves and nothing waits.
const (
	journalLinger   = 500 * time.Millisecond
	journalSlowRate = 20 // intents per second
	journalBatch    = 8  // intents that make a batch worth writing at once
)

// journalMax bounds the journal ConfigMap's data (a ConfigMap holds at most
// 1 MiB); an intent that would not fit goes on its resource's ConfigMap.
const journalMax = 512 << 10

type kubeJournal struct {
	mu      sync.Mutex        // guards the fields below
	entries map[string]string // data key -> encoded intent
	size    int               // bytes of entries
	seq     int64             // last change to entries
	dirty   bool              // entries differ from the ConfigMap

	flushMu   sync.Mutex        // taken before mu, never after
	attempted int64             // last change included in a write attempt
	failed    []seqRange        // changes whose write failed
	cm        *corev1.ConfigMap // as last written; nil: absent
	lastFlush time.Time         // when the last batch was written
	lastRate  float64           // changes per second in the last batch
}

func newKubeJournal(cm *corev1.ConfigMap) *kubeJournal {
	j := &kubeJournal{entries: map[string]string{}, cm: cm}
	if cm != nil {
		for k, v := range cm.Data {
			j.entries[k] = v
			j.size += len(k) + len(v)
		}
	}
	return j
}

// add sets the entry under key, unless the journal would outgrow
// journalMax, and returns the change's sequence number.
func (j *kubeJournal) add(key, enc string) (int64, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	old, had := j.entries[key]
	size := j.size + len(key) + len(enc)
	if had {
		size -= len(key) + len(old)
	}
	if size > journalMax {
		return 0, false
	}
	j.entries[key], j.size = enc, size
	j.seq++
	j.dirty = true
	return j.seq, true
}

func (j *kubeJournal) drop(key string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if old, ok := j.entries[key]; ok {
		delete(j.entries, key)
		j.size -= len(key) + len(old)
		j.dirty = true
	}
}

// waiting counts the changes no write has included yet.
func (j *kubeJournal) waiting() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.seq - j.attempted
}

func (j *kubeJournal) snapshot() map[string]string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return maps.Clone(j.entries)
}

// journal returns the journal of the run holding the lock, or nil.
func (s *kubeStore) journal() *kubeJournal {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	return s.jnl
}

// flushJournal returns once change seq of j is written, or failed to be.
func (s *kubeStore) flushJournal(ctx context.Context, j *kubeJournal, seq int64) error {
	j.flushMu.Lock()
	defer j.flushMu.Unlock()
	if seq <= j.attempted {
		for _, r := range j.failed {
			if seq > r.lo && seq <= r.hi {
				return r.err
			}
		}
		return nil // written by a flush another goroutine made
	}
	if j.lastRate < journalSlowRate {
		// Holding flushMu, so the intents arriving meanwhile join this
		// batch; a batch that is full enough goes at once.
		until := j.lastFlush.Add(journalLinger)
		for time.Now().Before(until) && j.waiting() < journalBatch {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(min(journalLinger/20, time.Until(until))):
			}
		}
	}
	hi, err := s.writeJournal(ctx, j, false)
	now := time.Now()
	j.lastRate = float64(hi-j.attempted) / now.Sub(j.lastFlush).Seconds()
	j.lastFlush = now
	if err != nil {
		j.failed = append(j.failed, seqRange{j.attempted, hi, err})
	}
	j.attempted = hi
	return err
}

// writeJournal writes j's entries to its ConfigMap; final (at unlock)
// deletes the ConfigMap once no intent is left. It returns the last change
// it included. flushMu must be held.
func (s *kubeStore) writeJournal(ctx context.Context, j *kubeJournal, final bool) (int64, error) {
	j.mu.Lock()
	data, hi := maps.Clone(j.entries), j.seq
	j.dirty = false
	j.mu.Unlock()
	err := s.writeJournalData(ctx, j, data, final)
	if err != nil {
		j.mu.Lock()
		j.dirty = true
		j.mu.Unlock()
	}
	return hi, err
}

func (s *kubeStore) writeJournalData(ctx context.Context, j *kubeJournal, data map[string]string, final bool) error {
	if s.lost.Load() {
		return ErrLockLost
	}
	cms := s.cs.CoreV1().ConfigMaps(s.ns)
	for range 10 {
		var out *corev1.ConfigMap
		var err error
		switch {
		case j.cm == nil && len(data) == 0:
			return nil
		case j.cm == nil:
			cm := &corev1.ConfigMap{ObjectMeta: s.objectMeta(s.journalName()), Data: data}
			out, err = cms.Create(ctx, cm, metav1.CreateOptions{})
		case len(data) == 0 && final:
			err = cms.Delete(ctx, j.cm.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &j.cm.ResourceVersion}})
			if apierrors.IsNotFound(err) {
				err = nil
			}
		default:
			cm := j.cm.DeepCopy()
			cm.Data = data
			out, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
		}
		if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) || apierrors.IsNotFound(err) {
			// Written without the lock in between (only ever to drop
			// entries): this run's entries are the journal.
			s.conflicts.Add(1)
			cur, gerr := cms.Get(ctx, s.journalName(), metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(gerr):
				j.cm = nil
			case gerr != nil:
				return s.explain(gerr, "get", "configmaps")
			default:
				j.cm = cur
			}
			continue
		}
		if err != nil {
			return s.explain(err, "write", "configmaps")
		}
		j.cm = out
		return nil
	}
	return fmt.Errorf("kubernetes state %s: the journal ConfigMap %s kept changing; another run is writing without the lock — rerun", s, s.journalName())
}

// finishJournal writes what changed since the last batch at unlock.
func (s *kubeStore) finishJournal(ctx context.Context, j *kubeJournal) error {
	j.flushMu.Lock()
	defer j.flushMu.Unlock()
	j.mu.Lock()
	dirty := j.dirty || len(j.entries) == 0 && j.cm != nil
	j.mu.Unlock()
	if !dirty {
		return nil
	}
	_, err := s.writeJournal(ctx, j, true)
	return err
}

// dropJournalEntry forgets id's intent in the journal: in memory while the
// lock is held, else in the journal ConfigMap if it holds one.
func (s *kubeStore) dropJournalEntry(ctx context.Context, id string) error {
	key := idHash(id)
	if j := s.journal(); j != nil {
		j.drop(key)
		return nil
	}
	cms := s.cs.CoreV1().ConfigMaps(s.ns)
	for range 10 {
		cm, err := cms.Get(ctx, s.journalName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return s.explain(err, "get", "configmaps")
		}
		if _, ok := cm.Data[key]; !ok {
			return nil
		}
		delete(cm.Data, key)
		if len(cm.Data) == 0 {
			err = cms.Delete(ctx, cm.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &cm.ResourceVersion}})
		} else {
			_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
		}
		if err == nil || apierrors.IsNotFound(err) {
			return nil
		}
		if !apierrors.IsConflict(err) {
			return s.explain(err, "write", "configmaps")
		}
		s.conflicts.Add(1)
	}
	return fmt.Errorf("kubernetes state %s: the journal ConfigMap %s kept changing; rerun", s, s.journalName())
}

// journalIntents decodes the journal's entries.
func (s *kubeStore) journalIntents(cm *corev1.ConfigMap, data map[string]string) ([]Intent, error) {
	out := make([]Intent, 0, len(data))
	for k, v := range data {
		var in Intent
		if err := decodeValue(v, cm, &in); err != nil || in.ID == "" {
			if err == nil {
				err = errors.New("no resource ID")
			}
			return nil, fmt.Errorf("kubernetes state %s: the journal ConfigMap %s has an unreadable entry %s (%v); remove it after checking the resource in Azure", s, cm.Name, k, err)
		}
		out = append(out, in)
	}
	return out, nil
}

// startRun fills the cache and the journal once the lock is taken.
func (s *kubeStore) startRun(ctx context.Context) error {
	cms, err := s.listServer(ctx)
	if err != nil {
		return err
	}
	cache := make(map[string]*corev1.ConfigMap, len(cms))
	var jcm *corev1.ConfigMap
	for i := range cms {
		if cms[i].Name == s.journalName() {
			jcm = &cms[i]
			continue
		}
		cache[cms[i].Name] = &cms[i]
	}
	s.cacheMu.Lock()
	s.cache, s.jnl = cache, newKubeJournal(jcm)
	s.cacheMu.Unlock()
	return nil
}

// finishRun writes the journal's last changes and drops the cache, before
// the lock is released.
func (s *kubeStore) finishRun(ctx context.Context) error {
	s.cacheMu.Lock()
	j := s.jnl
	s.cache, s.jnl = nil, nil
	s.cacheMu.Unlock()
	if j == nil {
		return nil
	}
	return s.finishJournal(ctx, j)
}
