package arm

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// Redaction hides credentials and nothing else: a help link's linkid and a
// key's creation time are what the user needs to read, and hiding them
// makes the log and the error useless without protecting anything.
func TestRedactTextPrecision(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		hidden  []string
		visible []string
	}{
		{
			name:    "SAS URL",
			in:      "blob https://st1.blob.core.windows.net/c/b.vhd?sv=2022-11-02&se=2030-01-01T00%3A00%3A00Z&sr=b&sp=r&sig=bG9uZy1zaWduYXR1cmUtdmFsdWU%3D rejected",
			hidden:  []string{"bG9uZy1zaWduYXR1cmUtdmFsdWU", "2030-01-01"},
			visible: []string{"https://st1.blob.core.windows.net/c/b.vhd?", "rejected"},
		},
		{
			name:    "SAS token outside a URL",
			in:      "token sv=2022-11-02&ss=b&srt=sco&sp=rl&sig=c2lnbmF0dXJlLW91dHNpZGU%3D",
			hidden:  []string{"c2lnbmF0dXJlLW91dHNpZGU"},
			visible: []string{"sp=rl"},
		},
		{
			name:    "storage connection string",
			in:      "DefaultEndpointsProtocol=https;AccountName=st1prod;AccountKey=QWNjb3VudEtleVZhbHVlMTIz+/==;EndpointSuffix=core.windows.net",
			hidden:  []string{"QWNjb3VudEtleVZhbHVlMTIz"},
			visible: []string{"AccountName=st1prod", "EndpointSuffix=core.windows.net"},
		},
		{
			name:    "Service Bus connection string",
			in:      "Endpoint=sb://ns1.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=U2VydmljZUJ1c0tleQ==",
			hidden:  []string{"U2VydmljZUJ1c0tleQ"},
			visible: []string{"SharedAccessKeyName=RootManageSharedAccessKey"},
		},
		{
			name: "Key Vault soft-delete help link",
			in: "The vault name 'kv-app-prod' is already in use by a vault in the deleted state. " +
				"For more information see https://go.microsoft.com/fwlink/?linkid=2147740.",
			visible: []string{"https://go.microsoft.com/fwlink/?linkid=2147740"},
		},
		{
			name:    "help link with a culture id",
			in:      "see https://go.microsoft.com/fwlink/?LinkId=512749&clcid=0x409 for details",
			visible: []string{"LinkId=512749", "clcid=0x409"},
		},
		{
			name:    "a linkid that is not a number is hidden",
			in:      "see https://example.net/help?linkid=c2VjcmV0LWlu-disguise",
			hidden:  []string{"c2VjcmV0LWlu-disguise"},
			visible: []string{"https://example.net/help?"},
		},
		{
			name:    "signed polling URL next to a help link",
			in:      "poll https://management.azure.com/x/operations/1?api-version=2020-01-01&t=638&c=Q0VSVFNFQ1JFVA&s=U0lHU0VDUkVU&h=SEFTSA failed, see https://go.microsoft.com/fwlink/?linkid=2147740",
			hidden:  []string{"Q0VSVFNFQ1JFVA", "U0lHU0VDUkVU", "SEFTSA"},
			visible: []string{"api-version=2020-01-01", "fwlink/?linkid=2147740"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := redactText(tc.in)
			hiddenAndVisible(t, got, tc.hidden, tc.visible)
		})
	}
}

// The soft-delete conflict reaches the user with its help link intact.
func TestErrorKeepsHelpLink(t *testing.T) {
	f := newFakeARM(t)
	f.handle("PUT", testID, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 409, map[string]any{"error": map[string]any{
			"code":    "ConflictError",
			"message": "A vault with the same name already exists in deleted state. You need to either recover or purge existing deleted vault. Follow this link https://go.microsoft.com/fwlink/?linkid=2149745 for more information on soft delete.",
		}})
	})
	_, err := f.client().Put(context.Background(), testID, testAPI, map[string]any{"location": "westeurope"}, nil)
	if err == nil {
		t.Fatal("no error")
	}
	if !strings.Contains(err.Error(), "https://go.microsoft.com/fwlink/?linkid=2149745") {
		t.Fatalf("help link lost: %s", err)
	}
}

// Bodies at -v 8: timestamps under key-named containers stay visible; the
// keys themselves do not.
func TestLogBodyPrecision(t *testing.T) {
	cases := []struct {
		name    string
		path    string // POST to a list action when it ends in /listKeys
		body    map[string]any
		hidden  []string
		visible []string
	}{
		{
			name: "storage account keyCreationTime",
			path: rg + "/providers/Microsoft.Storage/storageAccounts/st1",
			body: map[string]any{"location": "westeurope", "properties": map[string]any{
				"keyCreationTime": map[string]any{"key1": "2024-03-05T10:11:12.1234567Z", "key2": "2024-03-05T10:11:12.2345678Z"},
				"keyPolicy":       map[string]any{"keyExpirationPeriodInDays": json.Number("90")},
				"primaryKey":      "cHJpbWFyeS1rZXktdmFsdWU=",
			}},
			hidden:  []string{"cHJpbWFyeS1rZXktdmFsdWU"},
			visible: []string{`"key1":"2024-03-05T10:11:12.1234567Z"`, `"key2":"2024-03-05T10:11:12.2345678Z"`, `"keyExpirationPeriodInDays":90`},
		},
		{
			name: "a keys list keeps its creation times only",
			path: rg + "/providers/Contoso.Widgets/widgets/w1",
			body: map[string]any{"properties": map[string]any{"keys": []any{
				map[string]any{"keyName": "key1", "value": "a2V5LXZhbHVlLW9uZQ==", "permissions": "FULL", "creationTime": "2024-03-05T10:11:12.1234567Z"},
			}}},
			hidden:  []string{"a2V5LXZhbHVlLW9uZQ"},
			visible: []string{`"creationTime":"2024-03-05T10:11:12.1234567Z"`},
		},
		{
			name: "listKeys response keeps creation times only",
			path: rg + "/providers/Microsoft.Storage/storageAccounts/st1/listKeys",
			body: map[string]any{"keys": []any{
				map[string]any{"keyName": "key1", "value": "bGlzdC1rZXktb25l", "permissions": "FULL", "creationTime": "2024-03-05T10:11:12.1234567Z"},
				map[string]any{"keyName": "key2", "value": "bGlzdC1rZXktdHdv", "permissions": "FULL", "creationTime": "2024-03-06T10:11:12Z"},
			}},
			hidden:  []string{"bGlzdC1rZXktb25l", "bGlzdC1rZXktdHdv"},
			visible: []string{`"creationTime":"2024-03-05T10:11:12.1234567Z"`, `"creationTime":"2024-03-06T10:11:12Z"`},
		},
		{
			name: "a key named like a time is still hidden when it is not one",
			path: rg + "/providers/Contoso.Widgets/widgets/w1",
			body: map[string]any{"properties": map[string]any{
				"keys":      map[string]any{"key1": "bm90LWEtdGltZS1rZXk="},
				"password":  "2024-03-05T10:11:12Z",
				"secretKey": "c2VjcmV0LWtleS12YWw=",
			}},
			hidden:  []string{"bm90LWEtdGltZS1rZXk", "2024-03-05T10:11:12Z", "c2VjcmV0LWtleS12YWw"},
			visible: []string{`"keys":`},
		},
		{
			name: "a member named like a time is not a credential; runtime is no time",
			path: rg + "/providers/Contoso.Widgets/widgets/w1",
			body: map[string]any{"properties": map[string]any{
				"tokenExpiryTime": "05/03/2024 10:11:12",
				"runtime":         map[string]any{"accessToken": "cnVudGltZS10b2tlbg=="},
				"tokenLifetime":   "dG9rZW4tbGlmZXRpbWU=",
			}},
			hidden:  []string{"cnVudGltZS10b2tlbg", "dG9rZW4tbGlmZXRpbWU"},
			visible: []string{`"tokenExpiryTime":"05/03/2024 10:11:12"`},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, buf := echoLogClient(t, func(r *http.Request, body []byte) any { return tc.body })
			var err error
			if strings.HasSuffix(tc.path, "/listKeys") {
				_, err = c.Post(context.Background(), tc.path, testAPI, nil, nil)
			} else {
				_, err = c.Put(context.Background(), tc.path, testAPI, tc.body, nil)
			}
			if err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			hiddenAndVisible(t, out, tc.hidden, tc.visible)
		})
	}
}
