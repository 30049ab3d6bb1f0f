package convert_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert"
)

// sasTemplate is the quickstart pattern: a script URI under
// _artifactsLocation with the secure SAS token appended.
func sasTemplate(sasDefault string) string {
	return `{` + schema + `,
  "parameters": {
    "_artifactsLocation": {"type": "string", "defaultValue": "https://example.org/qs/app/"},
    "_artifactsLocationSasToken": {"type": "securestring"` + sasDefault + `}},
  "resources": [{"type": "Microsoft.Resources/tags", "apiVersion": "2022-09-01", "name": "default",
    "properties": {"tags": {
      "script": "[uri(parameters('_artifactsLocation'), concat('scripts/install.sh', parameters('_artifactsLocationSasToken')))]",
      "formatted": "[format('{0}?x=1&{1}', parameters('_artifactsLocation'), parameters('_artifactsLocationSasToken'))]"}}}]}`
}

// TestSecureInURI: uri() over a secure SAS token resolves the known part
// as ARM does and appends the token; the whole value is a secret
// template reading the parameter's variable.
func TestSecureInURI(t *testing.T) {
	out, res := convertText(t, sasTemplate(`, "defaultValue": ""`), convert.Scope{})
	wantAll(t, out,
		"script:\n          valueFrom:\n            secrets:\n              s0:\n                env: ARTIFACTS_LOCATION_SAS_TOKEN\n            template: https://example.org/qs/app/scripts/install.sh${secret:s0}",
		"template: https://example.org/qs/app/?x=1&${secret:s0}",
	)
	if len(res.Env) != 1 || res.Env[0].Name != "ARTIFACTS_LOCATION_SAS_TOKEN" {
		t.Errorf("env = %v", res.Env)
	}
	for _, n := range res.Notes {
		if strings.Contains(n, "uri()") {
			t.Errorf("a default known to be empty needs no assumption: %q", n)
		}
	}
	// With no value known, the shape is assumed and said so.
	_, res = convertText(t, sasTemplate(""), convert.Scope{Parameters: map[string]any{}})
	if !hasNote(res, "secure parameter _artifactsLocationSasToken is taken to be empty or a query string") {
		t.Errorf("notes = %q, want the assumption named", res.Notes)
	}
}

// TestSecureInURIRefused: a given value that is no query would resolve
// differently: refused, without the value in the message.
func TestSecureInURIRefused(t *testing.T) {
	tmpl, err := convert.Parse("t.json", []byte(sasTemplate("")))
	if err != nil {
		t.Fatal(err)
	}
	_, err = tmpl.Convert(context.Background(), convert.Options{Scope: convert.Scope{ResourceGroup: "rg", Location: "westeurope",
		Parameters: map[string]any{"_artifactsLocationSasToken": "../secret-path-xyz"}}})
	if err == nil || !strings.Contains(err.Error(), "uri needs a value known only at deploy time (parameter _artifactsLocationSasToken (secure))") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "secret-path-xyz") {
		t.Fatalf("the secret is in the error: %v", err)
	}
}

func hasNote(res *convert.Result, s string) bool {
	for _, n := range res.Notes {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// TestKeyVaultParameter: a string parameter given by a Key Vault reference
// in a parameters file is a secret read from the environment, as a secure
// one is, not a parameter without a value.
func TestKeyVaultParameter(t *testing.T) {
	ps, err := convert.ParseParameters("p.json", []byte(`{"parameters": {"cert": {"reference": {"keyVault": {"id": "/subscriptions/s/resourceGroups/g/providers/Microsoft.KeyVault/vaults/kv"}, "secretName": "c"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	out, res := convertText(t, `{`+schema+`,
  "parameters": {"cert": {"type": "string"}},
  "resources": [{"type": "Microsoft.Resources/tags", "apiVersion": "2022-09-01", "name": "default",
    "properties": {"tags": {"c": "[parameters('cert')]"}}}]}`, convert.Scope{Parameters: ps})
	wantAll(t, out, "c:\n          valueFrom:\n            env: CERT")
	if len(res.Env) != 1 || res.Env[0].Name != "CERT" || !hasNote(res, "Key Vault reference") {
		t.Errorf("env = %v, notes = %q", res.Env, res.Notes)
	}
}

// TestSecureParamCredentialName: a secure parameter whose variable would
// be one of the tool's own credential variables, which manifests may not
// read, gets a variable of its own.
func TestSecureParamCredentialName(t *testing.T) {
	out, res := convertText(t, `{`+schema+`,
  "parameters": {"azureClientSecret": {"type": "securestring"}},
  "resources": [{"type": "Microsoft.Resources/tags", "apiVersion": "2022-09-01", "name": "default",
    "properties": {"tags": {"c": "[parameters('azureClientSecret')]"}}}]}`, convert.Scope{Parameters: map[string]any{}})
	wantAll(t, out, "env: TEMPLATE_AZURE_CLIENT_SECRET")
	if len(res.Env) != 1 || res.Env[0].Name != "TEMPLATE_AZURE_CLIENT_SECRET" {
		t.Errorf("env = %v", res.Env)
	}
}
