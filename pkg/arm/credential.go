package arm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
)

// AuthError is a failure to get a token: no login, an expired one, a
// wrong secret. azidentity's own text lists every credential it tried on
// tab-indented lines (a dozen lines for the default chain, printed as
// \u0009 escapes by the CLI's safe printer); AuthError says it in a few
// lines with what to do, and keeps the original for errors.Unwrap.
type AuthError struct {
	// Mode is the --auth value ("default" when empty).
	Mode string
	// Cause is azidentity's error.
	Cause error
}

func (e *AuthError) Error() string {
	mode := e.Mode
	if mode == "" {
		mode = AuthDefault
	}
	var b strings.Builder
	var afe *azidentity.AuthenticationFailedError
	if errors.As(e.Cause, &afe) {
		// The identity provider answered and said no.
		fmt.Fprintf(&b, "Azure rejected the credential (--auth %s): %s\n", mode, rejectedReason(afe))
		b.WriteString("  to fix: check the tenant, client ID and secret or certificate (expired? rotated?), or run `az login` again; ")
		b.WriteString("for the local emulator use --endpoint http://127.0.0.1:PORT (no login needed)")
		return b.String()
	}
	fmt.Fprintf(&b, "could not get an Azure token (--auth %s): %s\n", mode, authReason(e.Cause))
	b.WriteString("  to fix, do one of:\n")
	b.WriteString("  - run `az login` (and `az account set --subscription ID`), then re-run\n")
	b.WriteString("  - use --auth client-secret with AZURE_TENANT_ID, AZURE_CLIENT_ID and AZURE_CLIENT_SECRET set\n")
	b.WriteString("  - use --endpoint http://127.0.0.1:PORT to work against the local emulator (no login needed)")
	return b.String()
}

// rejectedReason is Entra's error code and the first sentence of its
// description (AADSTS7000215: Invalid client secret provided.).
func rejectedReason(e *azidentity.AuthenticationFailedError) string {
	if e.RawResponse != nil {
		if data, err := runtime.Payload(e.RawResponse); err == nil {
			var env struct {
				Error       string `json:"error"`
				Description string `json:"error_description"`
			}
			if json.Unmarshal(data, &env) == nil && env.Error != "" {
				d := env.Description
				if i := strings.IndexAny(d, "\r\n"); i >= 0 {
					d = d[:i]
				}
				if d == "" {
					return env.Error
				}
				return env.Error + ": " + safeLine(redactText(d), 200)
			}
		}
		return fmt.Sprintf("the token endpoint answered %d", e.RawResponse.StatusCode)
	}
	return authReason(e)
}

func (e *AuthError) Unwrap() error { return e.Cause }

// NonRetriable: retrying a missing login only repeats the same lookups.
func (*AuthError) NonRetriable() {}

// authReason is the first meaningful line of azidentity's message, on one
// line and short: the full list of attempted credentials is noise to a
// user who has not logged in.
func authReason(err error) string {
	if err == nil {
		return "no credential"
	}
	// No run's registry here (the credential is shared and knows no
	// manifest values): embedded credentials are redacted, and the run
	// scrubs the whole error with its registry before printing it.
	msg := redactText(err.Error())
	low := strings.ToLower(msg)
	switch {
	case strings.Contains(low, "attempted credentials"):
		return "none of the credentials tried works here (Azure CLI login, AZURE_* environment, managed or workload identity)"
	case strings.Contains(low, "az login"):
		return "the Azure CLI is not logged in"
	case strings.Contains(low, "azureclicredential") && strings.Contains(low, "not found"):
		return "the Azure CLI (az) is not installed or not on PATH"
	}
	first := msg
	if i := strings.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	return safeLine(first, 200)
}

// hintCredential turns a credential's failures into AuthError.
type hintCredential struct {
	inner azcore.TokenCredential
	mode  string
}

func (h hintCredential) GetToken(ctx context.Context, o policy.TokenRequestOptions) (azcore.AccessToken, error) {
	tk, err := h.inner.GetToken(ctx, o)
	if err != nil && ctx.Err() == nil && !errors.As(err, new(*AuthError)) {
		err = &AuthError{Mode: h.mode, Cause: err}
	}
	return tk, err
}
