package secret

import (
	"slices"
	"sort"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
)

type fakeFacts map[string]bool

func (f fakeFacts) SecretAt(p bodypath.Path) bool { return f[p.Display()] }

// TestRuleAt is the one rule, case by case: every source of sensitivity,
// and the values that only look like secrets.
func TestRuleAt(t *testing.T) {
	const (
		kvSecret = "Microsoft.KeyVault/vaults/secrets"
		vault    = "Microsoft.KeyVault/vaults"
		config   = "Microsoft.Web/sites/config"
		site     = "Microsoft.Web/sites"
		vm       = "Microsoft.Compute/virtualMachines/extensions"
		adf      = "Microsoft.DataFactory/factories/linkedservices"
		app      = "Microsoft.App/containerApps"
	)
	tests := []struct {
		typ, name string
		facts     Facts
		extra     []string
		path      string
		value     any
		want      bool
	}{
		// Per-type rules: neutral names that hold secrets.
		{kvSecret, "db", nil, nil, "properties.value", "s3cr3t", true},
		{kvSecret, "db", nil, nil, "properties.contentType", "text/plain", false},
		{config, "appsettings", nil, nil, "properties.DB_CONN", "Server=x", true},
		{config, "AppSettings", nil, nil, "properties.*", "x", true},
		{config, "connectionstrings", nil, nil, "properties.db.value", "Server=x", true},
		{config, "connectionstrings", nil, nil, "properties.db.type", "SQLAzure", false},
		{config, "web", nil, nil, "properties.numberOfWorkers", "2", false},
		{site, "app", nil, nil, "properties.siteConfig.appSettings[0].value", "x", true},
		{site, "app", nil, nil, "properties.siteConfig.appSettings[name=A].value", "x", true},
		{site, "app", nil, nil, "properties.siteConfig.appSettings[0].name", "A", false},
		{site, "app", nil, nil, "properties.siteConfig.connectionStrings[0].connectionString", "x", true},
		// Containers.
		{vm, "ext", nil, nil, "properties.protectedSettings.commandToExecute", "echo", true},
		{vm, "ext", nil, nil, "properties.settings.commandToExecute", "echo", false},
		{adf, "ls", nil, nil, "properties.typeProperties.connectionString.value", "Server=x", true},
		{adf, "ls", nil, nil, "properties.typeProperties.connectionString.type", "SecureString", false},
		{adf, "ls", nil, nil, "properties.typeProperties.password.value", "pw", true},
		{app, "a", nil, nil, "properties.configuration.secrets[0].value", "pw", true},
		{app, "a", nil, nil, "properties.configuration.secrets[name=db].value", "pw", true},
		{app, "a", nil, nil, "properties.configuration.secrets[0].name", "db", false},
		// Item 8: a list of permission names is not secret.
		{vault, "kv", nil, nil, "properties.accessPolicies[0].permissions.secrets[0]", "get", false},
		{vault, "kv", nil, nil, "properties.accessPolicies[0].permissions.secrets[*]", "list", false},
		{vault, "kv", nil, nil, "properties.accessPolicies[0].permissions.keys[1]", "get", false},
		// Names.
		{vault, "kv", nil, nil, "properties.adminPassword", "pw", true},
		{vault, "kv", nil, nil, "properties.adminPassword", true, false},
		{vault, "kv", nil, nil, "properties.enableSoftDelete", true, false},
		// Schema facts and valueFrom paths.
		{vault, "kv", fakeFacts{"properties.opaque": true}, nil, "properties.opaque", "x", true},
		{vault, "kv", nil, []string{"tags.key"}, "tags.key", "x", true},
		{vault, "kv", nil, []string{"tags.key"}, "tags.other", "x", false},
		{vault, "kv", nil, []string{"properties.blob"}, "properties.blob.inner[0]", 3, true},
		{"", "", nil, nil, "properties.value", "x", false},
	}
	for _, tt := range tests {
		r := For(tt.typ, tt.name, tt.facts, tt.extra...)
		if got := r.At(mustPath(t, tt.path), tt.value); got != tt.want {
			t.Errorf("%s %s: At(%s, %v) = %v, want %v", tt.typ, tt.name, tt.path, tt.value, got, tt.want)
		}
	}
}

func TestRef(t *testing.T) {
	const sub = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/"
	tests := []struct {
		target, path string
		valueFrom    []string
		want         bool
	}{
		{sub + "Microsoft.KeyVault/vaults/kv/secrets/db", "properties.value", nil, true},
		{sub + "Microsoft.KeyVault/vaults/kv/secrets/db", "properties", nil, true}, // contains the value
		{sub + "Microsoft.KeyVault/vaults/kv/secrets/db", "properties.secretUri", nil, false},
		{sub + "Microsoft.Insights/components/ai", "properties.ConnectionString", nil, true},
		{sub + "Microsoft.ManagedIdentity/userAssignedIdentities/id", "properties.principalId", nil, false},
		{sub + "Microsoft.Web/sites/app/config/appsettings", "properties.ANY_KEY", nil, true},
		{sub + "Microsoft.Storage/storageAccounts/sa", "tags.fromEnv", []string{"tags.fromEnv"}, true},
		{sub + "Microsoft.Storage/storageAccounts/sa", "tags.other", []string{"tags.fromEnv"}, false},
		{"/x", "keys[0].primaryKey", nil, true},
	}
	for _, tt := range tests {
		if got := Ref(tt.target, tt.path, tt.valueFrom...); got != tt.want {
			t.Errorf("Ref(%s, %s) = %v, want %v", tt.target, tt.path, got, tt.want)
		}
	}
}

// TestResourceKey: equal secrets of two resources, or at two paths, get
// different hashes; a hash written with the state key alone (before
// hashes were salted per resource) still matches.
func TestResourceKey(t *testing.T) {
	state := []byte("0123456789abcdef0123456789abcdef")
	a := ResourceKey(state, "/subscriptions/s/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/kv/secrets/a")
	b := ResourceKey(state, "/subscriptions/s/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/kv/secrets/b")
	aUpper := ResourceKey(state, "/SUBSCRIPTIONS/s/resourceGroups/RG/providers/Microsoft.KeyVault/vaults/kv/secrets/A")
	ha, hb := Hash(a, "properties.value", "same"), Hash(b, "properties.value", "same")
	if ha == hb {
		t.Fatal("equal secrets of two resources share a hash")
	}
	if ha == Hash(a, "tags.*", "same") {
		t.Fatal("equal secrets at two paths share a hash")
	}
	if Hash(aUpper, "properties.value", "same") != ha {
		t.Error("the resource key depends on the ID's casing")
	}
	if string(ResourceKey(a, "/other")) != string(a) {
		t.Error("ResourceKey of a resource key must be the key itself")
	}
	legacy := Hash(state, "properties.value", "same")
	if legacy == ha {
		t.Fatal("per-resource hash equals the state-key hash")
	}
	for _, tt := range []struct {
		key    []byte
		v      any
		hashed string
		want   bool
	}{
		{a, "same", ha, true},
		{a, "same", legacy, true}, // older state
		{a, "other", legacy, false},
		{a, "same", hb, false}, // another resource's hash
		{state, "same", legacy, true},
		{state, "same", ha, false},
		{a, "same", "same", false}, // not a hash
		{nil, "same", ha, false},
	} {
		if got := Matches(tt.key, "properties.value", tt.v, tt.hashed); got != tt.want {
			t.Errorf("Matches(%v, %q) = %v, want %v", tt.v, tt.hashed, got, tt.want)
		}
	}
}

// TestScrubEscapedAndShort: ARM quotes request bodies inside JSON error
// messages, escaping as .NET does (\u003C upper case, \u00c9 for
// non-ASCII), sometimes twice; a secret shorter than four bytes is hidden
// where it is a whole quoted value and nowhere else.
func TestScrubEscapedAndShort(t *testing.T) {
	r := &Registry{}
	r.Register(`<É"pw/\x>`, "ab", "Zz9")
	tests := []struct{ in, leak string }{
		{`{"message":"bad value \u003C\u00c9\"pw\/\\x\u003E"}`, `pw`},
		{`{"message":"bad value \u003c\u00C9\"pw/\\x\u003e"}`, `pw`},
		{`{"message":"{\\\"v\\\":\\\"\\u003C\\u00c9\\\\\\\"pw\\/\\\\\\\\x\\u003E\\\"}"}`, `pw`},
		{`<É"pw/\x> in plain text`, `pw`},
		{`{"adminPassword":"ab"}`, `"ab"`},
		{`{"message":"{\"adminPassword\":\"ab\"}"}`, `\"ab\"`},
		{`The value 'ab' is too short`, `'ab'`},
		{`{"message":"invalid \"Zz9\""}`, `Zz9`},
	}
	for _, tt := range tests {
		got := r.Scrub(tt.in)
		if contains(got, tt.leak) {
			t.Errorf("Scrub(%s) = %s: leaks %s", tt.in, got, tt.leak)
		}
	}
	// Short values are not hunted inside words.
	for _, keep := range []string{`table abc`, `{"name":"abc"}`, `about`, `"Zz99"`} {
		if got := r.Scrub(keep); got != keep {
			t.Errorf("Scrub(%s) = %s, want it unchanged", keep, got)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestHashedPaths(t *testing.T) {
	h := Hash([]byte("k"), "p", "v")
	body := map[string]any{
		"properties": map[string]any{"password": h, "plain": "x", "keys": []any{h, "y", map[string]any{"value": h}}},
		"tags":       map[string]any{"a.b": h},
	}
	got := HashedPaths(body)
	sort.Strings(got)
	want := []string{"properties.keys[0]", "properties.keys[2].value", "properties.password", `tags."a.b"`}
	if !slices.Equal(got, want) {
		t.Errorf("HashedPaths = %q, want %q", got, want)
	}
	if got := HashedPaths(h); len(got) != 0 {
		t.Errorf("a hash as the whole body has no path: %q", got)
	}
}

func mustPath(t *testing.T, s string) bodypath.Path {
	t.Helper()
	p, err := bodypath.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
