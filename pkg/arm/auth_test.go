package arm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

const (
	testTenant   = "11111111-2222-3333-4444-555555555555"
	testClientID = "client-abc"
	testSecret   = "s3cr3t-value"
	issuedToken  = "issued-access-token"
)

// tokenAndARM is one TLS server playing both Entra (OpenID discovery and
// the v2 token endpoint) and ARM (which insists on the issued token).
type tokenAndARM struct {
	srv *httptest.Server

	mu          sync.Mutex
	tokenForms  []map[string]string
	armAuth     []string
	tokenCalled int
}

func newTokenAndARM(t *testing.T) *tokenAndARM {
	s := &tokenAndARM{}
	s.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		base := "https://" + r.Host
		switch {
		case strings.HasSuffix(r.URL.Path, "/.well-known/openid-configuration"):
			tenant := strings.Split(strings.Trim(r.URL.Path, "/"), "/")[0]
			fmt.Fprintf(w, `{"token_endpoint":%q,"authorization_endpoint":%q,"issuer":%q}`,
				base+"/"+tenant+"/oauth2/v2.0/token", base+"/"+tenant+"/oauth2/v2.0/authorize", base+"/"+tenant+"/v2.0")
		case strings.HasSuffix(r.URL.Path, "/oauth2/v2.0/token"):
			_ = r.ParseForm()
			form := map[string]string{"path": r.URL.Path}
			for k := range r.PostForm {
				form[k] = r.PostForm.Get(k)
			}
			s.mu.Lock()
			s.tokenForms = append(s.tokenForms, form)
			s.tokenCalled++
			s.mu.Unlock()
			if form["client_secret"] != testSecret {
				w.WriteHeader(401)
				fmt.Fprint(w, `{"error":"invalid_client","error_description":"bad secret"}`)
				return
			}
			fmt.Fprintf(w, `{"token_type":"Bearer","expires_in":3600,"ext_expires_in":3600,"access_token":%q}`, issuedToken)
		case strings.HasPrefix(r.URL.Path, "/subscriptions/"):
			s.mu.Lock()
			s.armAuth = append(s.armAuth, r.Header.Get("Authorization"))
			s.mu.Unlock()
			if r.Header.Get("Authorization") != "Bearer "+issuedToken {
				w.WriteHeader(401)
				fmt.Fprint(w, `{"error":{"code":"InvalidAuthenticationToken","message":"bad token"}}`)
				return
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"id": r.URL.Path})
		default:
			w.WriteHeader(404)
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func TestClientSecretCredentialAgainstTLSTokenEndpoint(t *testing.T) {
	s := newTokenAndARM(t)
	o := testOptions(s.srv.URL)
	o.HTTPClient = s.srv.Client()
	o.Auth = AuthClientSecret
	o.TenantID, o.ClientID, o.ClientSecret = testTenant, testClientID, testSecret
	o.AuthorityHost = s.srv.URL + "/"
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Authenticated() {
		t.Fatal("https endpoint without credential")
	}
	for i := 0; i < 3; i++ {
		if _, err := c.Get(context.Background(), testID, testAPI); err != nil {
			t.Fatal(err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tokenCalled != 1 {
		t.Fatalf("token endpoint called %d times; the token must be cached", s.tokenCalled)
	}
	f := s.tokenForms[0]
	if f["path"] != "/"+testTenant+"/oauth2/v2.0/token" || f["grant_type"] != "client_credentials" || f["client_id"] != testClientID {
		t.Fatalf("token request %v", f)
	}
	// MSAL adds its OIDC scopes; the resource scope is the ARM audience.
	if strings.Fields(f["scope"])[0] != "https://management.core.windows.net/.default" {
		t.Fatalf("scope %q", f["scope"])
	}
	if len(s.armAuth) != 3 || s.armAuth[2] != "Bearer "+issuedToken {
		t.Fatalf("ARM saw %v", s.armAuth)
	}
}

func TestClientSecretCredentialRejected(t *testing.T) {
	s := newTokenAndARM(t)
	o := testOptions(s.srv.URL)
	o.HTTPClient = s.srv.Client()
	o.MaxRetries = -1
	o.Auth = AuthClientSecret
	o.TenantID, o.ClientID, o.ClientSecret = testTenant, testClientID, "wrong"
	o.AuthorityHost = s.srv.URL + "/"
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Get(context.Background(), testID, testAPI)
	if err == nil || !strings.Contains(err.Error(), "invalid_client") {
		t.Fatalf("want the token error, got %v", err)
	}
	if strings.Contains(err.Error(), "wrong") {
		t.Fatalf("error leaks the secret: %v", err)
	}
	if len(s.armAuth) != 0 {
		t.Fatal("ARM was called without a token")
	}
}

func TestAuthorityHostMustBeHTTPS(t *testing.T) {
	o := DefaultOptions()
	o.Auth = AuthClientSecret
	o.TenantID, o.ClientID, o.ClientSecret = testTenant, testClientID, testSecret
	o.AuthorityHost = "http://127.0.0.1:1/"
	if _, err := New(o); err == nil || !strings.Contains(err.Error(), "https") {
		t.Fatalf("err %v", err)
	}
}

func TestEveryAuthModeBuilds(t *testing.T) {
	for _, m := range []string{AuthDefault, AuthCLI, AuthEnv, AuthWorkloadIdentity, AuthManagedIdentity} {
		o := DefaultOptions()
		o.Auth = m
		// Workload identity reads its settings from the environment;
		// give it a complete set so construction itself is tested.
		if m == AuthWorkloadIdentity {
			t.Setenv("AZURE_TENANT_ID", testTenant)
			t.Setenv("AZURE_CLIENT_ID", testClientID)
			t.Setenv("AZURE_FEDERATED_TOKEN_FILE", t.TempDir()+"/token")
		}
		if m == AuthEnv {
			t.Setenv("AZURE_TENANT_ID", testTenant)
			t.Setenv("AZURE_CLIENT_ID", testClientID)
			t.Setenv("AZURE_CLIENT_SECRET", testSecret)
		}
		c, err := New(o)
		if err != nil {
			t.Errorf("%s: %v", m, err)
			continue
		}
		if !c.Authenticated() {
			t.Errorf("%s: public cloud endpoint without credential", m)
		}
	}
}
