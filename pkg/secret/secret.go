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
	"strings"
)

// Placeholder is shown instead of a secret value everywhere.
const Placeholder = "(sensitive)"

// HashPrefix starts every hashed secret value.
const HashPrefix = "hmac-sha256:"

// Hash is the salted HMAC of a secret value: key is the per-state key, or
// better the per-resource key ResourceKey derives from it, and path (a
// schema path, "" when none applies) is mixed in so equal secrets at
// different paths do not share a hash. It is the only hash the project uses
// for secrets, in the diff and in every state backend, so L's hashes
// compare (use Matches to compare: it also accepts older hashes).
// Non-string values are hashed by their JSON encoding.
func Hash(key []byte, path string, v any) string {
	m := hmac.New(sha256.New, hashKey(key))
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

// LikeCredential reports whether a name merely sounds like a credential's
// (keys, key1, a SAS sig, an SSH publicKey) or is one (CredentialName). A
// request log hides what lies under such names, the plan and state do not:
// there a false positive hides a change, in a log it costs nothing.
func LikeCredential(name string) bool {
	if CredentialName(name) {
		return true
	}
	n := strings.ToLower(name)
	for _, s := range []string{"password", "secret", "token", "connectionstring", "credential", "sastoken", "apikey", "privatekey", "passphrase", "sharedkey"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	// primaryKey, accountKey, keys, key1, sig (SAS signature)...
	return n == "sig" || strings.HasSuffix(n, "key") || strings.HasSuffix(n, "keys") ||
		(strings.HasPrefix(n, "key") && len(n) <= 4)
}

// Container reports whether everything below a property of this name is
// secret: extension protectedSettings (and configurationProtectedSettings)
// and credentials. (An object under a credential name, as deployment
// parameters write {"adminPassword": {"value": …}}, is a container too, but
// only when it is an object; and a "secrets" collection only when its
// entries are objects: a Key Vault access policy's permissions.secrets is
// a list of permission names. UnderContainer applies both with the path.)
func Container(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "protectedsettingsfromkeyvault", "credentials":
		return true
	}
	return strings.HasSuffix(n, "protectedsettings")
}
