package cli

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// run runs one CLI command to completion: exit code, stdout and stderr.
func (e *loopEnv) run(args ...string) (int, string, string) {
	e.t.Helper()
	var out, errOut bytes.Buffer
	full := append([]string{"--endpoint", e.url, "--subscription", loopSub, "--state", e.state}, args...)
	code := Main(full, genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
}

const ownerTag = "tags: {env: prod, owner: platform}"

// TestValueFromEnvNeverReadsTheToolsCredentials: a manifest cannot copy
// the credential the tool signs in with into Azure, in any command: exit
// 2 naming the file, line and field, the value nowhere, nothing sent.
func TestValueFromEnvNeverReadsTheToolsCredentials(t *testing.T) {
	const secret = "Client-S3cret-Of-The-Tool-77"
	for _, name := range []string{"AZURE_CLIENT_SECRET", "AZURE_CLIENT_CERTIFICATE_PASSWORD", "AZURE_FEDERATED_TOKEN_FILE", "azure_password", "IDENTITY_HEADER"} {
		t.Setenv(strings.ToUpper(name), secret)
		for _, form := range []string{
			"{valueFrom: {env: " + name + "}}",
			`{valueFrom: {template: "x-${secret:s}", secrets: {s: {env: ` + name + `}}}}`,
		} {
			e := newLoopEnv(t)
			e.write("infra.yaml", strings.Replace(loopManifests, ownerTag, "tags: {env: prod, owner: "+form+"}", 1))
			for _, cmd := range [][]string{{"apply", "-f", e.dir, "--yes"}, {"diff", "-f", e.dir}} {
				code, out, errOut := e.run(cmd...)
				text := out + errOut
				if code != ExitValidation || !strings.Contains(text, "infra.yaml") || !strings.Contains(text, "spec.body.tags.owner.valueFrom") ||
					!strings.Contains(text, name+" holds this tool's own Azure credential") || !strings.Contains(text, "infra.yaml#1 (line 19): spec.body.tags.owner.valueFrom") {
					t.Errorf("%s %s: exit %d, want 2 naming infra.yaml, its document, line 19 and the field\n%s", cmd[0], form, code, text)
				}
				if strings.Contains(text, secret) {
					t.Errorf("%s: the credential is in the output", cmd[0])
				}
			}
			if n := e.writes("person") + e.count("person", "GET"); n != 0 {
				t.Errorf("%s: %d requests sent on bad input", form, n)
			}
		}
	}
}

// TestControllerReadsOnlyAllowedEnv: in the controller valueFrom.env
// reads nothing unless --allow-env lists the variable: the set is refused
// with the flag to use, and with the flag it is applied.
func TestControllerReadsOnlyAllowedEnv(t *testing.T) {
	t.Setenv("OWNER_TAG", "team-a")
	e := newLoopEnv(t)
	e.write("infra.yaml", strings.Replace(loopManifests, ownerTag, "tags: {env: prod, owner: {valueFrom: {env: OWNER_TAG}}}", 1))
	ctx := t.Context()
	stop, log := e.loop(ctx)
	waitLog(t, log, "--allow-env OWNER_TAG")
	if !strings.Contains(log.String(), "infra.yaml#1 (line 19): spec.body.tags.owner.valueFrom.env") || strings.Contains(log.String(), "team-a") {
		t.Errorf("refusal does not name the file, line and field (or shows the value):\n%s", log.String())
	}
	if n := e.writes("loop"); n != 0 {
		t.Errorf("%d writes from a refused set", n)
	}
	stop()

	e2 := newLoopEnv(t)
	e2.write("infra.yaml", strings.Replace(loopManifests, ownerTag, "tags: {env: prod, owner: {valueFrom: {env: OWNER_TAG}}}", 1))
	_, log = e2.loop(context.WithoutCancel(ctx), "--allow-env", "OWNER_TAG")
	e2.waitFor("applied", 30*time.Second, log, allInSync(4))
	if got := tagOf(e2.get(identityID("id-a")), "owner"); got != "team-a" {
		t.Errorf("owner tag = %q, want the allowed variable's value", got)
	}
}

// waitLog waits until the loop's log holds want.
func waitLog(t *testing.T, log *syncBuffer, want string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if strings.Contains(log.String(), want) {
			return
		}
	}
	t.Fatalf("the log never said %q:\n%s", want, log.String())
}

// TestMetricsBeyondLoopbackWarns: /metrics has no authentication, so an
// address on every interface is said to be one; loopback is quiet.
func TestMetricsBeyondLoopbackWarns(t *testing.T) {
	e := newLoopEnv(t)
	stop, log := e.loop(t.Context(), "--metrics-addr", ":0")
	waitLog(t, log, "Serving metrics on")
	stop()
	if !strings.Contains(log.String(), "warning: --metrics-addr :0 serves /metrics beyond loopback without authentication") {
		t.Errorf("no warning for every interface:\n%s", log.String())
	}
	e = newLoopEnv(t)
	stop, log = e.loop(t.Context(), "--metrics-addr", "127.0.0.1:0", "--health-addr", "127.0.0.1:0")
	waitLog(t, log, "Serving health on http://127.0.0.1:")
	addr := strings.Fields(log.String()[strings.Index(log.String(), "Serving health on ")+len("Serving health on "):])[0]
	addr = strings.TrimSuffix(addr, "/healthz")
	for p, want := range map[string]int{"/healthz": 200, "/metrics": 404} {
		resp, err := http.Get(addr + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("health address %s: %d, want %d", p, resp.StatusCode, want)
		}
	}
	stop()
	if strings.Contains(log.String(), "warning: --metrics-addr") {
		t.Errorf("a warning for loopback:\n%s", log.String())
	}
}
