package emulator

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// serveIdentity answers the Entra ID endpoints azidentity's client-secret
// credential uses, so a test can authenticate against the emulator with
// ClientOptions.Cloud.ActiveDirectoryAuthorityHost = emulator URL:
//
//	GET  /{tenant}/v2.0/.well-known/openid-configuration  (MSAL's tenant discovery)
//	GET  /common/discovery/instance                       (instance discovery, when not disabled)
//	POST /{tenant}/oauth2/v2.0/token                      (client credentials grant)
//
// Any client ID and secret are accepted. It reports whether it handled r.
// The ADFS-style endpoints of a private cloud are in cloud.go.
func (s *Server) serveIdentity(w http.ResponseWriter, r *http.Request) bool {
	if s.serveCloud(w, r) {
		return true
	}
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	base := s.baseURL(r)
	switch {
	case len(segs) == 4 && segs[1] == "v2.0" && segs[2] == ".well-known" && segs[3] == "openid-configuration":
		t := segs[0]
		writeJSON(w, http.StatusOK, map[string]any{
			"issuer":                                base + "/" + t + "/v2.0",
			"authorization_endpoint":                base + "/" + t + "/oauth2/v2.0/authorize",
			"token_endpoint":                        base + "/" + t + "/oauth2/v2.0/token",
			"device_authorization_endpoint":         base + "/" + t + "/oauth2/v2.0/devicecode",
			"end_session_endpoint":                  base + "/" + t + "/oauth2/v2.0/logout",
			"jwks_uri":                              base + "/" + t + "/discovery/v2.0/keys",
			"response_types_supported":              []string{"code", "id_token", "code id_token", "id_token token"},
			"subject_types_supported":               []string{"pairwise"},
			"id_token_signing_alg_values_supported": []string{"RS256"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_post", "private_key_jwt", "client_secret_basic"},
			"scopes_supported":                      []string{"openid", "profile", "email", "offline_access"},
			"tenant_region_scope":                   "NA",
			"cloud_instance_name":                   "emulator",
		})
		return true
	case len(segs) == 3 && segs[0] == "common" && segs[1] == "discovery" && segs[2] == "instance":
		host := r.Host
		writeJSON(w, http.StatusOK, map[string]any{
			"tenant_discovery_endpoint": base + "/common/v2.0/.well-known/openid-configuration",
			"api-version":               "1.1",
			"metadata": []any{map[string]any{
				"preferred_network": host, "preferred_cache": host, "aliases": []string{host},
			}},
		})
		return true
	case len(segs) == 4 && segs[1] == "oauth2" && segs[2] == "v2.0" && segs[3] == "token":
		s.serveToken(w, r, segs[0])
		return true
	}
	return false
}

// serveToken answers a client credentials grant for tenant.
func (s *Server) serveToken(w http.ResponseWriter, r *http.Request, tenant string) {
	if r.Method != http.MethodPost {
		writeJSON(w, http.StatusMethodNotAllowed, map[string]any{"error": "invalid_request", "error_description": "use POST"})
		return
	}
	_ = r.ParseForm()
	if r.PostForm.Get("grant_type") == "" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_request", "error_description": "AADSTS900144: The request body must contain the following parameter: 'grant_type'."})
		return
	}
	scope := r.PostForm.Get("scope")
	if scope == "" {
		// ADFS clients ask for a resource rather than a scope.
		scope = r.PostForm.Get("resource")
	}
	if tenant == "adfs" {
		tenant = emulatorTenant
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"token_type":     "Bearer",
		"expires_in":     3599,
		"ext_expires_in": 3599,
		"access_token":   fakeJWT(tenant, r.PostForm.Get("client_id"), scope),
	})
}

// fakeJWT returns an unsigned JWT-shaped token with the claims tools print
// (tid, appid, aud); ARM on the emulator never checks it.
func fakeJWT(tenant, client, scope string) string {
	enc := base64.RawURLEncoding
	hdr, _ := json.Marshal(map[string]any{"alg": "none", "typ": "JWT"})
	now := time.Now().Unix()
	claims, _ := json.Marshal(map[string]any{
		"aud": strings.TrimSuffix(scope, "/.default"), "tid": tenant, "appid": client,
		"iat": now, "nbf": now, "exp": now + 3599, "iss": "emulator",
	})
	return enc.EncodeToString(hdr) + "." + enc.EncodeToString(claims) + ".emulator"
}
