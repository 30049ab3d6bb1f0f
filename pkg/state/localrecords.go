package state

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// The local backend's Store operations, each one read or change of the
// state file handled by localStore.

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
	c, err := sanitizedRecord(func() ([]byte, error) { return s.SecretKey(ctx) }, r, s.opts)
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

// ---- intents ----

func (s *localStore) BeginIntent(ctx context.Context, in Intent) error {
	in, err := prepareIntent(in, func() ([]byte, error) { return s.SecretKey(ctx) }, s.opts)
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
	if errors.Is(err, fs.ErrNotExist) && s.opts.ReadOnly {
		return nil, ErrReadOnly
	}
	if errors.Is(err, fs.ErrNotExist) {
		if k, err = newSecretKey(); err != nil {
			return nil, err
		}
		tmp := tempName(s.keyPath)
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
