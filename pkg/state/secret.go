package state

import (
	"crypto/rand"
	"errors"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// HMACPrefix starts every hashed secret value; it is secret.HashPrefix.
const HMACPrefix = secret.HashPrefix

// secretKeyLen is the size of a store's HMAC key.
const secretKeyLen = 32

// Secret marks a clear secret value inside a Record's maps. A store never
// writes it: Put and BeginIntent replace it with secret.Hash(SecretKey,
// schema path, value). Marshalling it to JSON fails, so no other path can
// leak it either.
type Secret string

// MarshalJSON refuses, so a Secret that escaped sanitising fails loudly
// instead of being written.
func (Secret) MarshalJSON() ([]byte, error) {
	return nil, errClearSecret
}

// String hides the value from logs and %v.
func (Secret) String() string { return secret.Placeholder }

var errClearSecret = errors.New("state: refusing to serialise a clear secret value (bug: it should have been hashed with secret.Hash)")

func newSecretKey() ([]byte, error) {
	k := make([]byte, secretKeyLen)
	if _, err := rand.Read(k); err != nil {
		return nil, err
	}
	return k, nil
}

// sanitizer is the stores' last line of defence: whatever a caller passes,
// a value typed Secret, a value the one rule (secret.Rule: the record's
// type, credential names, containers) calls sensitive, and a string that is
// a value registered with secret.Register are hashed before anything is
// written. pkg/record hashes with the schema's paths first, so normally
// nothing is left to do here; the schema path used here knows no schema
// maps beyond tags.
type sanitizer struct {
	keyFn func() ([]byte, error)
	key   []byte
	rule  *secret.Rule
}

func (z *sanitizer) hash(path string, v any) (string, error) {
	if z.key == nil {
		k, err := z.keyFn()
		if err != nil {
			return "", err
		}
		// The state key itself: pkg/record salts per resource; a value
		// only this fallback hashes still compares (secret.Matches
		// accepts state-key hashes).
		z.key = k
	}
	return secret.Hash(z.key, path, v), nil
}

// value returns a deep copy of v with every secret hashed. p is the body
// path v is held at, path its schema path.
func (z *sanitizer) value(p bodypath.Path, path string, v any) (any, error) {
	switch t := v.(type) {
	case Secret:
		return z.hash(path, string(t))
	case *Secret:
		if t == nil {
			return nil, nil
		}
		return z.hash(path, string(*t))
	case string:
		if secret.IsHash(t) || t == "" {
			return t, nil
		}
		// A registered value is hashed wherever it stands, but only from
		// four bytes: a short secret ("1") would hash every such value of
		// every other resource.
		if z.rule.At(p, t) || (len(t) >= 4 && secret.Registered(t)) {
			return z.hash(path, t)
		}
		return t, nil
	case map[string]any:
		if t == nil {
			return t, nil
		}
		out := make(map[string]any, len(t))
		for k, e := range t {
			cp := childPath(path, k)
			s, err := z.value(append(p[:len(p):len(p)], bodypath.Field(k)), cp, e)
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
			s, err := z.value(append(p[:len(p):len(p)], bodypath.At(i)), path+"[]", e)
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

// childPath extends a schema path by one member; tags is a map ("tags.*").
func childPath(parent, name string) string {
	switch {
	case parent == "":
		return name
	case parent == "tags":
		return "tags.*"
	}
	return parent + "." + name
}

func (z *sanitizer) body(m map[string]any) (map[string]any, error) {
	if m == nil {
		return nil, nil
	}
	s, err := z.value(nil, "", m)
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
	z := &sanitizer{keyFn: keyFn, rule: secret.ForID(r.ID, nil)}
	c := *r
	var err error
	if c.LastApplied, err = z.body(r.LastApplied); err != nil {
		return nil, err
	}
	if c.Baseline, err = z.body(r.Baseline); err != nil {
		return nil, err
	}
	// Metadata is printed and stored as is: scrub it of registered values.
	c.Origin = secret.Scrub(c.Origin)
	c.Etag = secret.Scrub(c.Etag)
	return &c, nil
}
