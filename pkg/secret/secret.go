// Package secret is the one rule for what is secret and how a secret is
// kept out of state, plans, logs and errors. It has no project
// dependencies so the diff, the state stores, the ARM client and the
// printers can all share it.
//
// A value is secret when any of these holds:
//   - it came from a valueFrom (environment, Kubernetes Secret, ARM action);
//   - the schema marks its property secret, sensitive or write-only-secret;
//   - it is a string under a property whose name holds credentials in every
//     ARM API (Name), or anywhere inside a credential container (Container).
//
// Secret values are stored as Hash (a salted HMAC), printed as Placeholder,
// and every value seen is registered with Register so Scrub can remove it
// from any text (ARM's error messages quote request bodies).
package secret

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"sort"
	"strings"
	"sync"
)

// Placeholder is shown instead of a secret value everywhere.
const Placeholder = "(sensitive)"

// HashPrefix starts every hashed secret value.
const HashPrefix = "hmac-sha256:"

// Hash is the salted HMAC of a secret value: key is the per-state salt and
// path (a schema path, "" when none applies) is mixed in so equal secrets at
// different paths do not share a hash. It is the only hash the project uses
// for secrets, in the diff and in every state backend, so L's hashes compare.
// Non-string values are hashed by their JSON encoding.
func Hash(key []byte, path string, v any) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(path))
	m.Write([]byte{0})
	if s, ok := v.(string); ok {
		b, _ := json.Marshal(s)
		m.Write(b)
	} else {
		b, _ := json.Marshal(v)
		m.Write(b)
	}
	return HashPrefix + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// IsHash reports whether v is already a hashed secret.
func IsHash(v any) bool {
	s, ok := v.(string)
	return ok && strings.HasPrefix(s, HashPrefix)
}

// Name reports whether a property name holds a credential in every ARM API
// seen so far (password, clientSecret, primaryKey, ...). Only string values
// are credentials: a boolean or object property named "secret" is a flag or
// a container, and its changes must be shown (callers pass the value).
func Name(name string, v any) bool {
	if _, ok := v.(string); !ok {
		return false
	}
	return CredentialName(name)
}

// CredentialName is Name without the value check, for callers deciding
// about a property before they hold its value (import, schema hints).
func CredentialName(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "password", "adminpassword", "secret", "clientsecret", "primarykey", "secondarykey",
		"connectionstring", "sharedkey", "accesskey", "storageaccountkey", "accountkey",
		"primarymasterkey", "secondarymasterkey", "token", "sastoken", "authkey",
		"bitlockerkey", "apikey", "sharedaccesskey", "masterkey", "privatekey", "passphrase",
		"securevalue", "keyvalue", "primaryconnectionstring", "secondaryconnectionstring",
		"instrumentationkey", "customerkey":
		return true
	}
	return strings.HasSuffix(n, "password") || strings.HasSuffix(n, "secret") ||
		strings.HasSuffix(n, "connectionstring") || strings.HasSuffix(n, "accesskey") ||
		strings.HasSuffix(n, "sastoken")
}

// Container reports whether everything below a property of this name is
// secret: extension protectedSettings (and configurationProtectedSettings)
// and a list of secrets. (An object under a credential name, as deployment
// parameters write {"adminPassword": {"value": …}}, is a container too, but
// only when it is an object: callers that hold the value check
// CredentialName themselves, so a boolean named "secret" stays visible.)
func Container(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "secrets", "protectedsettingsfromkeyvault", "credentials":
		return true
	}
	return strings.HasSuffix(n, "protectedsettings")
}

// minScrubLen is the shortest value Scrub replaces: shorter "secrets"
// (a "1", "true") would shred ordinary text and protect nothing.
const minScrubLen = 4

// Registry remembers secret values so they can be removed from any text.
// Safe for concurrent use.
type Registry struct {
	mu     sync.RWMutex
	values map[string]bool
	sorted []string // longest first, rebuilt lazily
}

// Default is the process-wide registry: loaders register every secret they
// resolve, and every writer of human or machine output scrubs with it.
var Default = &Registry{}

// Register adds secret values to r. Values shorter than four bytes are
// ignored (see minScrubLen). Their JSON-escaped forms (once and twice) are added
// too, since ARM quotes request bodies inside JSON error messages.
func (r *Registry) Register(values ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.values == nil {
		r.values = map[string]bool{}
	}
	for _, v := range values {
		if len(v) < minScrubLen {
			continue
		}
		// The value itself, then as quoted inside JSON, then inside a JSON
		// string that is itself embedded in JSON (ARM error messages).
		for e, n := v, 0; n < 3; n++ {
			r.values[e] = true
			b, _ := json.Marshal(e)
			e = string(b[1 : len(b)-1])
		}
	}
	r.sorted = nil
}

// Scrub replaces every registered secret value in s with Placeholder.
func (r *Registry) Scrub(s string) string {
	r.mu.RLock()
	vals := r.sorted
	n := len(r.values)
	r.mu.RUnlock()
	if n == 0 {
		return s
	}
	if vals == nil {
		r.mu.Lock()
		if r.sorted == nil {
			r.sorted = make([]string, 0, len(r.values))
			for v := range r.values {
				r.sorted = append(r.sorted, v)
			}
			// Longest first, so a secret containing another is replaced whole.
			sort.Slice(r.sorted, func(i, j int) bool {
				if len(r.sorted[i]) != len(r.sorted[j]) {
					return len(r.sorted[i]) > len(r.sorted[j])
				}
				return r.sorted[i] < r.sorted[j]
			})
		}
		vals = r.sorted
		r.mu.Unlock()
	}
	for _, v := range vals {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Placeholder)
		}
	}
	return s
}

// Len reports how many values r holds.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.values)
}

// Register adds values to the Default registry.
func Register(values ...string) { Default.Register(values...) }

// Scrub removes every value registered with Default from s.
func Scrub(s string) string { return Default.Scrub(s) }
