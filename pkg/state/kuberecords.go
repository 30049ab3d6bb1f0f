package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// The Kubernetes backend's Store operations on records. While the lock is
// held they work on the cache of the set's ConfigMaps filled at Lock: a
// write is sent with the resourceVersion it last saw (one request, no read
// first) and reads need no request at all, because no other run writes the
// set meanwhile. A conflict (someone wrote without the lock) falls back to
// reading the object and redoing the change.

// cached returns the cached ConfigMap called name (nil: it does not exist)
// and whether there is a cache, i.e. the lock is held.
func (s *kubeStore) cached(name string) (*corev1.ConfigMap, bool) {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	if s.cache == nil {
		return nil, false
	}
	return s.cache[name], true
}

// remember notes what the API server answered a write of name with (nil:
// it is gone).
func (s *kubeStore) remember(name string, cm *corev1.ConfigMap) {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	switch {
	case s.cache == nil:
	case cm == nil:
		delete(s.cache, name)
	default:
		s.cache[name] = cm
	}
}

// current returns a copy of the ConfigMap called name to change: from the
// cache when allowed and held, else read from the API server.
func (s *kubeStore) current(ctx context.Context, name string, useCache bool) (*corev1.ConfigMap, bool, error) {
	if useCache {
		if cm, ok := s.cached(name); ok {
			if cm == nil {
				return nil, false, nil
			}
			return cm.DeepCopy(), true, nil
		}
	}
	cm, err := s.cs.CoreV1().ConfigMaps(s.ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, s.explain(err, "get", "configmaps")
	}
	return cm, true, nil
}

// mutate applies fn to id's ConfigMap (a fresh one when absent) and writes
// it back, retrying resourceVersion conflicts on a freshly read copy. fn
// returning remove=true deletes the ConfigMap (under the same precondition).
func (s *kubeStore) mutate(ctx context.Context, id string, fn func(cm *corev1.ConfigMap) (remove bool, err error)) error {
	if s.lost.Load() {
		return ErrLockLost
	}
	if s.opts.ReadOnly {
		return ErrReadOnly
	}
	if err := s.waitUnlessHolder(ctx); err != nil {
		return err
	}
	cms := s.cs.CoreV1().ConfigMaps(s.ns)
	name := ConfigMapName(s.set, id)
	attempt := 0
	err := wait.ExponentialBackoffWithContext(ctx, conflictBackoff, func(ctx context.Context) (bool, error) {
		if attempt++; attempt > 1 {
			s.conflicts.Add(1)
		}
		cm, exists, err := s.current(ctx, name, attempt == 1)
		if err != nil {
			return false, err
		}
		if !exists {
			cm = &corev1.ConfigMap{ObjectMeta: s.objectMeta(name)}
		}
		if cm.Annotations == nil {
			cm.Annotations = map[string]string{}
		}
		if prev, ok := cm.Annotations[AnnID]; ok && armid.Key(prev) != armid.Key(id) {
			return false, fmt.Errorf("kubernetes state %s: ConfigMap %s belongs to %s, not %s (hash collision or hand edit); delete it", s, name, prev, id)
		}
		remove, err := fn(cm)
		if err != nil {
			return false, withID(err, id)
		}
		if !remove {
			// Refused here, before the request: the API server's answer
			// would not say which record, nor by how much.
			if err := checkConfigMap(cm); err != nil {
				return false, withID(err, id)
			}
		}
		var out *corev1.ConfigMap
		switch {
		case remove && !exists:
			return true, nil
		case remove:
			err = cms.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &cm.ResourceVersion}})
			if apierrors.IsNotFound(err) {
				err = nil
			}
		case exists:
			out, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
		default:
			out, err = cms.Create(ctx, cm, metav1.CreateOptions{})
		}
		if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) || (exists && !remove && apierrors.IsNotFound(err)) {
			return false, nil // someone wrote in between: reread and redo
		}
		if err != nil {
			return false, s.explain(err, "write", "configmaps")
		}
		s.remember(name, out)
		return true, nil
	})
	if wait.Interrupted(err) {
		return fmt.Errorf("kubernetes state %s: %s kept changing under us (%d attempts); another run is writing the same resource without the lock — rerun", s, name, attempt)
	}
	return err
}

func (s *kubeStore) Get(ctx context.Context, id string) (*Record, error) {
	cm, exists, err := s.current(ctx, ConfigMapName(s.set, id), true)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, ErrNotFound
	}
	return s.recordFrom(cm)
}

func (s *kubeStore) Put(ctx context.Context, r *Record) error {
	if err := validateRecord(r); err != nil {
		return err
	}
	c, err := sanitizedRecord(func() ([]byte, error) { return s.SecretKey(ctx) }, r, s.opts)
	if err != nil {
		return err
	}
	if c.Updated.IsZero() {
		c.Updated = time.Now().UTC()
	}
	err = s.mutate(ctx, r.ID, func(cm *corev1.ConfigMap) (bool, error) {
		a := cm.Annotations
		c.Serial = 1
		if prev, err := strconv.ParseInt(a[AnnSerial], 10, 64); err == nil {
			c.Serial = prev + 1
		}
		a[AnnID], a[AnnType], a[AnnAPIVersion] = c.ID, c.Type, c.APIVersion
		a[AnnSerial], a[AnnUpdated] = strconv.FormatInt(c.Serial, 10), c.Updated.UTC().Format(time.RFC3339Nano)
		setOrDelete(a, AnnOrigin, c.Origin)
		setOrDelete(a, AnnSubscription, c.Subscription)
		setOrDelete(a, AnnEtag, c.Etag)
		pd := ""
		if c.PreventDestroy {
			pd = "true"
		}
		setOrDelete(a, AnnPreventDestroy, pd)
		acc := ""
		if len(c.Accepted) > 0 {
			b, _ := json.Marshal(c.Accepted)
			acc = string(b)
		}
		setOrDelete(a, AnnAccepted, acc)
		setOrDelete(a, AnnHashedAs, c.HashedAs)
		if err := s.setValue(cm, AnnLastApplied, c.LastApplied, c.LastApplied == nil); err != nil {
			return false, err
		}
		if err := s.setValue(cm, AnnBaseline, c.Baseline, c.Baseline == nil); err != nil {
			return false, err
		}
		return false, s.setValue(cm, AnnIntent, nil, true)
	})
	if err != nil {
		return err
	}
	r.Serial, r.Updated, r.Subscription = c.Serial, c.Updated, c.Subscription
	return s.dropJournalEntry(ctx, r.ID)
}

func (s *kubeStore) Delete(ctx context.Context, id string) error {
	if err := s.mutate(ctx, id, func(*corev1.ConfigMap) (bool, error) { return true, nil }); err != nil {
		return err
	}
	return s.dropJournalEntry(ctx, id)
}

// listAll returns the set's ConfigMaps: from the cache while the lock is
// held (records only), else listed in pages, which keep memory and the API
// server's load bounded for sets of thousands (the journal included).
func (s *kubeStore) listAll(ctx context.Context) ([]corev1.ConfigMap, error) {
	s.cacheMu.Lock()
	if s.cache != nil {
		out := make([]corev1.ConfigMap, 0, len(s.cache))
		for _, cm := range s.cache {
			out = append(out, *cm)
		}
		s.cacheMu.Unlock()
		return out, nil
	}
	s.cacheMu.Unlock()
	return s.listServer(ctx)
}

func (s *kubeStore) listServer(ctx context.Context) ([]corev1.ConfigMap, error) {
	var out []corev1.ConfigMap
	opts := metav1.ListOptions{LabelSelector: s.selector(), Limit: 500}
	for {
		l, err := s.cs.CoreV1().ConfigMaps(s.ns).List(ctx, opts)
		if err != nil {
			return nil, s.explain(err, "list", "configmaps")
		}
		out = append(out, l.Items...)
		if l.Continue == "" {
			return out, nil
		}
		opts.Continue = l.Continue
	}
}

func (s *kubeStore) List(ctx context.Context) ([]*Record, error) {
	cms, err := s.listAll(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*Record, 0, len(cms))
	for i := range cms {
		r, err := s.recordFrom(&cms[i])
		if errors.Is(err, ErrNotFound) {
			continue // an intent alone, or the journal
		}
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return armid.Key(out[i].ID) < armid.Key(out[j].ID) })
	return out, nil
}

// ---- intents ----

// BeginIntent puts the intent in the journal ConfigMap while the lock is
// held (group commit, see kubejournal.go); an intent too large for it, or
// one of a run without the lock, goes on the resource's own ConfigMap.
func (s *kubeStore) BeginIntent(ctx context.Context, in Intent) error {
	in, err := prepareIntent(in, func() ([]byte, error) { return s.SecretKey(ctx) }, s.opts)
	if err != nil {
		return err
	}
	if s.lost.Load() {
		return ErrLockLost
	}
	if j := s.journal(); j != nil {
		enc, big, err := encodeValue(in, s.opts.CompressAbove)
		if err != nil {
			return err
		}
		if big == nil {
			if seq, ok := j.add(idHash(in.ID), enc); ok {
				return s.flushJournal(ctx, j, seq)
			}
		}
	}
	return s.mutate(ctx, in.ID, func(cm *corev1.ConfigMap) (bool, error) {
		if _, ok := cm.Annotations[AnnID]; !ok {
			cm.Annotations[AnnID] = in.ID
		}
		return false, s.setValue(cm, AnnIntent, in, false)
	})
}

func (s *kubeStore) CommitIntent(ctx context.Context, id string) error {
	if cm, held := s.cached(ConfigMapName(s.set, id)); held && (cm == nil || cm.Annotations[AnnIntent] == "") {
		return s.dropJournalEntry(ctx, id) // nothing on the resource's ConfigMap
	}
	err := s.mutate(ctx, id, func(cm *corev1.ConfigMap) (bool, error) {
		if _, ok := cm.Annotations[AnnSerial]; !ok {
			return true, nil // nothing but the intent: drop the ConfigMap
		}
		return false, s.setValue(cm, AnnIntent, nil, true)
	})
	if err != nil {
		return err
	}
	return s.dropJournalEntry(ctx, id)
}

func (s *kubeStore) Intents(ctx context.Context) ([]Intent, error) {
	cms, err := s.listAll(ctx)
	if err != nil {
		return nil, err
	}
	byKey := map[string]Intent{}
	add := func(in Intent) {
		k := armid.Key(in.ID)
		if prev, ok := byKey[k]; !ok || in.Started.After(prev.Started) {
			byKey[k] = in
		}
	}
	for i := range cms {
		cm := &cms[i]
		if cm.Name == s.journalName() {
			ins, err := s.journalIntents(cm, cm.Data)
			if err != nil {
				return nil, err
			}
			for _, in := range ins {
				add(in)
			}
			continue
		}
		v, ok := cm.Annotations[AnnIntent]
		if !ok {
			continue
		}
		var in Intent
		if err := decodeValue(v, cm, &in); err != nil {
			return nil, fmt.Errorf("kubernetes state %s: ConfigMap %s has an unreadable journal entry (%v); remove its %s annotation after checking the resource in Azure", s, cm.Name, err, AnnIntent)
		}
		add(in)
	}
	if j := s.journal(); j != nil {
		ins, err := s.journalIntents(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: s.journalName()}}, j.snapshot())
		if err != nil {
			return nil, err
		}
		for _, in := range ins {
			add(in)
		}
	}
	out := make([]Intent, 0, len(byKey))
	for _, in := range byKey {
		out = append(out, in)
	}
	sortIntents(out)
	return out, nil
}
