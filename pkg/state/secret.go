package state

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
)

// HMACPrefix starts every hashed secret value.
const HMACPrefix = "hmac-sha256:"

// secretKeyLen is the size of a store's HMAC key.
const secretKeyLen = 32

// HMAC hashes a secret value for storage and comparison: the same key and
// value always give the same string, and the value cannot be read back.
// Everyone (diff, apply, state) uses this one function so L's hashes compare.
func HMAC(key []byte, value string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(value))
	return HMACPrefix + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// IsHMAC reports whether v is already a hashed secret.
func IsHMAC(v string) bool { return strings.HasPrefix(v, HMACPrefix) }

// Secret marks a clear secret value inside a Record's maps. A store never
// writes it: Put and BeginIntent replace it with HMAC(SecretKey, value).
// Marshalling it to JSON fails, so no other path can leak it either.
type Secret string

// MarshalJSON refuses, so a Secret that escaped sanitising fails loudly
// instead of being written.
func (Secret) MarshalJSON() ([]byte, error) {
	return nil, errClearSecret
}

// String hides the value from logs and %v.
func (Secret) String() string { return "(sensitive)" }

var errClearSecret = errors.New("state: refusing to serialise a clear secret value (bug: it should have been hashed with state.HMAC)")

func newSecretKey() ([]byte, error) {
	k := make([]byte, secretKeyLen)
	if _, err := rand.Read(k); err != nil {
		return nil, err
	}
	return k, nil
}

// sanitize returns a deep copy of v in which every Secret is hashed.
func sanitize(keyFn func() ([]byte, error), v any) (any, error) {
	switch t := v.(type) {
	case Secret:
		k, err := keyFn()
		if err != nil {
			return nil, err
		}
		return HMAC(k, string(t)), nil
	case *Secret:
		if t == nil {
			return nil, nil
		}
		return sanitize(keyFn, *t)
	case map[string]any:
		if t == nil {
			return t, nil
		}
		out := make(map[string]any, len(t))
		for k, e := range t {
			s, err := sanitize(keyFn, e)
			if err != nil {
				return nil, err
			}
			out[k] = s
		}
		return out, nil
	case []any:
		if t == nil {
			return t, nil
		}
		out := make([]any, len(t))
		for i, e := range t {
			s, err := sanitize(keyFn, e)
			if err != nil {
				return nil, err
			}
			out[i] = s
		}
		return out, nil
	default:
		return v, nil
	}
}

func sanitizeMap(keyFn func() ([]byte, error), m map[string]any) (map[string]any, error) {
	if m == nil {
		return nil, nil
	}
	s, err := sanitize(keyFn, m)
	if err != nil {
		return nil, err
	}
	return s.(map[string]any), nil
}

// sanitizedRecord returns a copy of r safe to store.
func sanitizedRecord(keyFn func() ([]byte, error), r *Record) (*Record, error) {
	if r == nil {
		return nil, nil
	}
	c := *r
	var err error
	if c.LastApplied, err = sanitizeMap(keyFn, r.LastApplied); err != nil {
		return nil, err
	}
	if c.Baseline, err = sanitizeMap(keyFn, r.Baseline); err != nil {
		return nil, err
	}
	return &c, nil
}
