package secret

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// resourceKeyMagic starts a key made by ResourceKey: the derived key
// follows, then the state's own key, kept so Matches can still recognise a
// hash written before hashes were salted per resource.
const resourceKeyMagic = "\x00kubectl-azure resource key v1\x00"

const derivedLen = sha256.Size

// ResourceKey returns the key to hash one resource's secrets with: the
// state key (Store.SecretKey) salted with the resource's ARM ID, so equal
// secrets of two resources do not share a hash (state would reveal the
// reuse). Together with the path that Hash mixes in, equal secrets at two
// paths of one resource differ too. A key already made by ResourceKey is
// returned as is; an empty state key stays empty.
func ResourceKey(stateKey []byte, id string) []byte {
	if len(stateKey) == 0 || isResourceKey(stateKey) {
		return stateKey
	}
	m := hmac.New(sha256.New, stateKey)
	m.Write([]byte("resource\x00"))
	m.Write([]byte(armid.Key(id))) // equal IDs, as ARM compares them, share a key
	out := make([]byte, 0, len(resourceKeyMagic)+derivedLen+len(stateKey))
	out = append(out, resourceKeyMagic...)
	out = m.Sum(out)
	return append(out, stateKey...)
}

func isResourceKey(k []byte) bool {
	return len(k) >= len(resourceKeyMagic)+derivedLen && bytes.HasPrefix(k, []byte(resourceKeyMagic))
}

// hashKey is the HMAC key Hash uses: the derived part of a resource key,
// or the key itself.
func hashKey(k []byte) []byte {
	if isResourceKey(k) {
		return k[len(resourceKeyMagic) : len(resourceKeyMagic)+derivedLen]
	}
	return k
}

// stateKeyOf is the state key a resource key was derived from, or nil.
func stateKeyOf(k []byte) []byte {
	if isResourceKey(k) {
		return k[len(resourceKeyMagic)+derivedLen:]
	}
	return nil
}

// Matches reports whether hashed (from state) is the hash of v at path
// under key. With a resource key it also accepts the hash an older version
// wrote with the state key alone, so existing state still compares equal
// (the next write stores the per-resource hash).
func Matches(key []byte, path string, v any, hashed string) bool {
	if !IsHash(hashed) || len(key) == 0 {
		return false
	}
	if hmac.Equal([]byte(Hash(key, path, v)), []byte(hashed)) {
		return true
	}
	if sk := stateKeyOf(key); sk != nil {
		return hmac.Equal([]byte(Hash(sk, path, v)), []byte(hashed))
	}
	return false
}
