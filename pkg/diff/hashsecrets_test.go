package diff

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// This file is compiled into the tests only. Production hashes L and B in
// pkg/record, which imports this package, so the tests of this package
// cannot call it (import cycle); HashSecrets stands in for it here with
// one salt for every path, which the tests pass as Input.SecretKey.

// HashSecrets returns the L (or B) to store: a copy of body with every
// secret value replaced by its salted HMAC (secret.Hash), so state never
// holds a secret in clear yet a later D can be compared with it. Secrets
// are what the schema marks secret, string values under credential names
// (secret.Name), everything inside a credential container
// (secret.Container), and the values at secretPaths (valueFrom, in the
// display syntax of bodypath.JoinMember).
func HashSecrets(body map[string]any, s *schema.Type, key []byte, secretPaths ...string) map[string]any {
	if body == nil {
		return nil
	}
	f := factsFor(s, nil)
	out := bodypath.CopyMap(body)
	var forced []bodypath.Path
	for _, p := range parsePatterns(secretPaths) {
		forced = append(forced, resolve(f, out, p)...)
	}
	c := comparer{f: f}
	var walk func(sp schema.Path, m map[string]any, under bool)
	var walkVal func(sp schema.Path, k string, v any, under bool) any
	walkVal = func(sp schema.Path, k string, v any, under bool) any {
		if v == nil {
			return v
		}
		under = under || underAny(c.path, forced)
		if isScalar(v) && (under || f.isSecret(sp) || secret.Name(k, v) || secret.UnderContainer(c.path)) {
			if secret.IsHash(v) {
				return v
			}
			return secret.Hash(key, string(sp), v)
		}
		switch t := v.(type) {
		case map[string]any:
			walk(sp, t, under || secretContainer(k))
		case []any:
			kind, ids := c.classify(sp, t, nil)
			for i := range t {
				m, ok := t[i].(map[string]any)
				if ok && kind == arrayKeyed {
					c.push(keyedSeg(m, ids))
				} else {
					c.push(bodypath.At(i))
				}
				t[i] = walkVal(sp.Item(), k, t[i], under || secretContainer(k))
				c.pop()
			}
		}
		return v
	}
	walk = func(sp schema.Path, m map[string]any, under bool) {
		isMap := f.isMap(sp)
		for k, v := range m {
			if under && (k == "name" || k == "id" || k == "type") {
				continue // identifiers of secret entries are not secret
			}
			c.push(bodypath.Field(k))
			m[k] = walkVal(sp.Child(k, isMap), k, v, under)
			c.pop()
		}
	}
	walk("", out, false)
	return out
}

// secretContainer reports whether a member holds credentials as a whole:
// secret.Container (extension protectedSettings, Container Apps secrets),
// an object under a credential name, as deployment parameters wrap values
// ({"adminPassword": {"value": ...}}), or any *ProtectedSettings member
// (Kubernetes configuration's configurationProtectedSettings).
func secretContainer(name string) bool {
	return secret.Container(name) || secret.CredentialName(name) ||
		strings.Contains(strings.ToLower(name), "protectedsettings")
}
