package cli_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateConvert = flag.Bool("update-convert", false, "rewrite the convert golden files")

// goldenQuickstarts are converted by TestConvertGolden: the applied ones
// and those the emulator cannot apply.
func goldenQuickstarts() map[string][]string {
	out := map[string][]string{
		"rbac-managedidentity-maps": {"--param", "mapsAccountName=maps-conv-e2e", "--param", "userAssignedIdentityName=id-conv-e2e"},
		// uri() and replace() over the secure SAS token of _artifactsLocation.
		"vm-custom-script-windows": {"--param", "_artifactsLocation=https://raw.githubusercontent.com/Azure/azure-quickstart-templates/ef296f0f7e9292209f190043b528b11862b5db19/quickstarts/microsoft.compute/vm-custom-script-windows/"},
	}
	for k, v := range quickstarts {
		out[k] = v
	}
	return out
}

// TestConvertGolden: the manifests of each quickstart are exactly the
// reviewed ones in testdata/convert/NAME/manifests.golden.yaml (stdout)
// and stderr.golden (what the manifests need, the outputs).
func TestConvertGolden(t *testing.T) {
	for name, params := range goldenQuickstarts() {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(convertDir, name)
			args := []string{filepath.Join(dir, "azuredeploy.json"), "--resource-group", "rg-" + name, "--location", "westeurope"}
			if _, err := os.Stat(filepath.Join(dir, "azuredeploy.parameters.json")); err == nil {
				args = append(args, "--parameters", filepath.Join(dir, "azuredeploy.parameters.json"))
			}
			out, errOut, code := runConvert(t, append(args, params...)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			golden(t, filepath.Join(dir, "manifests.golden.yaml"), out)
			golden(t, filepath.Join(dir, "stderr.golden"), errOut)
		})
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *updateConvert {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-convert to write it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestConvertSecrets: a secureString parameter becomes valueFrom.env named
// after it, listed on stderr; its value (from a default or a parameters
// file) is nowhere in the output.
func TestConvertSecrets(t *testing.T) {
	dir := t.TempDir()
	tmpl := writeFile(t, dir, "t.json", `{
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "parameters": {
    "adminPassword": {"type": "secureString", "defaultValue": "Default-Secret-1!"},
    "prefix": {"type": "string"}
  },
  "resources": [{
    "type": "Microsoft.Web/sites", "apiVersion": "2023-01-01", "name": "[concat(parameters('prefix'), '-app')]",
    "location": "[resourceGroup().location]",
    "properties": {"siteConfig": {"appSettings": [
      {"name": "PASSWORD", "value": "[parameters('adminPassword')]"},
      {"name": "CONN", "value": "[concat('Server=db;Password=', parameters('adminPassword'), ';')]"}
    ]}}
  }]
}`)
	params := writeFile(t, dir, "p.json", `{"parameters": {"adminPassword": {"value": "File-Secret-2!"}, "prefix": {"value": "demo"}}}`)
	out, errOut, code := runConvert(t, tmpl, "--parameters", params, "--resource-group", "rg-s", "--location", "westeurope")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, secret := range []string{"Default-Secret-1!", "File-Secret-2!"} {
		if strings.Contains(out+errOut, secret) {
			t.Errorf("the secret %q is in the output:\n%s\n%s", secret, out, errOut)
		}
	}
	if !strings.Contains(errOut, "environment variable ADMIN_PASSWORD ") {
		t.Errorf("stderr does not name ADMIN_PASSWORD:\n%s", errOut)
	}
	for _, want := range []string{"valueFrom:\n                env: ADMIN_PASSWORD", "template: Server=db;Password=${secret:s0};", "name: demo-app"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestConvertBadInput: bad input exits 2 naming file, JSON path and line,
// and --output-dir stays empty.
func TestConvertBadInput(t *testing.T) {
	head := `{"$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
`
	tests := []struct {
		name, text, want string
		args             []string
	}{
		{"not-json", "{\n  \"a\": [1,\n}", "t.json#0 (line 3): not JSON", nil},
		{"not-template", `{"a": 1}`, "not an ARM template", nil},
		{"unknown-function", head + `"resources": [{"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-01-01",
 "name": "[nosuch('x')]"}]}`, "t.json#0 (line 3): resources[0].name: [nosuch('x')]: unknown function nosuch()", nil},
		{"no-value", head + `"parameters": {"p": {"type": "string"}},
"resources": []}`, "t.json#0 (line 2): parameters.p: parameter p has no value", nil},
		{"type-mismatch", head + `"parameters": {"n": {"type": "int"}},
"resources": []}`, "parameters.n: parameter n: want a value of type int, got string", []string{"--param", "n=abc"}},
		{"new-guid", head + `"resources": [{"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-01-01",
 "name": "[newGuid()]"}]}`, "t.json#0 (line 3): resources[0].name: [newGuid()]: newGuid needs a value known only at deploy time", nil},
		{"linked", head + `"resources": [{"type": "Microsoft.Resources/deployments", "apiVersion": "2022-09-01", "name": "linked",
 "properties": {"mode": "Incremental",
   "templateLink": {"uri": "https://example.org/t.json"}}}]}`, "t.json#0 (line 4): resources[0].properties.templateLink: a linked template (https://example.org/t.json) is not converted: give --linked-templates URL_PREFIX=DIR", nil},
		{"linked-flag-without-dir", head + `"resources": []}`, "--linked-templates \"https://example.org/\": want URL_PREFIX=DIR", []string{"--linked-templates", "https://example.org/"}},
		{"linked-dir-missing", head + `"resources": []}`, "no-such-dir is not a directory", []string{"--linked-templates", "https://example.org/=no-such-dir"}},
		{"outside-reference", head + `"resources": [{"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-01-01", "name": "st1",
 "properties": {"x": "[reference(resourceId('Microsoft.Network/virtualNetworks', 'other')).y]"}}]}`, "resources[0].properties.x: reference(resourceId('Microsoft.Network/virtualNetworks', ...)) is known only when deployed: it reads a resource this template does not create", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := writeFile(t, dir, "t.json", tt.text)
			outDir := filepath.Join(dir, "out")
			out, errOut, code := runConvert(t, append([]string{p, "--resource-group", "rg-b", "--location", "westeurope", "--output-dir", outDir}, tt.args...)...)
			if code != 2 {
				t.Fatalf("exit %d, want 2\n%s%s", code, out, errOut)
			}
			if !strings.Contains(errOut, tt.want) {
				t.Errorf("stderr does not say %q:\n%s", tt.want, errOut)
			}
			if _, err := os.Stat(outDir); !os.IsNotExist(err) {
				t.Errorf("--output-dir was written: %v", err)
			}
		})
	}
}

// TestConvertBicepWithoutCLI: a .bicep file without bicep or az on PATH
// exits 2 with the command to run.
func TestConvertBicepWithoutCLI(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "main.bicep", "param location string = resourceGroup().location\n")
	t.Setenv("PATH", dir)
	_, errOut, code := runConvert(t, p, "--resource-group", "rg", "--location", "westeurope")
	if code != 2 || !strings.Contains(errOut, "needs the bicep CLI") || !strings.Contains(errOut, "bicep build "+p+" --outfile") {
		t.Errorf("exit %d, stderr:\n%s", code, errOut)
	}
}

// TestConvertJSONAndPartial: -o json writes JSON documents the tool loads;
// --partial writes what converted and exits 0.
func TestConvertJSONAndPartial(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "t.json", `{"$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "resources": [
    {"type": "Microsoft.ManagedIdentity/userAssignedIdentities", "apiVersion": "2023-01-31", "name": "id-json", "location": "westeurope"},
    {"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-05-01", "name": "[substring(uniqueString(resourceGroup().id), 0, 6)]", "location": "westeurope"}]}`)
	outDir := filepath.Join(dir, "out")
	_, errOut, code := runConvert(t, p, "--resource-group", "rg-json", "--location", "westeurope", "-o", "json", "--partial", "--output-dir", outDir)
	if code != 0 || !strings.Contains(errOut, "warning: ") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	data, err := os.ReadFile(filepath.Join(outDir, "rg-json.json"))
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range strings.Split(string(data), "---\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(d), &m); err != nil {
			t.Errorf("document %d is not JSON: %v\n%s", i, err, d)
		}
	}
	e := newEnv(t, nil)
	e.mustRun(0, "apply", "-f", outDir, "--yes")
	e.mustRun(0, "diff", "-f", outDir)
}
