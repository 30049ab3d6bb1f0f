package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/cli"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
)

// startEmulator starts an emulator with its default options, closed when
// the test ends.
func startEmulator(t *testing.T) *emulator.Server {
	t.Helper()
	srv, err := emulator.Start(emulator.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// Every testdata/bad case, through the real command line: exit 2, exactly
// its golden message, and not one request to ARM or byte of state.
func TestBadManifestsThroughCLI(t *testing.T) {
	srv := startEmulator(t)
	t.Chdir(filepath.Join("..", "..")) // goldens name files relative to the repository root
	cases, _ := filepath.Glob(filepath.Join("testdata", "bad", "*.yaml"))
	if len(cases) < 15 {
		t.Fatalf("only %d bad cases found", len(cases))
	}
	for _, c := range cases {
		name := strings.TrimSuffix(filepath.Base(c), ".yaml")
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(strings.TrimSuffix(c, ".yaml") + ".golden")
			if err != nil {
				t.Fatal(err)
			}
			state := filepath.Join(t.TempDir(), "state.json")
			args := []string{"--endpoint", srv.URL(), "--state", state}
			// The no-subscription case needs a machine with no subscription anywhere.
			t.Setenv("AZURE_CONFIG_DIR", t.TempDir())
			t.Setenv("AZURE_SUBSCRIPTION_ID", "")
			if name != "no-subscription" {
				args = append(args, "--subscription", "00000000-0000-0000-0000-0000000000b1")
			}
			var out, errOut bytes.Buffer
			code := cli.Main(append(args, "apply", "--yes", "-f", c), genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
			if code != 2 {
				t.Fatalf("exit %d, want 2\n%s%s", code, out.String(), errOut.String())
			}
			// Each problem is one "error: " line (warnings, "warning: ",
			// may come with them); the golden holds the errors' text.
			var errs []string
			for _, l := range strings.Split(errOut.String(), "\n") {
				if rest, ok := strings.CutPrefix(l, "error: "); ok {
					errs = append(errs, rest)
				}
			}
			if got := strings.Join(errs, "\n"); got != strings.TrimSpace(string(want)) {
				t.Fatalf("stderr:\n%s\nwant error:\n%s", errOut.String(), want)
			}
			if _, err := os.Stat(state); err == nil {
				t.Fatal("a state file was created")
			}
		})
	}
	if n := srv.Stats().Requests; n["GET"]+n["PUT"]+n["PATCH"]+n["DELETE"] != 0 {
		t.Fatalf("invalid manifests reached ARM: %v", n)
	}
}
