// Package badinput runs the CLI on bad flags and bad manifests and checks
// three things per case: the exit code (2 for validation, non-zero
// otherwise), the exact message (golden files under testdata; refresh with
// -update), and that nothing reached Azure or the state backend.
package badinput

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

var update = flag.Bool("update", false, "rewrite the golden files from the current output")

const good = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: id-good}
spec:
  type: Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31
  resourceGroup: rg-bad
  body: {location: westeurope}
`

const storage = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: stbad001}
spec:
  type: Microsoft.Storage/storageAccounts@2023-05-01
  resourceGroup: rg-bad
  body:
    location: westeurope
    sku: {name: Standard_LRS}
    kind: StorageV2
`

const keyvault = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: kv-bad-001}
spec:
  type: Microsoft.KeyVault/vaults@2023-07-01
  resourceGroup: rg-bad
  body:
    location: westeurope
    properties:
      tenantId: 8e2a4c1d-3b5f-4e7a-9c0d-6f1b2a3c4d5e
      sku: {family: A, name: ultra}
`

// tc is one bad invocation. Args may use $DIR (the case's directory, which
// holds manifest.yaml from Manifest and the files from Files), $STATE (a
// state path that must not come into existence) and $ENDPOINT.
type tc struct {
	Name     string
	Args     []string
	Manifest string            // written to $DIR/manifest.yaml when set
	Files    map[string]string // more files under $DIR
	Env      map[string]string
	// Links are symbolic links under $DIR (name: target, $DIR expanded);
	// FIFOs are named pipes under $DIR.
	Links map[string]string
	FIFOs []string
	Code  int // 0: any non-zero code except 2 (runtime errors are 3 today)
	// Reads permits GETs: the case fails after planning (confirmation
	// refused), which needs the live state; it must still write nothing.
	Reads bool
}

func cases() []tc {
	f := []string{"-f", "$DIR/manifest.yaml"}
	diff := func(extra ...string) []string { return append(append([]string{"diff"}, f...), extra...) }
	return []tc{
		// Flags and commands.
		// -o and --color are checked only when the plan is printed, after
		// the GETs: nothing is written, but they should fail before any
		// request (reported to the pkg/cli owner); Reads tolerates that.
		{Name: "unknown-output", Args: diff("-o", "xml"), Manifest: good, Code: 2},
		{Name: "get-unknown-output", Args: []string{"get", "-f", "$DIR/manifest.yaml", "-o", "xml"}, Manifest: good, Code: 2},
		{Name: "unknown-color", Args: diff("--color", "purple"), Manifest: good, Code: 2},
		{Name: "unknown-flag", Args: diff("--frobnicate"), Manifest: good, Code: 2},
		{Name: "unknown-command", Args: []string{"frobnicate"}},
		{Name: "diff-positional-arg", Args: []string{"diff", "extra.yaml"}},
		{Name: "missing-f", Args: []string{"diff"}, Code: 2},
		{Name: "apply-missing-f", Args: []string{"apply", "--yes"}, Code: 2},
		{Name: "f-nonexistent-file", Args: []string{"diff", "-f", "$DIR/nope.yaml"}, Code: 2},
		{Name: "k-nonexistent-dir", Args: []string{"diff", "-k", "$DIR/no-overlay"}, Code: 2},
		{Name: "f-and-k", Args: append(diff(), "-k", "$DIR"), Manifest: good, Code: 2},
		{Name: "schema-dir-missing", Args: diff("--schema-dir", "$DIR/no-specs"), Manifest: good},
		{Name: "saved-plan-and-f", Args: append([]string{"apply", "$DIR/plan.json", "--yes"}, f...), Manifest: good, Files: map[string]string{"plan.json": "{}"}, Code: 2},
		{Name: "saved-plan-not-json", Args: []string{"apply", "$DIR/plan.json", "--yes"}, Files: map[string]string{"plan.json": "resources: [\n"}, Code: 2},
		{Name: "saved-plan-missing", Args: []string{"apply", "$DIR/plan.json", "--yes"}, Code: 2},
		{Name: "invalid-selector", Args: diff("-l", "app in ("), Manifest: good, Code: 2},
		{Name: "state-bad-scheme", Args: append([]string{"--state", "s3://bucket/state.json"}, diff()...), Manifest: good, Code: 2},
		{Name: "state-kubernetes-no-set", Args: append([]string{"--state", "kubernetes://only-namespace"}, diff()...), Manifest: good, Code: 2},
		{Name: "state-kubernetes-no-slashes", Args: append([]string{"--state", "kubernetes:infra/prod"}, diff()...), Manifest: good, Code: 2},
		// Bad global flag values are bad input: exit 2 before any request,
		// whichever command is run.
		{Name: "endpoint-plain-http-remote", Args: append([]string{"--endpoint", "http://10.11.12.13:8080"}, diff()...), Manifest: good, Code: 2},
		{Name: "endpoint-not-a-url", Args: append([]string{"--endpoint", "::not a url"}, diff()...), Manifest: good, Code: 2},
		{Name: "endpoint-ftp", Args: append([]string{"--endpoint", "ftp://127.0.0.1/arm"}, diff()...), Manifest: good, Code: 2},
		{Name: "unknown-cloud", Args: append([]string{"--cloud", "mars"}, diff()...), Manifest: good, Code: 2},
		{Name: "unknown-auth", Args: append([]string{"--auth", "bogus"}, diff()...), Manifest: good, Code: 2},
		{Name: "authority-host-not-https", Args: append([]string{"--authority-host", "ftp://login.example"}, diff()...), Manifest: good, Code: 2},
		{Name: "timeout-negative", Args: append([]string{"--timeout", "-5s"}, diff()...), Manifest: good, Code: 2},
		{Name: "concurrency-zero", Args: append([]string{"--concurrency", "0"}, diff()...), Manifest: good, Code: 2},
		{Name: "lock-timeout-negative", Args: append([]string{"--lock-timeout", "-1s"}, diff()...), Manifest: good, Code: 2},
		{Name: "verbosity-negative", Args: append([]string{"-v", "-1"}, diff()...), Manifest: good, Code: 2},
		{Name: "apply-timeout-negative", Args: []string{"--timeout", "-5s", "apply", "-f", "$DIR/manifest.yaml", "--yes"}, Manifest: good, Code: 2},
		{Name: "state-list-unknown-auth", Args: []string{"--auth", "bogus", "state", "list"}, Code: 2},
		{Name: "lock-timeout-not-duration", Args: append([]string{"--lock-timeout", "soon"}, diff()...), Manifest: good, Code: 2},
		{Name: "concurrency-not-int", Args: append([]string{"--concurrency", "many"}, diff()...), Manifest: good, Code: 2},
		{Name: "apply-without-yes-not-terminal", Args: append([]string{"apply"}, f...), Manifest: good, Reads: true, Code: 2},
		{Name: "state-show-without-id", Args: []string{"state", "show"}},
		{Name: "import-malformed-id", Args: []string{"import", "not-an-arm-id"}},

		// Manifests: each fails validation before anything is sent.
		{Name: "malformed-yaml", Args: diff(), Manifest: "apiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata: {name: x\n", Code: 2},
		{Name: "missing-type", Args: diff(), Manifest: strings.Replace(good, "  type: Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31\n", "", 1), Code: 2},
		{Name: "missing-name", Args: diff(), Manifest: strings.Replace(good, "metadata: {name: id-good}", "metadata: {labels: {a: b}}", 1), Code: 2},
		{Name: "wrong-kind", Args: diff(), Manifest: strings.Replace(good, "kind: Resource", "kind: Deployment", 1), Code: 2},
		{Name: "wrong-json-type", Args: diff(), Manifest: strings.Replace(storage, "sku: {name: Standard_LRS}", "sku: {name: [Standard_LRS]}", 1), Code: 2},
		// Key Vault's sku.name is a closed enum (storage kinds are open:
		// modelAsString, a warning only).
		{Name: "bad-enum-value", Args: diff(), Manifest: keyvault, Code: 2},
		{Name: "readonly-with-strict", Args: diff("--strict"), Manifest: storage + "    properties: {provisioningState: Succeeded}\n", Code: 2},
		{Name: "secret-env-missing", Args: diff(), Manifest: storage + "    properties:\n      customDomain: {name: {valueFrom: {env: KUBECTL_AZURE_BADINPUT_UNSET}}}\n", Code: 2},
		{Name: "duplicate-resource", Args: diff(), Manifest: good + "---\n" + good, Code: 2},
		{Name: "dependency-cycle", Args: diff(), Manifest: strings.Replace(good, "body: {location: westeurope}", `body: {location: westeurope, tags: {peer: "${ref:id-b}"}}`, 1) + "---\n" +
			strings.Replace(strings.Replace(good, "id-good", "id-b", 1), "body: {location: westeurope}", `body: {location: westeurope, tags: {peer: "${ref:id-good}"}}`, 1), Code: 2},
		{Name: "unresolvable-reference", Args: diff(), Manifest: strings.Replace(good, "body: {location: westeurope}", `body: {location: westeurope, tags: {peer: "${ref:id-missing}"}}`, 1), Code: 2},
		{Name: "unknown-parent", Args: diff(), Manifest: "apiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata: {name: snet-a}\nspec:\n  type: Microsoft.Network/virtualNetworks/subnets@2024-01-01\n  parent: Microsoft.Network/virtualNetworks/vnet-missing\n  body: {properties: {addressPrefix: 10.0.0.0/24}}\n", Code: 2},
		{Name: "no-placement", Args: diff(), Manifest: strings.Replace(good, "  resourceGroup: rg-bad\n", "", 1), Code: 2},
		{Name: "one-bad-among-good", Args: diff(), Manifest: good + "---\n" + strings.Replace(strings.Replace(good, "id-good", "id-other", 1), "kind: Resource", "kind: Resourse", 1), Code: 2},
		{Name: "apply-bad-manifest", Args: []string{"apply", "-f", "$DIR/manifest.yaml", "--yes"}, Manifest: strings.Replace(storage, "kind: StorageV2", "kind: {name: StorageV2}", 1), Code: 2},
		{Name: "empty-directory", Args: []string{"diff", "-f", "$DIR/empty"}, Files: map[string]string{"empty/README.md": "no manifests here\n"}, Code: 2},
		{Name: "apply-empty-directory", Args: []string{"apply", "-f", "$DIR/empty", "--yes"}, Files: map[string]string{"empty/README.md": "no manifests here\n"}, Code: 2},
		{Name: "delete-selector-matches-none", Args: []string{"delete", "-f", "$DIR/manifest.yaml", "-l", "tier=none", "--yes"}, Manifest: good, Code: 2},
		{Name: "f-dev-zero", Args: []string{"diff", "-f", "/dev/zero"}, Code: 2},
		{Name: "name-dot-dot", Args: diff(), Manifest: strings.Replace(good, "name: id-good", `name: ".."`, 1), Code: 2},
		{Name: "name-escape-sequence", Args: diff(), Manifest: strings.Replace(good, "name: id-good", `name: "id\e[2J"`, 1), Code: 2},
		{Name: "live-value-in-scope", Args: diff(), Manifest: good + "---\n" + strings.Replace(strings.Replace(good, "id-good", "id-two", 1), "resourceGroup: rg-bad", "scope: ${ref:id-good.properties.principalId}", 1), Code: 2},
		// Pipeline inputs (issue 45): nothing a directory holds can block
		// the run or leak another file, and kustomize fetches nothing.
		{Name: "f-dir-fifo", Args: []string{"diff", "-f", "$DIR/infra"}, Files: map[string]string{"infra/id.yaml": good}, FIFOs: []string{"infra/pipe.yaml"}, Code: 2},
		{Name: "f-dir-symlink-outside", Args: []string{"diff", "-f", "$DIR/infra"}, Files: map[string]string{"infra/id.yaml": good, "private/key.yaml": "password: hunter2\n"},
			Links: map[string]string{"infra/leak.yaml": "$DIR/private/key.yaml"}, Code: 2},
		{Name: "k-remote-resource", Args: []string{"diff", "-k", "$DIR/overlay"}, Files: map[string]string{"overlay/kustomization.yaml": "resources:\n- https://example.invalid/infra/id.yaml\n"}, Code: 2},
		{Name: "k-remote-plain-http-allowed", Args: []string{"diff", "-k", "$DIR/overlay", "--allow-remote-kustomize"}, Files: map[string]string{"overlay/kustomization.yaml": "resources:\n- http://example.invalid/infra/id.yaml\n"}, Code: 2},
		{Name: "guid-no-argument", Args: diff(), Manifest: strings.Replace(good, "  resourceGroup: rg-bad\n", "  resourceGroup: rg-bad\n  name: id-${guid:}\n", 1), Code: 2},
		{Name: "out-is-manifest", Args: diff("--out", "$DIR/manifest.yaml"), Manifest: good, Code: 2},
		{Name: "no-subscription", Args: []string{"diff", "-f", "$DIR/manifest.yaml"}, Manifest: good, Code: 2, Env: map[string]string{"AZURE_SUBSCRIPTION_ID": "", "AZURE_CONFIG_DIR": "$DIR/no-azure-cli"}},
	}
}

func TestBadInput(t *testing.T) {
	all := cases()
	if len(all) < 30 {
		t.Fatalf("only %d cases", len(all))
	}
	seen := map[string]bool{}
	for _, c := range all {
		if seen[c.Name] {
			t.Fatalf("duplicate case %s", c.Name)
		}
		seen[c.Name] = true
		t.Run(c.Name, func(t *testing.T) { runCase(t, c) })
	}
}

func runCase(t *testing.T, c tc) {
	a := harness.StartARM(t, harness.FastOptions())
	dir := t.TempDir()
	statePath := filepath.Join(dir, "state", "state.json")
	expand := func(s string) string {
		return strings.NewReplacer("$DIR", dir, "$STATE", statePath, "$ENDPOINT", a.URL).Replace(s)
	}
	if c.Manifest != "" {
		harness.WriteFile(t, filepath.Join(dir, "manifest.yaml"), c.Manifest)
	}
	for name, content := range c.Files {
		harness.WriteFile(t, filepath.Join(dir, name), content)
	}
	for name, target := range c.Links {
		if err := os.Symlink(expand(target), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range c.FIFOs {
		mkfifo(t, filepath.Join(dir, name))
	}
	for k, v := range c.Env {
		t.Setenv(k, expand(v))
	}
	// Flags the case does not set come first, so a case's own --state or
	// --endpoint wins (the last occurrence of a flag is the one used).
	args := []string{"--endpoint", a.URL, "--state", statePath}
	if c.Env == nil || c.Env["AZURE_SUBSCRIPTION_ID"] != "" {
		args = append(args, "--subscription", harness.Sub)
	}
	for _, arg := range c.Args {
		args = append(args, expand(arg))
	}
	// The CLI's default state path is relative to the working directory:
	// run in the case's directory so a stray default-state write shows up.
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	r := harness.RunRaw(args...)
	_ = os.Chdir(wd)

	switch {
	case c.Code != 0 && r.Code != c.Code:
		t.Errorf("exit %d, want %d", r.Code, c.Code)
	case c.Code == 0 && (r.Code == 0 || r.Code == 2):
		t.Errorf("exit %d, want a runtime error (non-zero, not the validation code 2)", r.Code)
	}
	s := a.Stats()
	if w := harness.Writes(s); w != 0 {
		t.Errorf("%d writes reached ARM: %v", w, s.Requests)
	}
	if !c.Reads {
		var n int64
		for _, v := range s.Requests {
			n += v
		}
		if n != 0 {
			t.Errorf("%d requests reached ARM although the input was rejected: %v", n, s.Requests)
		}
	}
	for _, p := range []string{statePath, filepath.Join(dir, ".kubectl-azure", "state.json")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("state was written: %s exists", p)
		}
	}

	got := fmt.Sprintf("exit %d\n", r.Code) + normalize(r.Stdout+r.Stderr, dir, a.URL)
	golden := filepath.Join("testdata", c.Name+".golden")
	if *update {
		harness.WriteFile(t, golden, got)
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./test/badinput -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("message differs from %s\n--- got ---\n%s--- want ---\n%s", golden, got, want)
	}
	if strings.TrimSpace(got) == "" {
		t.Errorf("no message at all")
	}
}

// normalize replaces what differs between runs: the temporary directory
// and the emulator's port.
func normalize(s, dir, endpoint string) string {
	s = strings.ReplaceAll(s, dir, "$DIR")
	s = strings.ReplaceAll(s, strings.TrimPrefix(endpoint, "http://"), "$ENDPOINT")
	return s
}
