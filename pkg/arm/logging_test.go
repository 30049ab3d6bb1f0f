package arm

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// logServer is an HTTPS fake ARM, so requests carry a bearer token that
// the log must hide.
func logServer(t *testing.T) *httptest.Server {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("x-ms-request-id", "req-123")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"name": "st1",
			"properties": map[string]any{
				"primaryKey":       "RESP-SECRET-1",
				"connectionString": "DefaultEndpointsProtocol=https;AccountName=st1;AccountKey=RESP-SECRET-2",
				"sku":              "Standard_LRS",
			},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func logClient(t *testing.T, srv *httptest.Server, v int, buf *bytes.Buffer) *Client {
	o := testOptions(srv.URL)
	o.HTTPClient = srv.Client()
	o.Credential = staticCred{}
	o.Verbosity = v
	o.Log = buf
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var secretBody = map[string]any{
	"location": "westeurope",
	"properties": map[string]any{
		"administratorLoginPassword": "REQ-SECRET-1",
		"clientSecret":               "REQ-SECRET-2",
		"SASToken":                   "REQ-SECRET-3",
		"siteConfig": map[string]any{
			"appSettings": []any{
				map[string]any{"name": "DB_PASSWORD", "value": "REQ-SECRET-4"},
				map[string]any{"name": "PLAIN", "value": "visible-value"},
			},
		},
		"storage": "https://st1.blob.core.windows.net/c?sv=2022&sig=REQ-SECRET-5",
		"tier":    "Hot",
	},
}

func TestLogLevels(t *testing.T) {
	srv := logServer(t)
	for _, tc := range []struct {
		v               int
		headers, bodies bool
		anything        bool
	}{
		{0, false, false, false},
		{4, false, false, true},
		{6, true, false, true},
		{8, true, true, true},
	} {
		var buf bytes.Buffer
		c := logClient(t, srv, tc.v, &buf)
		if _, err := c.Put(context.Background(), testID, testAPI, secretBody, nil); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if !tc.anything {
			if out != "" {
				t.Errorf("-v=%d logged %q", tc.v, out)
			}
			continue
		}
		line := regexp.MustCompile(`(?m)^PUT https://127\.0\.0\.1:\d+/subscriptions/.*/storageAccounts/st1\?api-version=2023-05-01 200 in \d+(\.\d+)?(ms|µs|s)$`)
		if !line.MatchString(out) {
			t.Errorf("-v=%d: no request line in %q", tc.v, out)
		}
		if got := strings.Contains(strings.ToLower(out), "x-ms-request-id: req-123"); got != tc.headers {
			t.Errorf("-v=%d: headers logged = %v", tc.v, got)
		}
		if got := strings.Contains(out, "Standard_LRS"); got != tc.bodies {
			t.Errorf("-v=%d: bodies logged = %v", tc.v, got)
		}
	}
}

func TestLogRedactsSecrets(t *testing.T) {
	srv := logServer(t)
	var buf bytes.Buffer
	c := logClient(t, srv, 8, &buf)
	if _, err := c.Put(context.Background(), testID, testAPI, secretBody, nil); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, secret := range []string{"static-token-value", "REQ-SECRET-1", "REQ-SECRET-2", "REQ-SECRET-3", "REQ-SECRET-4", "REQ-SECRET-5", "RESP-SECRET-1", "RESP-SECRET-2"} {
		if strings.Contains(out, secret) {
			t.Errorf("log contains %s:\n%s", secret, out)
		}
	}
	for _, visible := range []string{"Authorization: REDACTED", "visible-value", "Hot", "westeurope", "Standard_LRS"} {
		if !strings.Contains(out, visible) {
			t.Errorf("log lacks %q:\n%s", visible, out)
		}
	}
}

func TestRedactHelpers(t *testing.T) {
	for name, secret := range map[string]bool{
		"password": true, "adminPassword": true, "SECRET": true, "accessToken": true,
		"connectionString": true, "primaryKey": true, "keys": true, "key1": true,
		"location": false, "sku": false, "keyVaultUri": false, "tier": false, "name": false,
	} {
		if got := isSecretHeader(name); got != secret {
			t.Errorf("isSecretHeader(%q) = %v", name, got)
		}
	}
	if got := redactText("Server=x;Password=hunter2;User=a"); strings.Contains(got, "hunter2") || !strings.Contains(got, "User=a") {
		t.Errorf("redactText: %s", got)
	}
	if got := redactText("Authorization: Bearer eyJ0eXAi.abc.def"); strings.Contains(got, "eyJ0eXAi") {
		t.Errorf("redactText: %s", got)
	}
}

func TestErrorBodyDoesNotLeakIntoLogWithoutVerbosity(t *testing.T) {
	f := newFakeARM(t)
	var buf bytes.Buffer
	c := f.client(func(o *Options) { o.Log = &buf; o.Verbosity = 4 })
	_, _ = c.Get(context.Background(), testID, testAPI)
	if !strings.Contains(buf.String(), " 404 in ") || strings.Contains(buf.String(), "no handler") {
		t.Fatalf("log %q", buf.String())
	}
}
