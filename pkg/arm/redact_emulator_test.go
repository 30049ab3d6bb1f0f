package arm_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// secretLogClient is a client of the emulator at url logging bodies (-v 8)
// to the returned buffer and scrubbing with reg.
func secretLogClient(t *testing.T, url string, reg *secret.Registry) (*arm.Client, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	return emuClient(t, url, func(o *arm.Options) {
		o.Secrets = reg
		o.Verbosity = arm.VerbosityBodies
		o.Log = &buf
	}), &buf
}

// TestErrorHidesTheQuotedStartOfASecret: a tag value over 256 characters
// is refused with its first 40 quoted ("Following tag value 'Kx9…'"); a
// registered secret's start, or a template's result holding it, must not
// reach the error text, its body or the log.
func TestErrorHidesTheQuotedStartOfASecret(t *testing.T) {
	long := "Kx9TOPSECRET" + strings.Repeat("k", 300)
	tmpl := "Server=tcp:sql1;Password=" + long
	srv := startEmulator(t, nil)
	for _, v := range []string{long, tmpl} {
		reg := secret.NewRegistry()
		reg.Register(long, tmpl)
		c, log := secretLogClient(t, srv.URL(), reg)
		_, err := c.Put(context.Background(), emuRG, rgAPI, map[string]any{"location": "westeurope", "tags": map[string]any{"owner": v}}, nil)
		var e *arm.Error
		if !errors.As(err, &e) || e.StatusCode != 400 {
			t.Fatalf("want a 400, got %v", err)
		}
		for name, text := range map[string]string{"error": err.Error(), "body": string(e.Body), "log": log.String()} {
			for _, leak := range []string{"Kx9TOPSECRET", "Password=Kx9", "Server=tcp:sql1"} {
				if strings.Contains(text, leak) {
					t.Errorf("%s shows %q: %s", name, leak, text)
				}
			}
		}
		if !strings.Contains(err.Error(), "Following tag value '"+secret.Placeholder) {
			t.Errorf("the error no longer says which value: %s", err)
		}
	}
}

// TestLogHidesANumberThatIsASecret: a secret from valueFrom may be a
// number (a retention of 700 days from the environment); the provider
// echoes it back as a bare JSON number, which the log must hide in the
// request and in every answer, while other values stay readable.
func TestLogHidesANumberThatIsASecret(t *testing.T) {
	srv := startEmulator(t, nil)
	reg := secret.NewRegistry()
	reg.Register("700")
	c, log := secretLogClient(t, srv.URL(), reg)
	createRG(t, c)
	id := emuRG + "/providers/Microsoft.KeyVault/vaults/kv-secret-num"
	body := map[string]any{
		"location": "westeurope",
		"properties": map[string]any{
			"tenantId":                  "00000000-0000-0000-0000-0000000000aa",
			"sku":                       map[string]any{"family": "A", "name": "standard"},
			"softDeleteRetentionInDays": 700,
			"enableRbacAuthorization":   true,
			"accessPolicies":            []any{},
		},
	}
	if _, err := c.Put(context.Background(), id, "2023-07-01", body, nil); err != nil {
		t.Fatal(err)
	}
	text := log.String()
	if !strings.Contains(text, "response body") {
		t.Fatalf("no bodies logged:\n%s", text)
	}
	for _, leak := range []string{`:700`, `700,`, `700}`} {
		if strings.Contains(text, leak) {
			t.Errorf("the log shows the secret number (%s):\n%s", leak, text)
		}
	}
	if !strings.Contains(text, `"softDeleteRetentionInDays":"REDACTED"`) {
		t.Errorf("the log does not show where the secret was:\n%s", text)
	}
	if !strings.Contains(text, `"enableRbacAuthorization":true`) {
		t.Errorf("the log hides a value that is not secret:\n%s", text)
	}
}
