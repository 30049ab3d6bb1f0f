package arm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// echoLogClient is a TLS fake ARM that answers every request with its own
// body (or with respond's answer) and a client logging at -v 8.
func echoLogClient(t *testing.T, respond func(r *http.Request, body []byte) any, mut ...func(*Options)) (*Client, *bytes.Buffer) {
	t.Helper()
	f, _ := newTLSFakeARM(t)
	f.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := mustRead(r)
		var v any = json.RawMessage(body)
		if respond != nil {
			v = respond(r, body)
		} else if len(body) == 0 {
			v = map[string]any{}
		}
		writeJSON(w, 200, v)
	})
	var buf bytes.Buffer
	return tlsClient(t, f, append([]func(*Options){logTo(&buf, VerbosityBodies)}, mut...)...), &buf
}

const rg = "/subscriptions/" + testSub + "/resourceGroups/rg1"

func TestLogRedactsBySecretRules(t *testing.T) {
	reg := secret.NewRegistry()
	reg.Register("registered-via-valueFrom-123")
	cases := []struct {
		name    string
		id      string
		body    map[string]any
		hidden  []string
		visible []string
		mut     func(*Options)
	}{
		{
			name:    "registered value anywhere",
			id:      rg + "/providers/Microsoft.Storage/storageAccounts/st1",
			body:    map[string]any{"tags": map[string]any{"note": "prefix registered-via-valueFrom-123 suffix"}},
			hidden:  []string{"registered-via-valueFrom-123"},
			visible: []string{"prefix", "suffix"},
		},
		{
			name:    "Key Vault secret value without a hook",
			id:      rg + "/providers/Microsoft.KeyVault/vaults/kv1/secrets/db",
			body:    map[string]any{"properties": map[string]any{"value": "kv-secret-value-1", "contentType": "text/plain"}},
			hidden:  []string{"kv-secret-value-1"},
			visible: []string{"text/plain"},
		},
		{
			name:    "App Service appsettings without a hook",
			id:      rg + "/providers/Microsoft.Web/sites/app1/config/appsettings",
			body:    map[string]any{"properties": map[string]any{"DB_CONN": "appsetting-value-1", "FEATURE": "appsetting-value-2"}},
			hidden:  []string{"appsetting-value-1", "appsetting-value-2"},
			visible: []string{"DB_CONN", "FEATURE"},
		},
		{
			name: "App Service settings inline in siteConfig",
			id:   rg + "/providers/Microsoft.Web/sites/app1",
			body: map[string]any{"properties": map[string]any{"siteConfig": map[string]any{
				"linuxFxVersion": "DOTNETCORE|8.0",
				"appSettings":    []any{map[string]any{"name": "APPINSIGHTS_CONN", "value": "InstrumentationKey=inline-setting-1"}},
			}}},
			hidden:  []string{"inline-setting-1"},
			visible: []string{"APPINSIGHTS_CONN", "DOTNETCORE|8.0"},
		},
		{
			name:    "App Service web config stays visible",
			id:      rg + "/providers/Microsoft.Web/sites/app1/config/web",
			body:    map[string]any{"properties": map[string]any{"numberOfWorkers": json.Number("3"), "linuxFxVersion": "NODE|20"}},
			visible: []string{"NODE|20", `"numberOfWorkers":3`},
		},
		{
			name:    "secret container",
			id:      rg + "/providers/Microsoft.Compute/virtualMachines/vm1/extensions/ext",
			body:    map[string]any{"properties": map[string]any{"protectedSettings": map[string]any{"commandToExecute": "curl protected-cmd-1"}, "publisher": "Microsoft.Azure.Extensions"}},
			hidden:  []string{"protected-cmd-1"},
			visible: []string{"Microsoft.Azure.Extensions"},
		},
		{
			name:    "credential-named string, not a boolean flag",
			id:      rg + "/providers/Microsoft.Sql/servers/sql1",
			body:    map[string]any{"properties": map[string]any{"administratorLoginPassword": "sql-password-1", "secret": true}},
			hidden:  []string{"sql-password-1"},
			visible: []string{`"secret":true`},
		},
		{
			name: "schema hook",
			id:   rg + "/providers/Contoso.Widgets/widgets/w1",
			body: map[string]any{"properties": map[string]any{"opaque": map[string]any{"blob": "hook-secret-1"}, "items": []any{map[string]any{"v": "hook-secret-2"}}, "grid": []any{[]any{map[string]any{"v": "hook-secret-3"}}}, "plain": "hook-visible"}},
			mut: func(o *Options) {
				o.SensitivePaths = func(typ, ver string) []string {
					if typ == "Contoso.Widgets/widgets" && ver == testAPI {
						return []string{"properties.opaque.blob", "properties.items[].v", "properties.grid[][].v"}
					}
					return nil
				}
			},
			hidden:  []string{"hook-secret-1", "hook-secret-2", "hook-secret-3"},
			visible: []string{"hook-visible"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mut := []func(*Options){func(o *Options) { o.Secrets = reg }}
			if tc.mut != nil {
				mut = append(mut, tc.mut)
			}
			c, buf := echoLogClient(t, nil, mut...)
			if _, err := c.Put(context.Background(), tc.id, testAPI, tc.body, nil); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			// The body is logged twice (request and echoed response).
			if n := strings.Count(out, "body: "); n != 2 {
				t.Fatalf("%d bodies logged:\n%s", n, out)
			}
			hiddenAndVisible(t, out, tc.hidden, tc.visible)
			if strings.Contains(out, "static-token-value") {
				t.Errorf("log shows the bearer token:\n%s", out)
			}
		})
	}
}

// A list* action exists to return credentials: its whole response is
// hidden whatever the property names.
func TestLogHidesListActionResponses(t *testing.T) {
	c, buf := echoLogClient(t, func(*http.Request, []byte) any {
		return map[string]any{"keys": []any{map[string]any{"keyName": "key1", "value": "list-keys-value-1"}}, "hostName": "list-hostname-1"}
	})
	resp, err := c.Post(context.Background(), rg+"/providers/Microsoft.Cache/redis/r1/listKeys", testAPI, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, h := range []string{"list-keys-value-1", "list-hostname-1"} {
		if strings.Contains(out, h) {
			t.Errorf("log shows %q:\n%s", h, out)
		}
	}
	// Redaction is for the log only; the caller gets the real body.
	if resp.Body["hostName"] != "list-hostname-1" {
		t.Fatalf("body %v", resp.Body)
	}
}

// List pages are redacted item by item, by each item's type.
func TestLogRedactsListPagesPerItem(t *testing.T) {
	c, buf := echoLogClient(t, func(*http.Request, []byte) any {
		return map[string]any{"value": []any{
			map[string]any{"type": "Microsoft.KeyVault/vaults/secrets", "name": "s1", "properties": map[string]any{"value": "page-secret-1", "contentType": "page-visible"}},
		}}
	})
	if _, err := c.List(context.Background(), rg+"/providers/Microsoft.KeyVault/vaults/kv1/secrets", testAPI); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); strings.Contains(out, "page-secret-1") || !strings.Contains(out, "page-visible") {
		t.Fatalf("log:\n%s", out)
	}
}

func TestErrorMessagesAreScrubbed(t *testing.T) {
	reg := secret.NewRegistry()
	reg.Register("quoted-by-arm-secret-9")
	f := newFakeARM(t)
	f.handle("PUT", testID, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 400, map[string]any{"error": map[string]any{
			"code":    "InvalidRequestContent",
			"message": "The request content was invalid: " + string(mustRead(r)),
			"details": []any{map[string]any{"code": "Bad", "message": "value 'quoted-by-arm-secret-9' and AccountKey=abc123def== rejected"}},
		}})
	})
	_, err := f.client(func(o *Options) { o.Secrets = reg }).Put(context.Background(), testID, testAPI, map[string]any{"properties": map[string]any{"x": "quoted-by-arm-secret-9"}}, nil)
	if err == nil {
		t.Fatal("no error")
	}
	var e *Error
	if !asError(err, &e) {
		t.Fatalf("%T", err)
	}
	for _, text := range []string{err.Error(), string(e.Body)} {
		if strings.Contains(text, "quoted-by-arm-secret-9") || strings.Contains(text, "abc123def") {
			t.Errorf("error text leaks a secret: %s", text)
		}
	}
	if !strings.Contains(err.Error(), secret.Placeholder) {
		t.Errorf("error does not show where the secret was: %s", err)
	}
}

// Parallel logging keeps lines whole (the log is read by people and by
// grep in CI).
func TestLogLinesDoNotInterleave(t *testing.T) {
	c, buf := echoLogClient(t, nil, func(o *Options) { o.Verbosity = VerbosityRequests })
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Go(func() { _, _ = c.Get(context.Background(), testID, testAPI) })
	}
	wg.Wait()
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if !strings.HasPrefix(line, "GET https://") {
			t.Fatalf("broken line %q", line)
		}
	}
}

// Secrets of the request body are hidden from an error that quotes it,
// even when nobody registered them.
func TestErrorHidesTheRequestBodysSecrets(t *testing.T) {
	cases := map[string]map[string]any{
		"/providers/Microsoft.Sql/servers/sql1":                        {"properties": map[string]any{"administratorLoginPassword": "unregistered-pass-77", "version": "12.0"}},
		"/providers/Microsoft.KeyVault/vaults/kv/secrets/s":            {"properties": map[string]any{"value": "unregistered-kv-88"}},
		"/providers/Microsoft.Compute/virtualMachines/vm/extensions/e": {"properties": map[string]any{"protectedSettings": map[string]any{"script": "unregistered-script-99"}}},
	}
	for suffix, body := range cases {
		f := newFakeARM(t)
		id := rg + suffix
		f.handle("PUT", id, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 400, map[string]any{"error": map[string]any{
				"code":    "InvalidRequestContent",
				"message": "Could not parse the request content: " + string(mustRead(r)),
			}})
		})
		_, err := f.client().Put(context.Background(), id, testAPI, body, nil)
		if err == nil {
			t.Fatalf("%s: no error", suffix)
		}
		msg := err.Error()
		if strings.Contains(msg, "unregistered-") {
			t.Errorf("%s: error shows a body secret: %s", suffix, msg)
		}
		if !strings.Contains(msg, "Could not parse") || !strings.Contains(msg, secret.Placeholder) {
			t.Errorf("%s: error lost its message: %s", suffix, msg)
		}
	}
}

// TestSensitivePathForms: the schema paths Options.SensitivePaths hands
// over ("[]" items, "*" members, quoted members) hide the concrete values
// they name; a malformed one hides nothing by path.
func TestSensitivePathForms(t *testing.T) {
	bc := bodyCtx{c: &Client{}}
	for pattern, concrete := range map[string]string{
		"properties.secrets[].value":  "properties.secrets[0].value",
		"properties.secrets[*].value": "properties.secrets[1].value",
		"properties.*":                "properties.anything",
		"properties.matrix[][].x":     "properties.matrix[0][2].x",
		`tags."a.b"`:                  `tags."a.b"`,
	} {
		bc.c.opts.SensitivePaths = func(string, string) []string { return []string{pattern} }
		if !bc.ruleFor("Microsoft.Test/things", "t").At(mustPath(t, concrete), "v") {
			t.Errorf("pattern %s does not hide %s", pattern, concrete)
		}
	}
	bc.c.opts.SensitivePaths = func(string, string) []string { return []string{"a..b", ""} }
	if bc.ruleFor("Microsoft.Test/things", "t").At(mustPath(t, "a.b"), "v") {
		t.Error("a malformed path hid a value")
	}
}

// dotnetEscape writes s as a .NET JSON serializer does inside a string:
// quotes and backslashes escaped, <, > and every non-ASCII character as
// \uXXXX in upper case.
func dotnetEscape(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c == '<' || c == '>' || c > 0x7e:
			fmt.Fprintf(&b, `\u%04X`, c)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// TestErrorHidesEscapedAndShortSecrets: ARM 400s that quote the request
// body as a JSON string escape it (\", \u003C, \u00C9); the body's secrets
// are hidden in every spelling, and a secret shorter than four bytes is
// hidden where it is a whole quoted value, without shredding the rest.
func TestErrorHidesEscapedAndShortSecrets(t *testing.T) {
	cases := []struct {
		suffix string
		body   map[string]any
		clear  []string
	}{
		{"/providers/Microsoft.KeyVault/vaults/kv/secrets/long", map[string]any{"properties": map[string]any{"value": `<É"pw-unregistered>`}},
			[]string{`pw-unregistered`}},
		{"/providers/Microsoft.KeyVault/vaults/kv/secrets/short", map[string]any{"properties": map[string]any{"value": "x7!", "contentType": "text"}},
			[]string{`"x7!`, `x7!\"`, `x7!\\\"`}},
		{"/providers/Microsoft.Sql/servers/sql1", map[string]any{"properties": map[string]any{"administratorLoginPassword": "Ab1", "version": "12.0"}},
			[]string{`"Ab1`, `Ab1\"`}},
	}
	for _, tt := range cases {
		f := newFakeARM(t)
		id := rg + tt.suffix
		f.handle("PUT", id, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 400, map[string]any{"error": map[string]any{
				"code":    "InvalidRequestContent",
				"message": `Could not parse the request content "` + dotnetEscape(string(mustRead(r))) + `"`,
			}})
		})
		_, err := f.client().Put(context.Background(), id, testAPI, tt.body, nil)
		var e *Error
		if !asError(err, &e) {
			t.Fatalf("%s: %T %v", tt.suffix, err, err)
		}
		for _, text := range []string{err.Error(), string(e.Body)} {
			for _, c := range tt.clear {
				if strings.Contains(text, c) {
					t.Errorf("%s: error shows the secret (%s): %s", tt.suffix, c, text)
				}
			}
			if !strings.Contains(text, "properties") || !strings.Contains(text, "Could not parse") {
				t.Errorf("%s: error lost its message: %s", tt.suffix, text)
			}
		}
	}
}

func mustPath(t *testing.T, s string) bodypath.Path {
	t.Helper()
	p, err := bodypath.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestClientsScrubWithTheirRunsRegistry: a client scrubs its logs with the
// registry of its own run (Options.Secrets); a value another run
// registered is not one of its secrets.
func TestClientsScrubWithTheirRunsRegistry(t *testing.T) {
	const v = "run-a-registered-value-31"
	a := secret.NewRegistry()
	a.Register(v)
	body := map[string]any{"tags": map[string]any{"note": "x " + v + " y"}}
	id := rg + "/providers/Microsoft.Storage/storageAccounts/st1"
	for _, tc := range []struct {
		name   string
		reg    *secret.Registry
		hidden bool
	}{{"run A", a, true}, {"run B", secret.NewRegistry(), false}} {
		c, buf := echoLogClient(t, nil, func(o *Options) { o.Secrets = tc.reg })
		if _, err := c.Put(context.Background(), id, testAPI, body, nil); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(buf.String(), v); got == tc.hidden {
			t.Errorf("%s: value in log = %v, want %v:\n%s", tc.name, got, !tc.hidden, buf.String())
		}
	}
}

// hiddenAndVisible fails the test for every hidden string text shows and
// every visible string it lacks.
func hiddenAndVisible(t *testing.T, text string, hidden, visible []string) {
	t.Helper()
	for _, h := range hidden {
		if strings.Contains(text, h) {
			t.Errorf("shows %q:\n%s", h, text)
		}
	}
	for _, v := range visible {
		if !strings.Contains(text, v) {
			t.Errorf("lacks %q:\n%s", v, text)
		}
	}
}
