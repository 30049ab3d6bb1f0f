package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/cli"
)

// A manifest file name may hold a newline (or any control character). The
// name ends up in the plain "error:" and "warning:" lines and in
// annotations; under GitHub Actions every line of the log starting with
// "::" (after leading blanks) is a workflow command, so a crafted name
// could set outputs, add paths or mask nothing. No line may start so,
// except the annotations the CLI itself writes.
func TestFileNameCannotInjectWorkflowCommands(t *testing.T) {
	dir := t.TempDir()
	evil := "bad\n::error file=x::injected\n  ::add-mask::y\r::warning::z.yaml"
	bad := "apiVersion: azure.kubectl.io/v1alpha1\nkind: Resourse\nmetadata: {name: id-a}\nspec:\n  type: Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31\n  resourceGroup: rg\n  body: {location: westeurope, properties: {bogusProperty: 1}}\n"
	warnOnly := "apiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata: {name: id-b}\nspec:\n  type: Microsoft.Storage/storageAccounts@2023-05-01\n  resourceGroup: rg\n  body: {location: westeurope, kind: StorageV2, sku: {name: Standard_LRS}, properties: {minimumTlsVersoin: TLS1_2}}\n"
	if err := os.WriteFile(filepath.Join(dir, evil), []byte(bad+"---\n"+warnOnly), 0o644); err != nil {
		t.Skipf("file system refuses the name: %v", err)
	}
	for _, annotations := range []string{"none", "github"} {
		for _, output := range []string{"text", "json", "markdown"} {
			var out, errOut bytes.Buffer
			code := cli.Main([]string{"--endpoint", "http://127.0.0.1:1", "--subscription", testSub, "--state", filepath.Join(t.TempDir(), "s.json"),
				"--annotations", annotations, "-o", output, "diff", "-f", dir},
				genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
			if code != 2 {
				t.Fatalf("exit %d, want 2\n%s%s", code, out.String(), errOut.String())
			}
			if !strings.Contains(errOut.String(), `bad\u000a::error`) {
				t.Errorf("-o %s --annotations %s: the file name is not shown escaped:\n%s", output, annotations, errOut.String())
			}
			for _, stream := range []string{out.String(), errOut.String()} {
				for _, l := range strings.FieldsFunc(stream, func(r rune) bool { return r == '\n' || r == '\r' }) {
					l = strings.TrimLeft(l, " \t")
					if !strings.HasPrefix(l, "::") {
						continue
					}
					// Our own annotations: the name is escaped inside them.
					if annotations == "github" && (strings.HasPrefix(l, "::error file="+dir+"/bad") || strings.HasPrefix(l, "::warning file="+dir+"/bad")) {
						continue
					}
					t.Errorf("-o %s --annotations %s: a line is a workflow command: %q\nstdout:\n%s\nstderr:\n%s", output, annotations, l, out.String(), errOut.String())
				}
			}
		}
	}
}
