package record

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

const vmID = "/subscriptions/AAAA-1111/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm1"

func body(t *testing.T, s string) map[string]any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// at reads a value by a list of member names.
func at(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[p]
	}
	return v
}

func TestBuildHashesSecrets(t *testing.T) {
	tests := []struct {
		name        string
		desired     string
		live        string
		secretPaths []string
		schema      *schema.Type
		path        []string // where the secret lies in both L and B
		schemaPath  string   // the path its hash is salted with: the schema path, map keys kept
		clear       string
	}{
		{
			name:       "credential name without a schema mark",
			desired:    `{"properties":{"osProfile":{"adminUsername":"azureuser","adminPassword":"Sup3r-Secret!"}}}`,
			live:       `{"properties":{"osProfile":{"adminUsername":"azureuser","adminPassword":"Sup3r-Secret!"}}}`,
			path:       []string{"properties", "osProfile", "adminPassword"},
			schemaPath: "properties.osProfile.adminPassword",
			clear:      "Sup3r-Secret!",
		},
		{
			name:        "valueFrom secret with an ordinary name",
			desired:     `{"properties":{"value":"kv-s3cret-value"}}`,
			live:        `{"properties":{"value":"kv-s3cret-value","contentType":"text"}}`,
			secretPaths: []string{"properties.value"},
			path:        []string{"properties", "value"},
			schemaPath:  "properties.value",
			clear:       "kv-s3cret-value",
		},
		{
			name:       "schema secret mark",
			desired:    `{"properties":{"opaque":"marked-secret"}}`,
			live:       `{"properties":{"opaque":"marked-secret"}}`,
			schema:     &schema.Type{Properties: map[string]*schema.Property{"properties.opaque": {Type: schema.TypeString, Secret: true}}},
			path:       []string{"properties", "opaque"},
			schemaPath: "properties.opaque",
			clear:      "marked-secret",
		},
		{
			name:        "valueFrom map value under a key with a dot",
			desired:     `{"tags":{"a.b":"tag-secret-1","plain":"x"}}`,
			live:        `{"tags":{"a.b":"tag-secret-1","plain":"x"}}`,
			secretPaths: []string{"tags.a.b"},
			path:        []string{"tags", "a.b"},
			schemaPath:  `tags.*"a.b"`,
			clear:       "tag-secret-1",
		},
		{
			name:        "app setting in a schema map",
			desired:     `{"properties":{"DB_CONN":"Server=db;Pwd=abc123"}}`,
			live:        `{"properties":{"DB_CONN":"Server=db;Pwd=abc123","OTHER":"1"}}`,
			secretPaths: []string{"properties.DB_CONN"},
			schema:      &schema.Type{Properties: map[string]*schema.Property{"properties.*": {Type: schema.TypeString}}},
			path:        []string{"properties", "DB_CONN"},
			schemaPath:  `properties.*"DB_CONN"`,
			clear:       "Server=db;Pwd=abc123",
		},
		{
			name:       "inside a credential container",
			desired:    `{"properties":{"protectedSettings":{"commandToExecute":"echo hidden-cmd"}}}`,
			live:       `{"properties":{"protectedSettings":{"commandToExecute":"echo hidden-cmd"}}}`,
			path:       []string{"properties", "protectedSettings", "commandToExecute"},
			schemaPath: "properties.protectedSettings.commandToExecute",
			clear:      "echo hidden-cmd",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := Build(Input{
				ID: vmID, Type: "T", APIVersion: "2024-01-01",
				Desired: body(t, tt.desired), Live: body(t, tt.live),
				SecretPaths: tt.secretPaths, Schema: tt.schema, Key: testKey,
			})
			if err != nil {
				t.Fatal(err)
			}
			want := secret.Hash(secret.ResourceKey(testKey, vmID), tt.schemaPath, tt.clear)
			for name, m := range map[string]map[string]any{"L": rec.LastApplied, "B": rec.Baseline} {
				if got := at(m, tt.path...); got != want {
					t.Errorf("%s at %v = %v, want %s", name, tt.path, got, want)
				}
				b, _ := json.Marshal(m)
				if strings.Contains(string(b), tt.clear) {
					t.Errorf("%s holds the clear secret: %s", name, b)
				}
			}
			// D against L must show no change right after the write. (Live
			// is B itself here: comparing a clear S with a hashed B is the
			// diff's drift rule, tested there.)
			res := diff.Compute(diff.Input{
				Desired: body(t, tt.desired), Live: rec.Baseline,
				LastApplied: rec.LastApplied, Baseline: rec.Baseline,
				Schema: tt.schema, SecretKey: testKey, ID: vmID,
			})
			if len(res.Changes) != 0 {
				t.Errorf("diff right after the write: %+v", res.Changes)
			}
		})
	}
}

func TestBuildKeepsIdentifiersAndPlainValues(t *testing.T) {
	rec, err := Build(Input{
		ID:      vmID,
		Desired: body(t, `{"location":"westeurope","properties":{"secrets":[{"name":"s1","value":"hunter22"}],"enabled":true,"count":12345678901234567890}}`),
		Live:    body(t, `{"location":"westeurope","properties":{"secrets":[{"name":"s1","value":"hunter22"}],"enabled":true,"count":12345678901234567890}}`),
		Key:     testKey,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []map[string]any{rec.LastApplied, rec.Baseline} {
		items := at(m, "properties", "secrets").([]any)
		item := items[0].(map[string]any)
		if item["name"] != "s1" {
			t.Errorf("secret entry name = %v, want s1", item["name"])
		}
		if !secret.IsHash(item["value"]) {
			t.Errorf("secret entry value not hashed: %v", item["value"])
		}
		if at(m, "location") != "westeurope" || at(m, "properties", "enabled") != true {
			t.Errorf("plain values changed: %v", m)
		}
		if n := at(m, "properties", "count"); n != json.Number("12345678901234567890") {
			t.Errorf("count = %#v, want the exact json.Number", n)
		}
	}
}

func TestBuildHashesSecretValueCopiedElsewhere(t *testing.T) {
	// ARM echoes a valueFrom secret under another property: B must not keep it.
	rec, err := Build(Input{
		ID:          vmID,
		Desired:     body(t, `{"properties":{"value":"copied-secret-9","note":"n"}}`),
		Live:        body(t, `{"properties":{"value":"copied-secret-9","note":"copied-secret-9"}}`),
		SecretPaths: []string{"properties.value"},
		Owned:       []string{"properties.note", "properties.value"},
		Key:         testKey,
	})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rec.Baseline)
	if strings.Contains(string(b), "copied-secret-9") {
		t.Errorf("B holds the clear secret: %s", b)
	}
}

func TestBuildMetadata(t *testing.T) {
	rec, err := Build(Input{ID: vmID, Type: "Microsoft.Compute/virtualMachines", APIVersion: "2024-03-01",
		Set: "prod", Origin: "vm.yaml#0", Etag: `W/"1"`, Desired: map[string]any{"location": "x"}, Key: testKey})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Subscription != "aaaa-1111" {
		t.Errorf("Subscription = %q, want aaaa-1111 (from the ID, lower-cased)", rec.Subscription)
	}
	if rec.Set != "prod" || rec.Origin != "vm.yaml#0" || rec.Etag != `W/"1"` || rec.Updated.IsZero() {
		t.Errorf("metadata not carried: %+v", rec)
	}
	if rec.Baseline != nil {
		t.Errorf("Baseline = %v, want nil without a live body", rec.Baseline)
	}
	rec, err = Build(Input{ID: vmID, Subscription: "BBBB", Key: testKey})
	if err != nil || rec.Subscription != "bbbb" {
		t.Errorf("explicit subscription: %v, %v", rec, err)
	}
}

func TestBuildErrors(t *testing.T) {
	if _, err := Build(Input{Key: testKey}); err == nil {
		t.Error("no ID: want an error")
	}
	if _, err := Build(Input{ID: vmID}); err == nil || !strings.Contains(err.Error(), "SecretKey") {
		t.Errorf("no key: err = %v, want one naming SecretKey", err)
	}
}

// Types that keep secrets under neutral names: the value of a Key Vault
// secret and every App Service app setting, whatever the schema says.
func TestBuildHashesNeutralNamedSecrets(t *testing.T) {
	const rg = "/subscriptions/s1/resourceGroups/rg/providers/"
	tests := []struct {
		id, typ, body string
		path          []string
		clear         string
	}{
		{rg + "Microsoft.KeyVault/vaults/kv/secrets/db", "Microsoft.KeyVault/vaults/secrets",
			`{"properties":{"value":"kv-clear-value","contentType":"text"}}`, []string{"properties", "value"}, "kv-clear-value"},
		{rg + "Microsoft.Web/sites/app/config/appsettings", "Microsoft.Web/sites/config",
			`{"properties":{"DB_HOST":"db.internal.example","FEATURE":"on-feature"}}`, []string{"properties", "DB_HOST"}, "db.internal.example"},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			rec, err := Build(Input{ID: tt.id, Type: tt.typ, Desired: body(t, tt.body), Live: body(t, tt.body), Key: testKey})
			if err != nil {
				t.Fatal(err)
			}
			for name, m := range map[string]map[string]any{"L": rec.LastApplied, "B": rec.Baseline} {
				if got := at(m, tt.path...); !secret.IsHash(got) {
					t.Errorf("%s at %v = %v, want a hash", name, tt.path, got)
				}
				if b, _ := json.Marshal(m); strings.Contains(string(b), tt.clear) {
					t.Errorf("%s holds the clear secret: %s", name, b)
				}
			}
		})
	}
	// Other configs of a site are ordinary settings.
	rec, err := Build(Input{ID: rg + "Microsoft.Web/sites/app/config/web", Type: "Microsoft.Web/sites/config",
		Desired: body(t, `{"properties":{"alwaysOn":"yes-please"}}`), Key: testKey})
	if err != nil || at(rec.LastApplied, "properties", "alwaysOn") != "yes-please" {
		t.Errorf("site web config hashed: %v %v", rec, err)
	}
}

// A Key Vault access policy's permissions.secrets lists permission names:
// stored as they are, so a permission changed outside the tool is drift.
func TestBuildKeepsPermissionNames(t *testing.T) {
	const kv = "/subscriptions/s1/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/kv"
	b := `{"properties":{"accessPolicies":[{"tenantId":"t","objectId":"o","permissions":{"secrets":["get","list"],"keys":["get"]}}]}}`
	rec, err := Build(Input{ID: kv, Type: "Microsoft.KeyVault/vaults", Desired: body(t, b), Live: body(t, b), Key: testKey})
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]map[string]any{"L": rec.LastApplied, "B": rec.Baseline} {
		if s, _ := json.Marshal(m); strings.Contains(string(s), secret.HashPrefix) || !strings.Contains(string(s), `"secrets":["get","list"]`) {
			t.Errorf("%s hashes permission names: %s", name, s)
		}
	}
}

// Equal secrets of two resources are stored under different hashes.
func TestBuildSaltsPerResource(t *testing.T) {
	const rg = "/subscriptions/s1/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/kv/secrets/"
	var hashes []any
	for _, id := range []string{rg + "a", rg + "b"} {
		rec, err := Build(Input{ID: id, Type: "Microsoft.KeyVault/vaults/secrets", Desired: body(t, `{"properties":{"value":"same-value-1"}}`), Key: testKey})
		if err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, at(rec.LastApplied, "properties", "value"))
	}
	if !secret.IsHash(hashes[0]) || hashes[0] == hashes[1] {
		t.Errorf("hashes of one value in two resources: %v", hashes)
	}
}
