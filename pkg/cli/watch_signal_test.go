//go:build unix

package cli

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
)

// applyWatchCommand is apply with --watch: applyOptions, whose Run hands
// over to the loop (watchOptions.runApply) when --watch is given.
func applyWatchCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	return newApplyCommand(g, s)
}

// TestApplyWatchStopsOnSIGTERMWithExit0 runs `apply -f DIR --watch` the way
// Main does (interruptContext) and sends the process SIGTERM.
func TestApplyWatchStopsOnSIGTERMWithExit0(t *testing.T) {
	e := newLoopEnv(t)
	e.cli(0, "apply", "-f", e.dir, "--yes")
	log := &syncBuffer{}
	streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: log, ErrOut: log}
	g := DefaultGlobalOptions()
	root := newRootCommand(g, streams)
	for _, c := range root.Commands() {
		if c.Name() == "apply" {
			root.RemoveCommand(c)
		}
	}
	root.AddCommand(applyWatchCommand(g, streams))
	root.SetArgs([]string{"--endpoint", e.url, "--subscription", loopSub, "--state", e.state,
		"apply", "-f", e.dir, "--watch", "--status-file", e.status, "--read-budget", "50%", "--sweep-interval", "100ms", "--source-interval", "50ms",
		"--metrics-addr", "127.0.0.1:0"})
	ctx, stop := interruptContext(log)
	defer stop()
	done := make(chan int, 1)
	go func() { done <- exitCode(root.ExecuteContext(ctx)) }()
	e.waitFor("apply --watch reports in sync", 10*time.Second, log, allInSync(4))

	// The metrics endpoint answers in Prometheus text, every name prefixed.
	addr := regexp.MustCompile(`http://(\S+)/metrics`).FindStringSubmatch(log.String())
	if addr == nil {
		t.Fatalf("no metrics address in the log:\n%s", log.String())
	}
	e.setTag(identityID("id-a"), "owner", "someone")
	e.waitFor("drift", 5*time.Second, log, func(st *reconcile.Status) bool {
		r := resource(st, identityID("id-a"))
		return r != nil && r.State == reconcile.StateDrifted
	})
	metrics := scrape(t, "http://"+addr[1]+"/metrics")
	for _, want := range []string{
		"kubectl_azure_managed_resources 4",
		`kubectl_azure_resources{state="drifted"} 1`,
		`kubectl_azure_resources{state="in-sync"} 3`,
		`kubectl_azure_drift_detected_total{cause="drift",kind="change"} 1`,
		"kubectl_azure_leader 1",
		"kubectl_azure_source_valid 1",
	} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("metrics lack %q", want)
		}
	}
	for _, prefix := range []string{"kubectl_azure_observation_age_seconds ", "kubectl_azure_read_budget_used_ratio ", `kubectl_azure_arm_requests_total{class="read",code="200"} `} {
		if !strings.Contains(metrics, prefix) {
			t.Errorf("metrics lack %s", prefix)
		}
	}
	sc := bufio.NewScanner(strings.NewReader(metrics))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !strings.HasPrefix(line, "kubectl_azure_") {
			t.Errorf("metric not prefixed kubectl_azure_: %s", line)
		}
	}
	for _, p := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get("http://" + addr[1] + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s: %d", p, resp.StatusCode)
		}
	}

	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("SIGTERM: exit %d, want 0\n%s", code, log.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("SIGTERM did not stop the loop\n%s", log.String())
	}
	if w := e.writes("loop"); w != 0 {
		t.Fatalf("detect policy: %d writes", w)
	}
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return string(data)
}

func TestApplyWatchRefusesBadInputWithExit2(t *testing.T) {
	e := newLoopEnv(t)
	e.write("infra.yaml", strings.Replace(loopManifests, "location: westeurope\n---", "location: westeurope\n  oops: [\n---", 1))
	for _, args := range [][]string{
		{"apply", "-f", e.dir, "--watch"},
		{"apply", "-f", e.dir, "--watch", "--drift-policy", "fix"},
		{"apply", "-f", e.dir, "--watch", "--read-budget", "0%"},
		{"apply", "-f", e.dir, "--watch", "--prune"},
	} {
		var out bytes.Buffer
		streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out}
		g := DefaultGlobalOptions()
		root := newRootCommand(g, streams)
		for _, c := range root.Commands() {
			if c.Name() == "apply" {
				root.RemoveCommand(c)
			}
		}
		root.AddCommand(applyWatchCommand(g, streams))
		root.SetArgs(append([]string{"--endpoint", e.url, "--subscription", loopSub, "--state", e.state}, args...))
		if code := exitCode(root.ExecuteContext(t.Context())); code != ExitValidation {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, ExitValidation, out.String())
		}
	}
	if n := e.count("loop", "GET", "PUT", "PATCH", "DELETE", "POST"); n != 0 {
		t.Fatalf("bad input sent %d requests", n)
	}
}

func TestControllerInstallPrintsTheObjects(t *testing.T) {
	var out bytes.Buffer
	streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out}
	g := DefaultGlobalOptions()
	root := newRootCommand(g, streams)
	root.AddCommand(newControllerCommand(g, streams))
	root.SetArgs([]string{"controller", "install", "--source", "configmap://infra?selector=app=infra", "--state-ref", "kubernetes://infra/prod", "--client-id", testClientID, "-o", "yaml"})
	if code := exitCode(root.ExecuteContext(t.Context())); code != 0 {
		t.Fatalf("exit %d\n%s", code, out.String())
	}
	var kinds []string
	for _, doc := range strings.Split(out.String(), "\n---\n") {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatalf("not YAML: %v\n%s", err, doc)
		}
		kinds = append(kinds, obj["kind"].(string))
		if obj["kind"] == "Deployment" {
			spec := obj["spec"].(map[string]any)
			if spec["replicas"] != float64(2) {
				t.Errorf("replicas = %v, want 2", spec["replicas"])
			}
			if !strings.Contains(doc, "--leader-elect") || !strings.Contains(doc, "--state=kubernetes://infra/prod") {
				t.Errorf("the Deployment does not run the controller with leader election on the state:\n%s", doc)
			}
		}
	}
	if got := strings.Join(kinds, ","); got != "CustomResourceDefinition,Namespace,Namespace,ServiceAccount,Role,RoleBinding,Deployment" {
		t.Fatalf("kinds = %s", got)
	}
}
