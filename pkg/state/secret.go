package state

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// HMACPrefix starts every hashed secret value; it is secret.HashPrefix.
const HMACPrefix = secret.HashPrefix

// secretKeyLen is the size of a store's HMAC key.
const secretKeyLen = 32

// Secret marks a clear secret value inside a Record's maps. A store never
// writes it: Put and BeginIntent replace it with secret.Hash(SecretKey,
// schema path, value), and refuse a record holding one anywhere else (in
// a []Secret, say) with MarshalJSON's error. Marshalling it to JSON fails
// too, so no other path can leak it either.
type Secret string

// MarshalJSON refuses, so a Secret that escaped sanitising fails loudly
// instead of being written. The stores call it themselves (refuseClear)
// before anything is marshalled.
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
// a value typed Secret, a value the one rule calls sensitive (the rule the
// caller built from the schema, Options.SecretRule: schema secrets, the
// record's type paths, credential names, containers), and a string that
// is a value of the run's registry (Options.Secrets) are hashed before
// anything is written; a Secret the walk cannot hash (inside a typed
// container) makes the write fail. pkg/record hashes by the same rule
// first, so normally nothing is left to do here; the schema path used
// here knows no schema maps beyond tags.
type sanitizer struct {
	keyFn func() ([]byte, error)
	key   []byte
	rule  *secret.Rule
	// secrets is the run's registry.
	secrets *secret.Registry
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
		if z.rule.At(p, t) || (len(t) >= 4 && z.secrets.Registered(t)) {
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
	case nil, bool, float64, json.Number:
		return v, nil
	default:
		// Anything else is kept as it is, unless a Secret hides in it.
		if err := refuseClear(reflect.ValueOf(v)); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return v, nil
	}
}

// secretType is Secret's reflect type.
var secretType = reflect.TypeFor[Secret]()

// refuseClear fails, with Secret.MarshalJSON's error, when v holds a
// Secret in a container the sanitizer does not hash through (a []Secret,
// a map[string]Secret, a struct): checked explicitly here, before
// anything is marshalled, rather than left to the encoder finding the
// method by reflection.
func refuseClear(v reflect.Value) error {
	if !v.IsValid() {
		return nil
	}
	if v.Type() == secretType {
		s := Secret(v.String())
		_, err := s.MarshalJSON()
		return fmt.Errorf("%w: a value shown as %s", err, s.String())
	}
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return refuseClear(v.Elem())
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if err := refuseClear(it.Value()); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := refuseClear(v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if err := refuseClear(v.Field(i)); err != nil {
				return err
			}
		}
	}
	return nil
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

// recordRule is the rule the caller built for r, or the one without a
// schema.
func recordRule(r *Record, fn func(*Record) *secret.Rule) *secret.Rule {
	if fn != nil {
		if rule := fn(r); rule != nil {
			return rule
		}
	}
	return secret.ForID(r.ID, nil)
}

// sanitizedRecord returns a copy of r safe to store, hashed by the rule
// o.SecretRule gives for it and o.Secrets.
func sanitizedRecord(keyFn func() ([]byte, error), r *Record, o Options) (*Record, error) {
	if r == nil {
		return nil, nil
	}
	sec := o.Secrets
	z := &sanitizer{keyFn: keyFn, rule: recordRule(r, o.SecretRule), secrets: sec}
	c := *r
	var err error
	if c.LastApplied, err = z.body(r.LastApplied); err != nil {
		return nil, err
	}
	if c.Baseline, err = z.body(r.Baseline); err != nil {
		return nil, err
	}
	// Metadata is printed and stored as is: scrub it of registered values.
	c.Origin = sec.Scrub(c.Origin)
	c.Etag = sec.Scrub(c.Etag)
	if len(r.Accepted) > 0 {
		c.Accepted = make([]string, len(r.Accepted))
		for i, p := range r.Accepted {
			c.Accepted[i] = sec.Scrub(p)
		}
	}
	return &c, nil
}
