package arm

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// Issue 33 item 6: no login at all gives a few readable lines that say
// what to do, not azidentity's dozen tab-indented lines.
func TestMissingLoginSaysWhatToDo(t *testing.T) {
	for _, k := range []string{"AZURE_CLIENT_ID", "AZURE_TENANT_ID", "AZURE_CLIENT_SECRET", "AZURE_CLIENT_CERTIFICATE_PATH",
		"AZURE_USERNAME", "AZURE_FEDERATED_TOKEN_FILE", "IDENTITY_ENDPOINT", "MSI_ENDPOINT"} {
		t.Setenv(k, "")
	}
	// Only the developer credentials (Azure CLI, azd, PowerShell), and
	// none of them on PATH: fails at once, without probing IMDS.
	t.Setenv("AZURE_TOKEN_CREDENTIALS", "dev")
	t.Setenv("PATH", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	for _, mode := range []string{AuthDefault, AuthCLI} {
		t.Run(mode, func(t *testing.T) {
			f, _ := newTLSFakeARM(t)
			o := testOptions(f.srv.URL)
			o.HTTPClient = f.srv.Client()
			o.Auth = mode
			c, err := New(o)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Get(context.Background(), testID, testAPI)
			var ae *AuthError
			if !errors.As(err, &ae) {
				t.Fatalf("Get = %v; want *AuthError", err)
			}
			msg := err.Error()
			if n := strings.Count(msg, "\n") + 1; n > 6 {
				t.Errorf("%d lines:\n%s", n, msg)
			}
			if strings.ContainsAny(msg, "\t\r") {
				t.Errorf("tabs in %q", msg)
			}
			for _, w := range []string{"az login", "--auth client-secret", "AZURE_TENANT_ID", "AZURE_CLIENT_ID", "AZURE_CLIENT_SECRET", "--endpoint", "--auth " + mode} {
				if !strings.Contains(msg, w) {
					t.Errorf("%q lacks %q", msg, w)
				}
			}
			if len(f.requests()) != 0 {
				t.Error("ARM was called without a token")
			}
			t.Log(msg)
		})
	}
}
