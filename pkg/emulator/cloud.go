package emulator

import (
	"net/http"
	"strings"
)

// DefaultSubscription is listed by GET /subscriptions from the start, as a
// real account lists its subscription before anything is created in it: the
// Azure CLI's login ends with "No subscriptions found" otherwise. It is the
// subscription `make demo` and the docs use.
const DefaultSubscription = "00000000-0000-0000-0000-000000000001"

// serveCloud answers what a client asks before it talks to ARM when it is
// pointed at a private cloud (Azure Stack's way in, the only one `az cloud
// register` offers for a custom ARM endpoint):
//
//	GET  /metadata/endpoints?api-version=2015-01-01  (az cloud register)
//	GET  /adfs/.well-known/openid-configuration      (MSAL, ADFS-style authority)
//	POST /adfs/oauth2/token                          (client credentials grant)
//	GET  /tenants                                    (az login, az account tenant list)
//
// It reports whether it handled r.
func (s *Server) serveCloud(w http.ResponseWriter, r *http.Request) bool {
	// az joins the endpoint it was given (often with a trailing slash) and
	// the path, so "//metadata/endpoints" arrives as well.
	path := "/" + strings.Trim(r.URL.Path, "/")
	base := s.baseURL(r)
	switch {
	case strings.EqualFold(path, "/metadata/endpoints"):
		if r.Method != http.MethodGet {
			writeError(w, methodNotAllowed(r.Method).err)
			return true
		}
		writeJSON(w, http.StatusOK, cloudMetadata(base))
		return true
	case strings.EqualFold(path, "/adfs/.well-known/openid-configuration"):
		writeJSON(w, http.StatusOK, adfsConfiguration(base))
		return true
	case strings.EqualFold(path, "/adfs/oauth2/token"):
		s.serveToken(w, r, "adfs")
		return true
	case strings.EqualFold(path, "/tenants"):
		if r.Method != http.MethodGet {
			writeError(w, methodNotAllowed(r.Method).err)
			return true
		}
		if r.URL.Query().Get("api-version") == "" {
			writeError(w, errMissingAPIVersion())
			return true
		}
		writeJSON(w, http.StatusOK, map[string]any{"value": []any{tenantBody()}})
		return true
	}
	return false
}

// cloudMetadata is the 2015-01-01 shape of ARM's metadata endpoint, as
// Azure Stack Hub serves it. The login endpoint is this server: az appends
// the tenant, so `--tenant adfs` makes an ADFS authority (MSAL then skips
// instance discovery) and a tenant ID the Entra one; both are served. The
// audience is this endpoint itself.
func cloudMetadata(base string) map[string]any {
	return map[string]any{
		"galleryEndpoint": base + "/",
		"graphEndpoint":   base + "/",
		"portalEndpoint":  base + "/",
		"authentication": map[string]any{
			"loginEndpoint": base + "/",
			"audiences":     []string{base + "/"},
		},
	}
}

// adfsConfiguration is the OpenID configuration an ADFS authority serves
// at /adfs/.well-known/openid-configuration.
func adfsConfiguration(base string) map[string]any {
	a := base + "/adfs"
	return map[string]any{
		"issuer":                                a,
		"authorization_endpoint":                a + "/oauth2/authorize",
		"token_endpoint":                        a + "/oauth2/token",
		"device_authorization_endpoint":         a + "/oauth2/devicecode",
		"end_session_endpoint":                  a + "/oauth2/logout",
		"jwks_uri":                              a + "/discovery/keys",
		"userinfo_endpoint":                     a + "/userinfo",
		"response_types_supported":              []string{"code", "id_token", "code id_token", "id_token token", "code token", "code id_token token"},
		"response_modes_supported":              []string{"query", "fragment", "form_post"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token", "client_credentials", "urn:ietf:params:oauth:grant-type:device_code"},
		"subject_types_supported":               []string{"pairwise"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_post", "client_secret_basic", "private_key_jwt"},
		"scopes_supported":                      []string{"openid", "profile", "email", "offline_access", "allatclaims", "user_impersonation"},
		"access_token_issuer":                   "http://emulator/adfs/services/trust",
	}
}

// tenantBody is one item of GET /tenants (api-version 2020-01-01 and later).
func tenantBody() map[string]any {
	return map[string]any{
		"id":             "/tenants/" + emulatorTenant,
		"tenantId":       emulatorTenant,
		"countryCode":    "US",
		"displayName":    "Emulated tenant",
		"domains":        []string{"emulator.local"},
		"defaultDomain":  "emulator.local",
		"tenantCategory": "Home",
		"tenantType":     "AAD",
	}
}
