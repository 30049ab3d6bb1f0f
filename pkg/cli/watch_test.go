package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator/emulatortest"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
)

const loopSub = "00000000-0000-0000-0000-0000000000c1"

// personUA is the User-Agent of the simulated person changing Azure.
const personUA = "someone-else/1.0"

// loopEnv is an emulated ARM that counts requests per client (User-Agent),
// a manifest directory and a state file.
type loopEnv struct {
	t      *testing.T
	srv    *emulator.Server
	url    string
	dir    string
	state  string
	status string
	// planFile is where --plan-file keeps the plan of a drifted sweep.
	planFile string

	// front counts requests per client: emulatortest.ClientLoop, ClientCLI
	// and "person" for anyone else.
	front *emulatortest.Front
}

func newLoopEnv(t *testing.T) *loopEnv {
	t.Helper()
	return newLoopEnvWith(t, nil)
}

// newLoopEnvWith is newLoopEnv with tune changing the emulator's options.
func newLoopEnvWith(t *testing.T, tune func(*emulator.Options)) *loopEnv {
	t.Helper()
	opts := emulator.DefaultOptions()
	opts.LRODuration = 10 * time.Millisecond
	if tune != nil {
		tune(&opts)
	}
	srv, err := emulator.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	e := &loopEnv{t: t, srv: srv}
	e.front = emulatortest.StartFront(t, srv.Handler, "person")
	e.url = e.front.URL
	tmp := t.TempDir()
	e.dir = filepath.Join(tmp, "infra")
	e.state = filepath.Join(tmp, "state", "state.json")
	e.status = filepath.Join(tmp, "status.json")
	e.planFile = filepath.Join(tmp, "drift-plan.json")
	if err := os.MkdirAll(e.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	e.write("infra.yaml", loopManifests)
	return e
}

// loopManifests: a group and three identities; id-a's tags line is what
// the tests below edit.
var loopManifests = emulatortest.Manifests(
	emulatortest.Group("rg-loop"),
	emulatortest.Identity("id-a", "rg-loop", "tags: {env: prod, owner: platform}"),
	emulatortest.Identity("id-b", "rg-loop", "tags: {env: prod}"),
	emulatortest.Identity("id-c", "rg-loop", "tags: {env: prod}"),
)

func identityID(name string) string {
	return "/subscriptions/" + loopSub + "/resourceGroups/rg-loop/providers/Microsoft.ManagedIdentity/userAssignedIdentities/" + name
}

const identityAPI = "2023-01-31"

func (e *loopEnv) write(name, content string) {
	e.t.Helper()
	if err := os.WriteFile(filepath.Join(e.dir, name), []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *loopEnv) count(who string, methods ...string) int { return e.front.Count(who, methods...) }

func (e *loopEnv) writes(who string) int { return e.front.Writes(who) }

// cli runs one CLI command to completion.
func (e *loopEnv) cli(want int, args ...string) string {
	e.t.Helper()
	var out, errOut bytes.Buffer
	full := append([]string{"--endpoint", e.url, "--subscription", loopSub, "--state", e.state}, args...)
	code := Main(full, genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	if code != want {
		e.t.Fatalf("kubectl azure %s: exit %d, want %d\n%s\n%s", strings.Join(args, " "), code, want, out.String(), errOut.String())
	}
	return out.String()
}

// syncBuffer is a bytes.Buffer safe for the loop's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// loop starts `controller -f DIR` (or, with apply, `apply -f DIR --watch`)
// with fast intervals; stop cancels it and returns its exit code.
func (e *loopEnv) loop(ctx context.Context, extra ...string) (stop func() int, log *syncBuffer) {
	e.t.Helper()
	log = &syncBuffer{}
	streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: log, ErrOut: log}
	g := DefaultGlobalOptions()
	root := newRootCommand(g, streams)
	root.AddCommand(newControllerCommand(g, streams))
	args := []string{"--endpoint", e.url, "--subscription", loopSub, "--state", e.state,
		"controller", "-f", e.dir, "--status-file", e.status, "--read-budget", "50%",
		"--sweep-interval", "100ms", "--source-interval", "50ms", "--retry-base", "20ms", "--write-budget", "100"}
	root.SetArgs(append(args, extra...))
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan int, 1)
	go func() { done <- exitCode(root.ExecuteContext(ctx)) }()
	var once sync.Once
	code := -1
	stop = func() int {
		once.Do(func() {
			cancel()
			select {
			case code = <-done:
			case <-time.After(30 * time.Second):
				e.t.Errorf("the loop did not stop within 30 s of its cancellation\n%s", log.String())
			}
		})
		return code
	}
	e.t.Cleanup(func() { stop() })
	return stop, log
}

// status reads the status file, nil while it does not exist.
func (e *loopEnv) statusNow() *reconcile.Status {
	st, err := reconcile.ReadStatus(e.status)
	if err != nil {
		return nil
	}
	return st
}

// waitFor polls the status file until ok holds.
func (e *loopEnv) waitFor(what string, within time.Duration, log *syncBuffer, ok func(*reconcile.Status) bool) *reconcile.Status {
	e.t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if st := e.statusNow(); st != nil && ok(st) {
			return st
		}
		time.Sleep(20 * time.Millisecond)
	}
	data, _ := os.ReadFile(e.status)
	e.t.Fatalf("%s: not within %s\nstatus:\n%s\nlog:\n%s", what, within, data, log.String())
	return nil
}

func resource(st *reconcile.Status, id string) *reconcile.ResourceStatus {
	for i := range st.Resources {
		if strings.EqualFold(st.Resources[i].ID, id) {
			return &st.Resources[i]
		}
	}
	return nil
}

func allInSync(n int) func(*reconcile.Status) bool {
	return func(st *reconcile.Status) bool { return len(st.Resources) == n && st.InSync() }
}

// sweptAfter holds once every resource was observed after t.
func sweptAfter(t time.Time) func(*reconcile.Status) bool {
	return func(st *reconcile.Status) bool {
		if len(st.Resources) == 0 {
			return false
		}
		for _, r := range st.Resources {
			if !r.LastObserved.After(t) {
				return false
			}
		}
		return true
	}
}

// setTag changes one tag of a live resource as another client would: GET,
// then PUT with its own User-Agent.
func (e *loopEnv) setTag(id, key, value string) {
	e.t.Helper()
	if err := e.putTag(id, key, value); err != nil {
		e.t.Fatal(err)
	}
}

// putTag is setTag for goroutines: it returns the error.
func (e *loopEnv) putTag(id, key, value string) error {
	req, _ := http.NewRequest(http.MethodGet, e.url+id+"?api-version="+identityAPI, nil)
	req.Header.Set("User-Agent", personUA)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	var body map[string]any
	err = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	tags, _ := body["tags"].(map[string]any)
	if tags == nil {
		tags = map[string]any{}
	}
	tags[key] = value
	data, _ := json.Marshal(map[string]any{"location": body["location"], "tags": tags})
	req, _ = http.NewRequest(http.MethodPut, e.url+id+"?api-version="+identityAPI, bytes.NewReader(data))
	req.Header.Set("User-Agent", personUA)
	req.Header.Set("Content-Type", "application/json")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("PUT %s: %d", id, resp.StatusCode)
	}
	return nil
}

func (e *loopEnv) get(id string) map[string]any {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.url+id+"?api-version="+identityAPI, nil)
	req.Header.Set("User-Agent", personUA)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		e.t.Fatalf("GET %s: %v", id, err)
	}
	return body
}

func tagOf(body map[string]any, key string) string {
	tags, _ := body["tags"].(map[string]any)
	return fmt.Sprint(tags[key])
}

func TestLoopCreatesThenSteadyStateWritesNothing(t *testing.T) {
	e := newLoopEnv(t)
	stop, log := e.loop(t.Context())
	e.waitFor("the loop applies the new set and reports it in sync", 20*time.Second, log, allInSync(4))
	created := e.writes("loop")
	if created < 4 {
		t.Fatalf("the loop wrote %d times for 4 new resources", created)
	}
	// Steady state: several sweeps, not one write.
	mark := time.Now()
	e.waitFor("two more sweeps", 10*time.Second, log, sweptAfter(mark))
	mark = time.Now()
	e.waitFor("a third sweep", 10*time.Second, log, sweptAfter(mark))
	if w := e.writes("loop"); w != created {
		t.Fatalf("steady state: the loop wrote %d more times\n%s", w-created, log.String())
	}
	if n := e.front.TotalThrottled(); n != 0 {
		t.Fatalf("%d requests were throttled", n)
	}
	if code := stop(); code != 0 {
		t.Fatalf("stopping exited %d, want 0\n%s", code, log.String())
	}
}

func TestLoopDetectsDriftAndWritesNothing(t *testing.T) {
	e := newLoopEnv(t)
	e.cli(0, "apply", "-f", e.dir, "--yes")
	_, log := e.loop(t.Context(), "--plan-file", e.planFile)
	e.waitFor("in sync after apply", 10*time.Second, log, allInSync(4))

	changedAt := time.Now()
	e.setTag(identityID("id-a"), "owner", "someone")
	st := e.waitFor("the changed tag is reported as drift", 5*time.Second, log, func(st *reconcile.Status) bool {
		r := resource(st, identityID("id-a"))
		return r != nil && r.State == reconcile.StateDrifted
	})
	r := resource(st, identityID("id-a"))
	if len(r.Changes) != 1 || r.Changes[0].Path != "tags.owner" || !r.Changes[0].IsDrift() {
		t.Fatalf("changes = %+v, want one drift change at tags.owner", r.Changes)
	}
	t.Logf("drift noticed %s after the change", time.Since(changedAt).Round(time.Millisecond))
	if w := e.writes("loop"); w != 0 {
		t.Fatalf("detect policy: the loop wrote %d times", w)
	}
	if got := tagOf(e.get(identityID("id-a")), "owner"); got != "someone" {
		t.Fatalf("the person's value was overwritten: %q", got)
	}
	for _, other := range []string{"id-b", "id-c"} {
		if r := resource(st, identityID(other)); r == nil || r.State != reconcile.StateInSync {
			t.Fatalf("%s: %+v, want in-sync", other, r)
		}
	}

	// The published plan undoes exactly this drift, applied by a person.
	e.waitFor("the plan file is written", 5*time.Second, log, func(*reconcile.Status) bool {
		_, err := os.Stat(e.planFile)
		return err == nil
	})
	e.cli(0, "apply", e.planFile, "--yes")
	if got := tagOf(e.get(identityID("id-a")), "owner"); got != "platform" {
		t.Fatalf("applying the published plan left owner = %q", got)
	}
	if w := e.writes("cli"); w != 4+1 {
		t.Fatalf("apply of the published plan: %d writes in all, want 4 creates and 1 correction", w)
	}
	e.waitFor("in sync again, plan file removed", 5*time.Second, log, func(st *reconcile.Status) bool {
		_, err := os.Stat(e.planFile)
		return allInSync(4)(st) && os.IsNotExist(err)
	})
}

func TestLoopCorrectWritesOncePerDrift(t *testing.T) {
	e := newLoopEnv(t)
	e.cli(0, "apply", "-f", e.dir, "--yes")
	_, log := e.loop(t.Context(), "--drift-policy", "correct")
	e.waitFor("in sync after apply", 10*time.Second, log, allInSync(4))

	e.setTag(identityID("id-b"), "env", "dev")
	e.waitFor("the drift is corrected", 10*time.Second, log, func(st *reconcile.Status) bool {
		r := resource(st, identityID("id-b"))
		return r != nil && r.State == reconcile.StateInSync && r.Corrections == 1
	})
	if got := tagOf(e.get(identityID("id-b")), "env"); got != "prod" {
		t.Fatalf("live env tag = %q after the correction, want prod", got)
	}
	if w := e.writes("loop"); w != 1 {
		t.Fatalf("the loop wrote %d times for one drift, want exactly 1\n%s", w, log.String())
	}
	// The next sweeps are silent.
	mark := time.Now()
	e.waitFor("a later sweep", 10*time.Second, log, sweptAfter(mark))
	mark = time.Now()
	e.waitFor("another sweep", 10*time.Second, log, sweptAfter(mark))
	if w := e.writes("loop"); w != 1 {
		t.Fatalf("sweeps after the correction wrote %d more times", w-1)
	}
}

func TestLoopContestedDriftStopsCorrecting(t *testing.T) {
	e := newLoopEnv(t)
	e.cli(0, "apply", "-f", e.dir, "--yes")
	ctx := t.Context()
	_, log := e.loop(ctx, "--drift-policy", "correct")
	e.waitFor("in sync after apply", 10*time.Second, log, allInSync(4))

	// Another tool insists on its own value: it puts it back whenever it
	// finds it gone.
	fight, stopFight := context.WithCancel(ctx)
	defer stopFight()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for fight.Err() == nil {
			// A write refused while the loop's own is in flight is
			// simply tried again, as a script would.
			_ = e.putTag(identityID("id-c"), "env", "staging")
			time.Sleep(30 * time.Millisecond)
		}
	}()
	st := e.waitFor("the path is reported contested", 20*time.Second, log, func(st *reconcile.Status) bool {
		r := resource(st, identityID("id-c"))
		return r != nil && r.State == reconcile.StateContested
	})
	r := resource(st, identityID("id-c"))
	if !strings.Contains(r.Message, "tags.env") || !strings.Contains(r.Message, "another client") {
		t.Fatalf("contested message does not say which path and why: %q", r.Message)
	}
	corrections := e.writes("loop")
	if corrections < 1 || corrections > 3 {
		t.Fatalf("the loop wrote %d times before giving up, want 1 to 3", corrections)
	}
	// It stays out of the fight.
	mark := time.Now()
	e.waitFor("later sweeps", 10*time.Second, log, sweptAfter(mark))
	mark = time.Now()
	e.waitFor("later sweeps", 10*time.Second, log, sweptAfter(mark))
	if w := e.writes("loop"); w != corrections {
		t.Fatalf("the loop kept correcting a contested path: %d writes, then %d", corrections, w)
	}
	if st := e.statusNow(); resource(st, identityID("id-c")).State != reconcile.StateContested {
		t.Fatalf("no longer contested: %+v", resource(st, identityID("id-c")))
	}
	stopFight()
	wg.Wait()
}

func TestLoopKeepsLastGoodSetOnInvalidManifests(t *testing.T) {
	e := newLoopEnv(t)
	e.cli(0, "apply", "-f", e.dir, "--yes")
	_, log := e.loop(t.Context())
	e.waitFor("in sync after apply", 10*time.Second, log, allInSync(4))

	// A bad push: one broken document, and one resource dropped.
	e.write("infra.yaml", strings.Replace(loopManifests, "    tags: {env: prod, owner: platform}", "    tags: {env: prod, owner: platform}\n  bogus: [", 1))
	st := e.waitFor("the refused set is reported", 5*time.Second, log, func(st *reconcile.Status) bool { return st.Source.Error != "" })
	if len(st.Source.Problems) == 0 || !strings.HasSuffix(st.Source.Problems[0].File, "infra.yaml") || st.Source.Problems[0].Line == 0 {
		t.Fatalf("the error does not name file and line: %+v", st.Source)
	}
	// The last good set is still observed: drift is still noticed.
	mark := time.Now()
	e.setTag(identityID("id-a"), "owner", "someone")
	st = e.waitFor("drift noticed on the last good set", 5*time.Second, log, func(st *reconcile.Status) bool {
		r := resource(st, identityID("id-a"))
		return r != nil && r.State == reconcile.StateDrifted && r.LastObserved.After(mark)
	})
	if len(st.Resources) != 4 {
		t.Fatalf("observing %d resources, want the last good 4", len(st.Resources))
	}
	// An empty set never prunes, nor replaces the last good one.
	e.write("infra.yaml", "# nothing here\n")
	e.waitFor("the empty set is refused", 5*time.Second, log, func(st *reconcile.Status) bool {
		return strings.Contains(st.Source.Error, "no resources")
	})
	mark = time.Now()
	e.waitFor("still observing the good set", 5*time.Second, log, sweptAfter(mark))
	if w := e.writes("loop"); w != 0 {
		t.Fatalf("invalid manifests: the loop wrote %d times", w)
	}
	if len(e.statusNow().Resources) != 4 {
		t.Fatalf("the empty set replaced the last good one")
	}
}

func TestApplyRunsInterleavedWithTheLoop(t *testing.T) {
	e := newLoopEnv(t)
	e.cli(0, "apply", "-f", e.dir, "--yes")
	_, log := e.loop(t.Context(), "--drift-policy", "correct")
	e.waitFor("in sync after apply", 10*time.Second, log, allInSync(4))
	// The loop does not hold the state lock between writes: a CLI apply
	// of a manifest change goes through while it runs.
	e.write("infra.yaml", strings.Replace(loopManifests, "tags: {env: prod, owner: platform}", "tags: {env: prod, owner: apps}", 1))
	e.cli(0, "apply", "-f", e.dir, "--yes", "--lock-timeout", "10s")
	mark := time.Now()
	e.waitFor("sweeps after the CLI apply", 10*time.Second, log, sweptAfter(mark))
	st := e.waitFor("in sync", 5*time.Second, log, allInSync(4))
	_ = st
	if got := tagOf(e.get(identityID("id-a")), "owner"); got != "apps" {
		t.Fatalf("owner = %q, want apps", got)
	}
}

// TestSourceName: the watch banner and its messages name a file with
// file:// and a directory with dir://, as the user gave them.
func TestSourceName(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "infra.yaml")
	if err := os.WriteFile(file, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		src  reconcile.Source
		want string
	}{
		{&reconcile.DirSource{Paths: []string{file}}, "file://" + file},
		{&reconcile.DirSource{Paths: []string{dir}}, "dir://" + dir},
		{&reconcile.DirSource{Paths: []string{dir, file}}, "dir://" + dir + ", file://" + file},
		{&reconcile.ConfigMapSource{Namespace: "azure"}, (&reconcile.ConfigMapSource{Namespace: "azure"}).String()},
	}
	for _, tc := range cases {
		if got := sourceName(tc.src); got != tc.want {
			t.Errorf("sourceName(%v) = %q, want %q", tc.src, got, tc.want)
		}
	}
}
