package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/cli"
)

// A misspelt property is a warning: the run goes on, and the warning
// reaches CI in every format, with its file, line, severity and
// did-you-mean (issue 33, item 2).
func TestManifestWarningsInEveryFormat(t *testing.T) {
	srv := startEmulator(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "storage.yaml")
	const manifest = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: stwarn001}
spec:
  type: Microsoft.Storage/storageAccounts@2023-05-01
  resourceGroup: rg-warn
  body:
    location: westeurope
    sku: {name: Standard_LRS}
    kind: StorageV2
    properties:
      minimumTlsVersoin: TLS1_2
`
	if err := os.WriteFile(file, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string) {
		var out, errOut bytes.Buffer
		code := cli.Main(append([]string{"--endpoint", srv.URL(), "--subscription", testSub, "--state", filepath.Join(dir, "state.json"), "--annotations", "none", "diff", "-f", file}, args...),
			genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
		if code != 1 {
			t.Fatalf("%v: exit %d, want 1 (changes)\n%s%s", args, code, out.String(), errOut.String())
		}
		return out.String(), errOut.String()
	}
	const line = "storage.yaml#0 (line 12): spec.body.properties.minimumTlsVersoin: unknown property"
	for _, o := range []string{"text", "json", "markdown"} {
		_, stderr := run("-o", o)
		if !strings.Contains(stderr, "warning: "+file[:len(file)-len("storage.yaml")]+line) || !strings.Contains(stderr, "did you mean minimumTlsVersion?") {
			t.Errorf("-o %s: stderr lacks the warning with its line and suggestion:\n%s", o, stderr)
		}
	}

	out, _ := run("-o", "json")
	var doc struct {
		Problems []struct {
			File, Path, Severity, Message string
			Document, Line                int
		} `json:"problems"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("-o json: %v\n%s", err, out)
	}
	if len(doc.Problems) != 1 || doc.Problems[0].Severity != "warning" || doc.Problems[0].Line != 12 || doc.Problems[0].File != file ||
		doc.Problems[0].Path != "spec.body.properties.minimumTlsVersoin" || !strings.Contains(doc.Problems[0].Message, "did you mean minimumTlsVersion?") {
		t.Errorf("-o json problems = %+v", doc.Problems)
	}

	out, _ = run("-o", "markdown")
	if !strings.Contains(out, "| warning | <code>"+file+"</code> | 0 | 12 | <code>spec.body.properties.minimumTlsVersoin</code> |") {
		t.Errorf("-o markdown lacks the warning row:\n%s", out)
	}

	_, stderr := run("--annotations", "github")
	if !strings.Contains(stderr, "::warning file="+file+",line=12,") {
		t.Errorf("--annotations github lacks the warning annotation:\n%s", stderr)
	}
}
