package secret

import (
	"strings"
	"testing"
)

func TestHashStableAndSalted(t *testing.T) {
	k1, k2 := []byte("k1"), []byte("k2")
	a := Hash(k1, "properties.password", "hunter22")
	if a != Hash(k1, "properties.password", "hunter22") {
		t.Fatal("hash is not deterministic")
	}
	if a == Hash(k2, "properties.password", "hunter22") || a == Hash(k1, "properties.other", "hunter22") {
		t.Fatal("hash ignores the key or the path")
	}
	if !IsHash(a) || strings.Contains(a, "hunter22") || IsHash("hunter22") || IsHash(42) {
		t.Fatal("IsHash")
	}
}

func TestName(t *testing.T) {
	for _, n := range []string{"password", "adminPassword", "clientSecret", "secureValue", "primaryKey", "connectionString", "dbPassword"} {
		if !Name(n, "x") {
			t.Errorf("%s should be a credential name", n)
		}
	}
	// A boolean or an object named like a credential is not a secret value.
	if Name("secret", true) || Name("secret", map[string]any{}) || Name("password", 12) {
		t.Error("non-string values are never credentials by name")
	}
	for _, n := range []string{"name", "location", "secretsEnabled", "keyVaultUri", "value"} {
		if Name(n, "x") {
			t.Errorf("%s should not be a credential name", n)
		}
	}
}

func TestScrub(t *testing.T) {
	r := &Registry{}
	r.Register("p@ss\"word-123", "abc", "longer-secret-value", "longer-secret")
	msg := `{"error":{"message":"invalid value 'p@ss\"word-123' in {\"pw\":\"p@ss\\\"word-123\"}; also longer-secret-value and abc"}}`
	got := r.Scrub(msg)
	for _, leak := range []string{"p@ss", "longer-secret"} {
		if strings.Contains(got, leak) {
			t.Errorf("Scrub left %q in %s", leak, got)
		}
	}
	if !strings.Contains(got, "abc") {
		t.Error("values shorter than four bytes must not be scrubbed outside quotes (they would shred text)")
	}
	if (&Registry{}).Scrub("nothing") != "nothing" {
		t.Error("empty registry changed text")
	}
}

func TestContainer(t *testing.T) {
	for _, n := range []string{"protectedSettings", "configurationProtectedSettings", "credentials"} {
		if !Container(n) {
			t.Errorf("%s should be a secret container", n)
		}
	}
	// "secrets" is judged with its path (UnderContainer): a list of
	// permission names is not secret.
	for _, n := range []string{"settings", "properties", "tags", "secretsEnabled", "secret", "secrets"} {
		if Container(n) {
			t.Errorf("%s should not be a secret container", n)
		}
	}
}

// LikeCredential is the broader name test a log applies; every name the
// rule takes for a credential is one (secureValue, keyValue were not, so
// the log had to ask both and one site forgot).
func TestLikeCredential(t *testing.T) {
	for name, want := range map[string]bool{
		"password": true, "adminPassword": true, "SECRET": true, "accessToken": true,
		"connectionString": true, "primaryKey": true, "keys": true, "key1": true, "sig": true,
		"secureValue": true, "keyValue": true, "publicKey": true,
		"location": false, "sku": false, "keyVaultUri": false, "tier": false, "name": false, "value": false,
	} {
		if got := LikeCredential(name); got != want {
			t.Errorf("LikeCredential(%q) = %v, want %v", name, got, want)
		}
		if CredentialName(name) && !LikeCredential(name) {
			t.Errorf("%q is a credential name the log would not hide", name)
		}
	}
}
