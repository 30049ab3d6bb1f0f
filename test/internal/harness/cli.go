package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/cli"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// Result is one CLI invocation's outcome.
type Result struct {
	Args   []string
	Stdout string
	Stderr string
	Code   int
}

// Run invokes the CLI in-process, as a user would with stdin not a
// terminal, against endpoint with the given state, and no flags beyond
// --endpoint, --subscription and --state added.
func Run(endpoint, statePath string, args ...string) Result {
	full := append([]string{"--endpoint", endpoint, "--subscription", Sub, "--state", statePath}, args...)
	return RunRaw(full...)
}

// RunRaw invokes the CLI in-process with exactly args.
func RunRaw(args ...string) Result {
	var out, errOut bytes.Buffer
	code := cli.Main(args, genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	return Result{Args: args, Stdout: out.String(), Stderr: errOut.String(), Code: code}
}

// Must fails the test unless r exited with want.
func (r Result) Must(t testing.TB, want int) Result {
	t.Helper()
	if r.Code != want {
		t.Fatalf("kubectl azure %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(r.Args, " "), r.Code, want, r.Stdout, r.Stderr)
	}
	return r
}

// Plan is the part of `diff -o json` the suites check (docs/plan-format.md).
type Plan struct {
	Resources []struct {
		ID      string `json:"id"`
		Type    string `json:"type"`
		Action  string `json:"action"`
		Changes []struct {
			Path string `json:"path"`
		} `json:"changes"`
	} `json:"resources"`
	Summary map[string]int `json:"summary"`
}

// ParsePlan decodes diff -o json output.
func ParsePlan(t testing.TB, out string) Plan {
	t.Helper()
	var p Plan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("diff -o json is not the documented plan: %v\n%s", err, out)
	}
	return p
}

// Noisy lists the resources of p that are not no-op, for failure messages.
func (p Plan) Noisy() []string {
	var out []string
	for _, r := range p.Resources {
		if r.Action != "no-op" || len(r.Changes) > 0 {
			paths := []string{}
			for _, c := range r.Changes {
				paths = append(paths, c.Path)
			}
			out = append(out, r.Action+" "+r.ID+" "+strings.Join(paths, ","))
		}
	}
	return out
}

// StateRecords reads a state backend directly (no lock needed for reading)
// and returns its record IDs and the IDs of open intents, lower-cased.
func StateRecords(t testing.TB, ref string, opts state.Options) (ids, intents map[string]bool) {
	t.Helper()
	ctx := context.Background()
	st, err := state.Open(ctx, ref, opts)
	if err != nil {
		t.Fatalf("opening state %s: %v", ref, err)
	}
	defer st.Close()
	recs, err := st.List(ctx)
	if err != nil {
		t.Fatalf("listing state: %v", err)
	}
	ids = map[string]bool{}
	for _, r := range recs {
		ids[strings.ToLower(r.ID)] = true
	}
	in, err := st.Intents(ctx)
	if err != nil {
		t.Fatalf("listing intents: %v", err)
	}
	intents = map[string]bool{}
	for _, i := range in {
		intents[strings.ToLower(i.ID)] = true
	}
	return ids, intents
}

// BuildCLI compiles cmd/kubectl-azure into dir and returns the binary's
// path. The module root is found from the working directory of the test.
//
// KUBECTL_AZURE_TEST_CLI, when set, names an already built binary to use
// instead (hack/bench.sh passes bin/kubectl-azure).
func BuildCLI(t testing.TB, dir string) string {
	t.Helper()
	if p := os.Getenv("KUBECTL_AZURE_TEST_CLI"); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	root := ModuleRoot(t)
	bin := filepath.Join(dir, "kubectl-azure")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/kubectl-azure")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// ModuleRoot is the directory holding go.mod, above the working directory.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the working directory")
		}
		dir = parent
	}
}
