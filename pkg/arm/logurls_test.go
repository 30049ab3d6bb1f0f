package arm

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// Issue 27 item 9 (client side): -v 6 prints the polling and paging URLs
// ARM hands out, whose query strings carry signatures (ARM's own
// operation URLs: t, c, s, h; SAS: sig, se, skoid ...). Only parameters
// known to be harmless keep their values.
func TestLogRedactsPollingAndPagingURLs(t *testing.T) {
	f, _ := newTLSFakeARM(t)
	base := f.srv.URL
	opPath := "/subscriptions/" + testSub + "/providers/Microsoft.Storage/locations/westeurope/asyncoperations/op1"
	sas := "&t=638400000000000000&c=MIIHCERTSECRET&s=ARMSIGSECRET&h=HASHSECRET&sig=SASSIGSECRET&se=2099-01-01&skoid=SKOIDSECRET&sktid=SKTIDSECRET&token=TOKENSECRET&code=CODESECRET"
	polls := 0
	f.handle("PUT", testID, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Azure-AsyncOperation", base+opPath+"?api-version="+testAPI+sas)
		w.Header().Set("Location", base+opPath+"?api-version="+testAPI+"&monitor=true"+sas)
		writeJSON(w, http.StatusCreated, map[string]any{"id": testID, "properties": map[string]any{"provisioningState": "Creating"}})
	})
	f.handle("GET", opPath, func(w http.ResponseWriter, r *http.Request) {
		polls++
		writeJSON(w, http.StatusOK, map[string]any{"status": "Succeeded"})
	})
	f.handle("GET", testID, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"id": testID, "properties": map[string]any{"provisioningState": "Succeeded"}})
	})
	coll := "/subscriptions/" + testSub + "/resourceGroups/rg1/providers/Microsoft.Storage/storageAccounts"
	f.handle("GET", coll, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("$skiptoken") == "" {
			writeJSON(w, http.StatusOK, map[string]any{"value": []any{map[string]any{"id": testID}},
				"nextLink": fmt.Sprintf("%s%s?api-version=%s&$skiptoken=SKIPTOKENSECRET%s", base, coll, testAPI, sas)})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"value": []any{}})
	})

	var buf bytes.Buffer
	c := tlsClient(t, f, logTo(&buf, VerbosityHeaders))
	if _, err := c.Put(context.Background(), testID, testAPI, map[string]any{"location": "westeurope"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.List(context.Background(), coll, testAPI); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if polls == 0 || !strings.Contains(out, "Azure-Asyncoperation") && !strings.Contains(out, "Azure-AsyncOperation") {
		t.Fatalf("no polling header logged:\n%s", out)
	}
	for _, s := range []string{"MIIHCERTSECRET", "ARMSIGSECRET", "HASHSECRET", "SASSIGSECRET", "SKOIDSECRET", "SKTIDSECRET", "TOKENSECRET", "CODESECRET", "SKIPTOKENSECRET", "2099-01-01", "638400000000000000"} {
		if strings.Contains(out, s) {
			t.Errorf("log contains %s:\n%s", s, out)
		}
	}
	for _, v := range []string{"api-version=" + testAPI, "monitor=true", "asyncoperations/op1"} {
		if !strings.Contains(out, v) {
			t.Errorf("log lacks %q:\n%s", v, out)
		}
	}
}

func TestRedactTextHidesURLQueries(t *testing.T) {
	in := `polling https://management.azure.com/x/operations/1?api-version=2020-01-01&c=CERTSECRET&s=SIGSECRET failed; blob https://st.blob.core.windows.net/c/b?sv=2022-11-02&se=2030&sig=SIG2&skoid=OID`
	got := redactText(in)
	for _, s := range []string{"CERTSECRET", "SIGSECRET", "SIG2", "OID", "se=2030"} {
		if strings.Contains(got, s) {
			t.Errorf("redactText kept %s: %s", s, got)
		}
	}
	if !strings.Contains(got, "api-version=2020-01-01") || !strings.Contains(got, "failed; blob") {
		t.Errorf("redactText: %s", got)
	}
}
