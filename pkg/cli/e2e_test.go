package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/cli"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator/emulatortest"
)

const testSub = "00000000-0000-0000-0000-0000000000e2"

// env is one CLI session against an in-process emulator with its own state file.
type env struct {
	t     *testing.T
	srv   *emulator.Server
	dir   string // a private copy of testdata/landing-zone
	state string
}

func newEnv(t *testing.T, mutate func(*emulator.Options)) *env {
	t.Helper()
	opts := emulator.DefaultOptions()
	opts.LRODuration = 20 * time.Millisecond
	if mutate != nil {
		mutate(&opts)
	}
	srv, err := emulator.Start(opts)
	if err != nil {
		t.Fatalf("starting emulator: %v", err)
	}
	t.Cleanup(func() { srv.Close() })
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "infra")
	emulatortest.CopyDir(t, filepath.Join("..", "..", "testdata", "landing-zone"), dir)
	return &env{t: t, srv: srv, dir: dir, state: filepath.Join(tmp, "state", "state.json")}
}

// run invokes the CLI as a user would, with stdin not a terminal.
func (e *env) run(args ...string) (string, string, int) {
	e.t.Helper()
	var out, errOut bytes.Buffer
	full := append([]string{"--endpoint", e.srv.URL(), "--subscription", testSub, "--state", e.state}, args...)
	code := cli.Main(full, genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	return out.String(), errOut.String(), code
}

func (e *env) mustRun(want int, args ...string) string {
	e.t.Helper()
	out, errOut, code := e.run(args...)
	if code != want {
		e.t.Fatalf("kubectl azure %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out, errOut)
	}
	return out
}

// edit replaces old with new in a manifest file of the private copy.
func (e *env) edit(file, old, new string) {
	e.t.Helper()
	p := filepath.Join(e.dir, file)
	data, err := os.ReadFile(p)
	if err != nil {
		e.t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		e.t.Fatalf("%s does not contain %q", file, old)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) writes() int64 {
	s := e.srv.Stats().Requests
	return s["PUT"] + s["PATCH"] + s["DELETE"] + s["POST"]
}

// live GETs a resource through the ARM API, as a user's other tools would.
func (e *env) live(id, apiVersion string) (map[string]any, int) {
	e.t.Helper()
	out, _, code := e.runRaw(id, apiVersion)
	if code != 200 {
		return nil, code
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		e.t.Fatal(err)
	}
	return m, code
}

func (e *env) runRaw(id, apiVersion string) (string, string, int) {
	resp, err := httpGet(e.srv.URL() + id + "?api-version=" + apiVersion)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.body, "", resp.code
}

func rg(name string) string { return "/subscriptions/" + testSub + "/resourceGroups/" + name }

// manifestDir makes dir (if need be) with one manifest file, name, holding
// text, and returns dir: a set of its own, apart from the environment's.
func manifestDir(t *testing.T, dir, name, text string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLandingZoneLifecycle(t *testing.T) {
	e := newEnv(t, nil)

	out := e.mustRun(1, "diff", "-f", e.dir)
	if !strings.Contains(out, "8 to create") {
		t.Fatalf("first plan should create the 8 resources of the landing zone:\n%s", out)
	}
	if w := e.writes(); w != 0 {
		t.Fatalf("diff wrote %d times to ARM", w)
	}

	out = e.mustRun(0, "apply", "-f", e.dir, "--yes")
	assertOrder(t, out, "writing", []string{"resourceGroups/rg-demo", "virtualNetworks/vnet-demo (", "subnets/snet-storage", "storageAccounts/stdemo001", "roleAssignments/"})
	if got := e.srv.Stats().Requests["PUT"]; got != 8 {
		t.Fatalf("apply sent %d PUTs, want 8", got)
	}

	// Nothing changed: silent, exit 0, no write.
	before := e.writes()
	out = e.mustRun(0, "diff", "-f", e.dir)
	if !strings.Contains(out, "No changes") {
		t.Fatalf("second plan not quiet:\n%s", out)
	}
	if e.writes() != before {
		t.Fatalf("a quiet diff wrote to ARM")
	}

	// One property changed: the plan names exactly that path.
	e.edit("storage.yaml", "minimumTlsVersion: TLS1_2", "minimumTlsVersion: TLS1_3")
	out = e.mustRun(1, "diff", "-f", e.dir, "-o", "json")
	var p struct {
		Resources []struct {
			ID, Action string
			Method     string
			Changes    []struct{ Path string }
		}
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("diff -o json: %v\n%s", err, out)
	}
	var changed []string
	for _, r := range p.Resources {
		for _, c := range r.Changes {
			changed = append(changed, r.Action+" "+lastSeg(r.ID)+" "+c.Path)
		}
	}
	if want := []string{"update stdemo001 properties.minimumTlsVersion"}; fmt.Sprint(changed) != fmt.Sprint(want) {
		t.Fatalf("changes = %v, want %v", changed, want)
	}
	patchesBefore := e.srv.Stats().Requests["PATCH"]
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	if e.srv.Stats().Requests["PATCH"] != patchesBefore+1 {
		t.Fatalf("storage accounts support PATCH for properties: expected one PATCH, stats %v", e.srv.Stats().Requests)
	}
	sa := "/subscriptions/" + testSub + "/resourceGroups/rg-demo/providers/Microsoft.Storage/storageAccounts/stdemo001"
	if live, _ := e.live(sa, "2023-05-01"); dig(live, "properties", "minimumTlsVersion") != "TLS1_3" {
		t.Fatalf("live minimumTlsVersion = %v", dig(live, "properties", "minimumTlsVersion"))
	}

	// A property removed from the manifest is removed from live.
	e.edit("storage.yaml", "tags: {app: demo, env: dev}", "tags: {env: dev}")
	out = e.mustRun(1, "diff", "-f", e.dir)
	if !strings.Contains(out, "tags.app") {
		t.Fatalf("removal not in plan:\n%s", out)
	}
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	if live, _ := e.live(sa, "2023-05-01"); dig(live, "tags", "app") != nil || dig(live, "tags", "env") != "dev" {
		t.Fatalf("live tags after removing app: %v", dig(live, "tags"))
	}
	e.mustRun(0, "diff", "-f", e.dir)

	// delete -f removes everything, children first.
	out = e.mustRun(0, "delete", "-f", e.dir, "--yes")
	assertOrder(t, out, "writing", []string{"roleAssignments/", "storageAccounts/stdemo001", "subnets/snet-storage", "virtualNetworks/vnet-demo (", "resourceGroups/rg-demo"})
	if _, code := e.live(rg("rg-demo"), "2021-04-01"); code != 404 {
		t.Fatalf("resource group still there after delete (GET %d)", code)
	}
	out = e.mustRun(0, "state", "list")
	if strings.Contains(out, "stdemo001") {
		t.Fatalf("state still lists deleted resources:\n%s", out)
	}
}

func TestSubnetManagedAloneSurvivesVnetUpdate(t *testing.T) {
	e := newEnv(t, nil)
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	// Change the vnet so that it is written with its full body.
	e.edit("network.yaml", `addressPrefixes: ["10.20.0.0/16"]`, `addressPrefixes: ["10.20.0.0/16", "10.30.0.0/16"]`)
	out := e.mustRun(1, "diff", "-f", e.dir)
	if strings.Contains(out, "snet-storage") {
		t.Fatalf("the vnet's plan must not touch the separately managed subnet:\n%s", out)
	}
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	subnet := rg("rg-demo") + "/providers/Microsoft.Network/virtualNetworks/vnet-demo/subnets/snet-storage"
	if _, code := e.live(subnet, "2024-01-01"); code != 200 {
		t.Fatalf("separately managed subnet gone after the vnet update (GET %d)", code)
	}
	e.mustRun(0, "diff", "-f", e.dir)
}

// assertOrder checks that progress lines with verb mention names in order.
func assertOrder(t *testing.T, out, verb string, names []string) {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, " "+verb+" ") {
			lines = append(lines, l)
		}
	}
	pos := func(name string) int {
		for i, l := range lines {
			if strings.Contains(l, name) {
				return i
			}
		}
		t.Fatalf("no %q line for %s in:\n%s", verb, name, out)
		return -1
	}
	for i := 1; i < len(names); i++ {
		if pos(names[i-1]) >= pos(names[i]) {
			t.Fatalf("%s must come before %s:\n%s", names[i-1], names[i], strings.Join(lines, "\n"))
		}
	}
}

func lastSeg(id string) string { return id[strings.LastIndex(id, "/")+1:] }

func dig(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[p]
	}
	return v
}

var _ = regexp.MustCompile
