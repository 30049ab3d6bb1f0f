package convert_test

import (
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert"
)

// TestBase64OfDeployTimeString: base64() of a string with a secure
// parameter (Azure Stack HCI's "user:password" credential) or a live value
// (a customData script naming a storage endpoint) is the whole value, so
// it becomes a template with encoding: base64; a base64 known now is
// written out encoded.
func TestBase64OfDeployTimeString(t *testing.T) {
	out, res := convertText(t, `{`+schema+`,
  "parameters": {"pw": {"type": "securestring"}},
  "resources": [
    {"type": "Microsoft.Network/publicIPAddresses", "apiVersion": "2023-09-01", "name": "pip1", "location": "westeurope"},
    {"type": "Microsoft.Resources/tags", "apiVersion": "2022-09-01", "name": "default",
    "properties": {"tags": {
      "cred": "[base64(concat('HCIadmin:', parameters('pw')))]",
      "script": "[base64(format('#!/bin/sh\necho {0}', reference('pip1').ipAddress))]",
      "now": "[base64('abc')]"}}}]}`, convert.Scope{})
	wantAll(t, out,
		"cred:\n          valueFrom:\n            encoding: base64\n            secrets:\n              s0:\n                env: PW\n            template: HCIadmin:${secret:s0}",
		"script:\n          valueFrom:\n            encoding: base64\n            template: |-\n              #!/bin/sh\n              echo ${ref:pip1.properties.ipAddress}",
		"now: YWJj",
	)
	if len(res.Env) != 1 || res.Env[0].Name != "PW" {
		t.Errorf("env = %v", res.Env)
	}
}
