package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/cli"
)

// convertDir is the quickstart templates the converter is checked on
// (testdata/convert/SOURCES.md names their sources).
var convertDir = filepath.Join("..", "..", "testdata", "convert")

// rbac-managedidentity-maps is converted (TestConvertGolden) but not
// applied: the emulator does not know its role (Azure Maps Data Reader).

// quickstarts are the templates of convertDir, with the --param values a
// quickstart's parameters file leaves to the deployer (GEN-* markers the
// quickstart pipeline fills in).
var quickstarts = map[string][]string{
	"storage-account-create":          nil,
	"vnet-two-subnets":                nil,
	"key-vault-create":                {"--param", "keyVaultName=kv-conv-e2e", "--param", "objectId=9c7c1f5e-8a3b-4d2e-9f1a-2b3c4d5e6f70", "--param", "secretName=app-secret"},
	"webapp-basic-linux":              {"--param", "webAppName=app-conv-e2e"},
	"vm-simple-linux":                 {"--param", "adminUsername=azureuser", "--param", "vmName=vm-conv", "--param", "dnsLabelPrefix=vmconv-e2e"},
	"cosmosdb-webapp":                 {"--param", "applicationName=cosmos-conv-e2e"},
	"app-configuration-store-kv-copy": {"--param", "configStoreName=appcs-conv-e2e"},
	"vm-windows-copy-datadisks":       {"--param", "adminUsername=azureuser", "--param", "dnsLabelPrefix=vmdisks-conv-e2e"},
	"modules":                         nil,
}

// runConvert runs `kubectl azure convert` in process.
func runConvert(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Main(append([]string{"convert"}, args...), genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	return out.String(), errOut.String(), code
}

func quickstartArgs(name, group string) []string {
	dir := filepath.Join(convertDir, name)
	args := []string{filepath.Join(dir, "azuredeploy.json"), "--resource-group", group, "--location", "westeurope"}
	if _, err := os.Stat(filepath.Join(dir, "azuredeploy.parameters.json")); err == nil {
		args = append(args, "--parameters", filepath.Join(dir, "azuredeploy.parameters.json"))
	}
	return append(args, quickstarts[name]...)
}

var envVarLine = regexp.MustCompile(`environment variable ([A-Z0-9_]+)`)

// TestConvertQuickstartsApply converts real quickstart templates, applies
// the manifests on the emulator, and checks the next plan is silent.
func TestConvertQuickstartsApply(t *testing.T) {
	for name := range quickstarts {
		t.Run(name, func(t *testing.T) {
			t.Setenv("AZURE_TENANT_ID", "8e2a4c1d-3b5f-4e7a-9c0d-6f1b2a3c4d5e")
			e := newEnv(t, nil)
			dir := filepath.Join(t.TempDir(), "converted")
			_, errOut, code := runConvert(t, append(quickstartArgs(name, "rg-"+name), "--output-dir", dir)...)
			if code != 0 {
				t.Fatalf("convert: exit %d\n%s", code, errOut)
			}
			for _, m := range envVarLine.FindAllStringSubmatch(errOut, -1) {
				t.Setenv(m[1], "S3cret-"+strings.ToLower(m[1])+"-9!")
			}
			e.mustRun(1, "diff", "-f", dir)
			e.mustRun(0, "apply", "-f", dir, "--yes")
			// listKeys and other actions are POSTs a plan may call; only
			// PUT, PATCH and DELETE change anything.
			changes := func() int64 {
				s := e.srv.Stats().Requests
				return s["PUT"] + s["PATCH"] + s["DELETE"]
			}
			before := changes()
			e.mustRun(0, "diff", "-f", dir)
			e.mustRun(0, "apply", "-f", dir, "--yes")
			if w := changes() - before; w != 0 {
				t.Errorf("a second apply wrote %d times", w)
			}
			checkOutputs(t, e, errOut, dir)
		})
	}
}

var getLine = regexp.MustCompile(`\(after apply: kubectl azure get -f MANIFESTS (\S+) -o (jsonpath='[^']*')\)`)

// checkOutputs runs the get command convert printed for each output: it
// reads a value from Azure once applied.
func checkOutputs(t *testing.T, e *env, errOut, dir string) {
	t.Helper()
	for _, m := range getLine.FindAllStringSubmatch(errOut, -1) {
		jp := strings.Trim(strings.TrimPrefix(m[2], "jsonpath="), "'")
		out := e.mustRun(0, "get", "-f", dir, m[1], "-o", "jsonpath="+jp)
		if strings.TrimSpace(out) == "" {
			t.Errorf("get %s %s printed nothing", m[1], jp)
		}
	}
}
