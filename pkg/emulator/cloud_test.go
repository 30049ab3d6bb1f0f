package emulator

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The endpoints `az cloud register` and MSAL's ADFS authority read, in the
// shapes they parse (2015-01-01 metadata: authentication.loginEndpoint and
// audiences; OpenID configuration: token_endpoint).
func TestPrivateCloudLoginEndpoints(t *testing.T) {
	u := startTest(t, nil).URL()

	// az joins a trailing-slash endpoint and the path: "//metadata/...".
	for _, p := range []string{"/metadata/endpoints", "//metadata/endpoints"} {
		r := do(t, http.MethodGet, u+p+"?api-version=2015-01-01", nil)
		if r.Status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", p, r.Status, r.Raw)
		}
		auth, _ := r.Body["authentication"].(map[string]any)
		if auth["loginEndpoint"] != u+"/" {
			t.Errorf("loginEndpoint = %v, want %s/", auth["loginEndpoint"], u)
		}
		if aud, _ := auth["audiences"].([]any); len(aud) == 0 || aud[0] != u+"/" {
			t.Errorf("audiences = %v", auth["audiences"])
		}
	}

	cfg := do(t, http.MethodGet, u+"/adfs/.well-known/openid-configuration", nil)
	tokenURL, _ := cfg.Body["token_endpoint"].(string)
	if cfg.Status != http.StatusOK || tokenURL != u+"/adfs/oauth2/token" {
		t.Fatalf("ADFS configuration: %d token_endpoint=%q", cfg.Status, tokenURL)
	}
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {"app"}, "client_secret": {"s"}, "scope": {u + "//.default"}}
	tok := do(t, http.MethodPost, tokenURL, form.Encode(), "Content-Type", "application/x-www-form-urlencoded")
	if tok.Status != http.StatusOK || tok.Body["access_token"] == "" || tok.Body["token_type"] != "Bearer" {
		t.Fatalf("token: %d %s", tok.Status, tok.Raw)
	}
	if bad := do(t, http.MethodPost, tokenURL, "client_id=app", "Content-Type", "application/x-www-form-urlencoded"); bad.Status != http.StatusBadRequest {
		t.Errorf("token without grant_type: %d, want 400", bad.Status)
	}
}

// A fresh emulator lists a subscription and a tenant, as an account does
// before anything is created: az login otherwise ends in "No subscriptions
// found".
func TestFreshEmulatorListsSubscriptionAndTenant(t *testing.T) {
	u := startTest(t, nil).URL()
	subs := do(t, http.MethodGet, u+"/subscriptions?api-version=2022-12-01", nil)
	items, _ := subs.Body["value"].([]any)
	if len(items) != 1 || str(items[0], "subscriptionId") != DefaultSubscription || str(items[0], "state") != "Enabled" {
		t.Fatalf("subscriptions: %s", subs.Raw)
	}
	ten := do(t, http.MethodGet, u+"/tenants?api-version=2022-12-01", nil)
	items, _ = ten.Body["value"].([]any)
	if ten.Status != http.StatusOK || len(items) != 1 || str(items[0], "tenantId") != emulatorTenant {
		t.Fatalf("tenants: %d %s", ten.Status, ten.Raw)
	}
	if r := do(t, http.MethodGet, u+"/tenants", nil); errCode(r) != "MissingApiVersionParameter" {
		t.Errorf("tenants without api-version: %d %s", r.Status, r.Raw)
	}
	// A subscription written to is listed beside the default one.
	do(t, http.MethodPut, u+"/subscriptions/"+testSub+"/resourceGroups/rg?api-version=2021-04-01", map[string]any{"location": "westus2"})
	subs = do(t, http.MethodGet, u+"/subscriptions?api-version=2022-12-01", nil)
	if items, _ := subs.Body["value"].([]any); len(items) != 2 {
		t.Errorf("after a write in another subscription: %s", subs.Raw)
	}
}

func TestTagNames(t *testing.T) {
	u, g := startWithGroup(t, "rg-tags")
	base := u + "/subscriptions/" + testSub + "/tagNames"
	q := "?api-version=2022-09-01"
	do(t, http.MethodPatch, u+g+"?api-version=2021-04-01", map[string]any{"tags": map[string]any{"env": "prod"}})

	if r := do(t, http.MethodPut, base+"/costCenter"+q, nil); r.Status != http.StatusCreated || r.Body["tagName"] != "costCenter" {
		t.Fatalf("create name: %d %s", r.Status, r.Raw)
	}
	if r := do(t, http.MethodPut, base+"/costcenter"+q, nil); r.Status != http.StatusOK {
		t.Errorf("create again (other casing): %d, want 200", r.Status)
	}
	if r := do(t, http.MethodPut, base+"/costCenter/tagValues/42"+q, nil); r.Status != http.StatusCreated || r.Body["tagValue"] != "42" {
		t.Fatalf("add value: %d %s", r.Status, r.Raw)
	}
	list := do(t, http.MethodGet, base+q, nil)
	items, _ := list.Body["value"].([]any)
	if len(items) != 2 {
		t.Fatalf("list: %s", list.Raw)
	}
	var env map[string]any
	for _, it := range items {
		if m := it.(map[string]any); m["tagName"] == "env" {
			env = m
		}
	}
	if count, _ := env["count"].(map[string]any); count["value"] != float64(1) {
		t.Fatalf("env not counted once: %s", list.Raw)
	}
	if vals, _ := env["values"].([]any); len(vals) != 1 || str(vals[0], "tagValue") != "prod" {
		t.Errorf("env values: %v", env["values"])
	}

	// Names and values in use, or with values left, cannot be deleted.
	if r := do(t, http.MethodDelete, base+"/env"+q, nil); r.Status != http.StatusConflict {
		t.Errorf("delete a name in use: %d, want 409", r.Status)
	}
	if r := do(t, http.MethodDelete, base+"/costCenter"+q, nil); r.Status != http.StatusConflict || !strings.Contains(r.Raw, "predefined value") {
		t.Errorf("delete a name with values: %d %s", r.Status, r.Raw)
	}
	if r := do(t, http.MethodDelete, base+"/env/tagValues/prod"+q, nil); r.Status != http.StatusConflict {
		t.Errorf("delete a value in use: %d, want 409", r.Status)
	}
	if r := do(t, http.MethodDelete, base+"/costCenter/tagValues/42"+q, nil); r.Status != http.StatusOK {
		t.Errorf("delete value: %d", r.Status)
	}
	if r := do(t, http.MethodDelete, base+"/costCenter"+q, nil); r.Status != http.StatusOK {
		t.Errorf("delete name: %d", r.Status)
	}
	if r := do(t, http.MethodDelete, base+"/costCenter"+q, nil); r.Status != http.StatusNoContent {
		t.Errorf("delete a name that is gone: %d, want 204", r.Status)
	}
	if r := do(t, http.MethodGet, base, nil); errCode(r) != "MissingApiVersionParameter" {
		t.Errorf("without api-version: %s", r.Raw)
	}
}
