package cli_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// The secret rule end to end: every place a value can surface (plans in
// every format, saved plans, state, import, get) against the in-process
// emulator, with bodies shaped as the Azure SDKs send them.

// writeManifest adds a manifest file to the environment's directory.
func (e *env) writeManifest(name, text string) {
	e.t.Helper()
	if err := os.WriteFile(filepath.Join(e.dir, name), []byte(text), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// noLeak fails when any text holds the secret.
func noLeak(t *testing.T, clear string, texts map[string]string) {
	t.Helper()
	for where, text := range texts {
		if strings.Contains(text, clear) {
			t.Errorf("%s shows the secret %q:\n%s", where, clear, text)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// stateFiles is the text of the state file and everything beside it
// (journal, backup).
func (e *env) stateFiles() map[string]string {
	e.t.Helper()
	out := map[string]string{}
	entries, _ := os.ReadDir(filepath.Dir(e.state))
	for _, en := range entries {
		p := filepath.Join(filepath.Dir(e.state), en.Name())
		if en.Type().IsRegular() {
			out["state file "+en.Name()] = readFile(e.t, p)
		}
	}
	return out
}

const kvSecretLiteral = "Kv-Literal-S3cret-4a9e"

const kvSecretManifest = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata:
  name: kv-secret-db
spec:
  type: Microsoft.KeyVault/vaults/secrets@2023-07-01
  parent: Microsoft.KeyVault/vaults/kv-demo-001
  body:
    properties:
      value: VALUE
      contentType: text/plain
`

// planAndApply runs diff -o each format (each must find changes: exit 1),
// saves the plan, applies, and puts into texts what each printed, the saved
// plan and the state files: every text a secret must not leak into.
func planAndApply(t *testing.T, e *env, texts map[string]string, formats ...string) {
	t.Helper()
	for _, o := range formats {
		out, errOut, code := e.run("diff", "-f", e.dir, "-o", o)
		if code != 1 {
			t.Fatalf("diff -o %s: exit %d\n%s\n%s", o, code, out, errOut)
		}
		texts["plan -o "+o] = out + errOut
	}
	saved := filepath.Join(t.TempDir(), "plan.json")
	e.mustRun(1, "diff", "-f", e.dir, "--out", saved)
	texts["saved plan"] = readFile(t, saved)
	texts["apply"] = e.mustRun(0, "apply", "-f", e.dir, "--yes")
	for k, v := range e.stateFiles() {
		texts[k] = v
	}
}

// TestSecretsKeyVaultValueWrittenLiterally: a Key Vault secret's value
// is secret by its type, not its name; written literally it must be
// hidden from the plan in every format and the saved plan, and hashed in
// state.
func TestSecretsKeyVaultValueWrittenLiterally(t *testing.T) {
	e := newEnv(t, nil)
	e.writeManifest("kv-secret.yaml", strings.Replace(kvSecretManifest, "VALUE", kvSecretLiteral, 1))
	texts := map[string]string{}
	planAndApply(t, e, texts, "text", "json", "yaml", "markdown")
	noLeak(t, kvSecretLiteral, texts)

	// Unchanged: nothing to do. Changed: a sensitive change, still hidden.
	e.mustRun(0, "diff", "-f", e.dir)
	e.edit("kv-secret.yaml", kvSecretLiteral, kvSecretLiteral+"-v2")
	out, errOut, code := e.run("diff", "-f", e.dir, "-o", "json")
	if code != 1 || !strings.Contains(out, "(sensitive)") {
		t.Fatalf("a changed secret value must be a sensitive change: exit %d\n%s\n%s", code, out, errOut)
	}
	noLeak(t, kvSecretLiteral, map[string]string{"plan of the change": out + errOut})
}

// TestSecretsOlderStateHashesStillMatch: state written before hashes were
// salted per resource (secret.Hash with the state key alone) still
// compares equal: no change is planned for an unchanged secret.
func TestSecretsOlderStateHashesStillMatch(t *testing.T) {
	e := newEnv(t, nil)
	e.writeManifest("kv-secret.yaml", strings.Replace(kvSecretManifest, "VALUE", kvSecretLiteral, 1))
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	keyText := readFile(t, e.state+".key")
	key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(keyText))
	if err != nil {
		t.Fatal(err)
	}
	id := rg("rg-demo") + "/providers/Microsoft.KeyVault/vaults/kv-demo-001/secrets/kv-secret-db"
	salted := secret.Hash(secret.ResourceKey(key, id), "properties.value", kvSecretLiteral)
	legacy := secret.Hash(key, "properties.value", kvSecretLiteral)
	found := false
	dir := filepath.Dir(e.state)
	entries, _ := os.ReadDir(dir)
	for _, en := range entries {
		p := filepath.Join(dir, en.Name())
		text := readFile(t, p)
		if strings.Contains(text, salted) {
			found = true
			if err := os.WriteFile(p, []byte(strings.ReplaceAll(text, salted, legacy)), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !found {
		t.Fatalf("state does not hold the per-resource hash of the secret:\n%v", e.stateFiles())
	}
	out := e.mustRun(0, "diff", "-f", e.dir)
	if strings.Contains(out, "properties.value") {
		t.Errorf("an older hash of an unchanged secret is planned as a change:\n%s", out)
	}
	// And a changed value is still seen through the older hash.
	e.edit("kv-secret.yaml", kvSecretLiteral, kvSecretLiteral+"-v2")
	e.mustRun(1, "diff", "-f", e.dir)
}

// TestSecretsEqualValuesDoNotShareAHash: two Key Vault secrets with the
// same value are stored under different hashes, so state does not reveal
// the reuse.
func TestSecretsEqualValuesDoNotShareAHash(t *testing.T) {
	e := newEnv(t, nil)
	e.writeManifest("kv-secret.yaml", strings.Replace(kvSecretManifest, "VALUE", kvSecretLiteral, 1))
	e.writeManifest("kv-secret2.yaml", strings.Replace(strings.Replace(kvSecretManifest, "VALUE", kvSecretLiteral, 1), "kv-secret-db", "kv-secret-db2", 1))
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	text := readFile(t, e.state)
	hashes := regexp.MustCompile(`hmac-sha256:[A-Za-z0-9+/=]+`).FindAllString(text, -1)
	seen := map[string]bool{}
	for _, h := range hashes {
		if seen[h] {
			t.Errorf("two secrets share the hash %s", h)
		}
		seen[h] = true
	}
	if len(hashes) < 2 {
		t.Fatalf("expected both secrets hashed in state, found %d hashes", len(hashes))
	}
}

// TestSecretsAccessPolicyPermissionsAreDrift: a Key Vault access policy's
// permissions.secrets is a list of permission names, not secrets: a
// permission granted outside the tool is drift, shown in clear, and
// diff --drift-only exits 1.
func TestSecretsAccessPolicyPermissionsAreDrift(t *testing.T) {
	e := newEnv(t, nil)
	const oid = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
	e.edit("keyvault.yaml", "      enableRbacAuthorization: true\n", `      enableRbacAuthorization: false
      accessPolicies:
        - tenantId: 8e2a4c1d-3b5f-4e7a-9c0d-6f1b2a3c4d5e
          objectId: `+oid+`
          permissions:
            secrets: [get, list]
            keys: [get]
`)
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	e.mustRun(0, "diff", "-f", e.dir, "--drift-only")
	kv := rg("rg-demo") + "/providers/Microsoft.KeyVault/vaults/kv-demo-001"
	live, code := e.live(kv, "2023-07-01")
	if code != 200 {
		t.Fatalf("GET vault: %d", code)
	}
	pol := live["properties"].(map[string]any)["accessPolicies"].([]any)[0].(map[string]any)
	pol["permissions"].(map[string]any)["secrets"] = []any{"get", "list", "delete", "purge"}
	if err := e.srv.Seed(kv, "2023-07-01", live); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := e.run("diff", "-f", e.dir, "--drift-only", "-o", "json")
	if code != 1 {
		t.Fatalf("a permission granted outside the tool: diff --drift-only exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, `"drift"`) || !strings.Contains(out, "purge") {
		t.Errorf("the drift must be shown, in clear:\n%s", out)
	}
}

// TestSecretsReachedThroughRef: a value read with ${ref:NAME.PATH} from a
// path that is secret by its type (a Key Vault secret's value) is as
// secret where it is used: hidden in plans and saved plans, hashed in
// state.
func TestSecretsReachedThroughRef(t *testing.T) {
	e := newEnv(t, nil)
	const clear = "Ref-Reached-S3cret-77b1"
	kvs := rg("rg-demo") + "/providers/Microsoft.KeyVault/vaults/kv-demo-001/secrets/kv-secret-db"
	e.writeManifest("kv-secret.yaml", strings.Replace(kvSecretManifest, "VALUE", clear, 1))
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	// The service returns the value (a preview API, an RP that echoes it):
	// whatever it answers, a reference to it is secret.
	if err := e.srv.Seed(kvs, "2023-07-01", map[string]any{"properties": map[string]any{"value": clear, "contentType": "text/plain"}}); err != nil {
		t.Fatal(err)
	}
	e.edit("storage.yaml", "    tags: {app: demo, env: dev}\n", "    tags: {app: demo, env: dev, db: \"${ref:kv-secret-db.properties.value}\"}\n")
	texts := map[string]string{}
	planAndApply(t, e, texts, "text", "json", "markdown")
	texts["plan after apply"] = e.mustRun(0, "diff", "-f", e.dir, "-o", "json")
	noLeak(t, clear, texts)
	if !strings.Contains(texts["plan -o json"], "tags.db") {
		t.Errorf("the tag is not planned:\n%s", texts["plan -o json"])
	}
}

// TestSecretsGetHidesActionValues: get prints live bodies; a listKeys
// value the manifest routes into a tag is secret there in every format.
func TestSecretsGetHidesActionValues(t *testing.T) {
	e := newEnv(t, nil)
	e.edit("keyvault.yaml", "    tags: {app: demo, env: dev}\n", `    tags:
      app: demo
      storageKey:
        valueFrom:
          action: {resource: stdemo001, name: listKeys, path: "keys[0].value"}
`)
	texts := map[string]string{"apply": e.mustRun(0, "apply", "-f", e.dir, "--yes")}
	sa := rg("rg-demo") + "/providers/Microsoft.Storage/storageAccounts/stdemo001"
	resp, err := httpPost(e.srv.URL() + sa + "/listKeys?api-version=2023-05-01")
	if err != nil {
		t.Fatal(err)
	}
	var keys struct {
		Keys []struct{ Value string } `json:"keys"`
	}
	if err := json.Unmarshal([]byte(resp.body), &keys); err != nil || len(keys.Keys) == 0 || keys.Keys[0].Value == "" {
		t.Fatalf("listKeys: %v %s", err, resp.body)
	}
	key := keys.Keys[0].Value
	kv, _ := e.live(rg("rg-demo")+"/providers/Microsoft.KeyVault/vaults/kv-demo-001", "2023-07-01")
	if tags, _ := kv["tags"].(map[string]any); tags["storageKey"] != key {
		t.Fatalf("the key was not written to the tag (test setup): %v", kv["tags"])
	}
	for _, args := range [][]string{
		{"get", "-f", e.dir, "-o", "json"},
		{"get", "-f", e.dir, "-o", "yaml"},
		{"get", "-f", e.dir, "kv-demo-001", "-o", "jsonpath={.body.tags.storageKey}"},
		{"get", "Microsoft.KeyVault/vaults/kv-demo-001", "-o", "json"},
		{"get", "Microsoft.KeyVault/vaults/kv-demo-001", "-o", "jsonpath={.body.tags}"},
	} {
		out, errOut, code := e.run(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, out, errOut)
		}
		texts[strings.Join(args, " ")] = out + errOut
	}
	noLeak(t, key, texts)
	if !strings.Contains(texts["get Microsoft.KeyVault/vaults/kv-demo-001 -o json"], `"app": "demo"`) {
		t.Errorf("get hid plain tags too:\n%s", texts["get Microsoft.KeyVault/vaults/kv-demo-001 -o json"])
	}
}

// TestSecretsReferenceToAValueFromPath: a ${ref:NAME.PATH} to a path the
// referenced manifest fills from valueFrom is secret where it is used.
func TestSecretsReferenceToAValueFromPath(t *testing.T) {
	e := newEnv(t, nil)
	const clear = "Env-Reached-S3cret-5c0d"
	t.Setenv("SECRETS_TEST_TAG", clear)
	e.edit("storage.yaml", "    tags: {app: demo, env: dev}\n", "    tags: {app: demo, env: dev, token: {valueFrom: {env: SECRETS_TEST_TAG}}}\n")
	texts := map[string]string{"first apply": e.mustRun(0, "apply", "-f", e.dir, "--yes")}
	// The storage account exists: the reference resolves at plan time.
	e.edit("keyvault.yaml", "    tags: {app: demo, env: dev}\n", "    tags: {app: demo, env: dev, copied: \"${ref:stdemo001.tags.token}\"}\n")
	planAndApply(t, e, texts, "text", "json", "markdown")
	noLeak(t, clear, texts)
	if !strings.Contains(texts["plan -o json"], "tags.copied") {
		t.Errorf("the copied tag is not planned:\n%s", texts["plan -o json"])
	}
	kv, _ := e.live(rg("rg-demo")+"/providers/Microsoft.KeyVault/vaults/kv-demo-001", "2023-07-01")
	if tags, _ := kv["tags"].(map[string]any); tags["copied"] != clear {
		t.Fatalf("the reference was not written (test setup): %v", kv["tags"])
	}
}

// TestSecretsUnderNeutralNamesAreScrubbed: a valueFrom value under a name
// that says nothing (a tag "note", a location) is known only because the
// loader registered it, so only the run's registry keeps it out of -v 8
// request logs and out of ARM's errors, which quote what was sent.
func TestSecretsUnderNeutralNamesAreScrubbed(t *testing.T) {
	e := newEnv(t, nil)
	const clear = "Neutral-S3cret-a41f"
	t.Setenv("SECRETS_TEST_NOTE", clear)
	e.edit("storage.yaml", "    tags: {app: demo, env: dev}\n", "    tags: {app: demo, env: dev, note: {valueFrom: {env: SECRETS_TEST_NOTE}}}\n")
	texts := map[string]string{}
	out, errOut, code := e.run("-v", "8", "apply", "-f", e.dir, "--yes")
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	texts["apply -v 8"] = out + errOut
	out, errOut, _ = e.run("-v", "8", "diff", "-f", e.dir, "-o", "json")
	texts["diff -v 8"] = out + errOut
	if !strings.Contains(texts["apply -v 8"], "PUT") {
		t.Fatalf("-v 8 logged no request (test setup):\n%s", texts["apply -v 8"])
	}
	// ARM's 400 quotes the location it refuses.
	t.Setenv("SECRETS_TEST_LOC", clear)
	e.edit("storage.yaml", "    tags: {app: demo, env: dev, note: {valueFrom: {env: SECRETS_TEST_NOTE}}}\n", "    tags: {app: demo, env: dev}\n")
	e.writeManifest("id-loc.yaml", `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: id-loc}
spec:
  type: Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31
  resourceGroup: rg-demo
  body: {location: {valueFrom: {env: SECRETS_TEST_LOC}}}
`)
	for _, o := range []string{"text", "json"} {
		out, errOut, code = e.run("apply", "-f", e.dir, "--yes", "-o", o)
		if code != 3 || !strings.Contains(out+errOut, "LocationNotAvailableForResourceType") {
			t.Fatalf("apply with a bad location: exit %d, want 3 with ARM's refusal (test setup)\n%s%s", code, out, errOut)
		}
		texts["refused apply -o "+o] = out + errOut
	}
	noLeak(t, clear, texts)
}
