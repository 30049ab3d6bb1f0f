package arm

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// TestErrorHidesAnotherKeyAfterATemplatesText: hiding the stretch an
// error shares with a registered connection string must leave the
// credential name after it, so the key of another account quoted there
// is still redacted.
func TestErrorHidesAnotherKeyAfterATemplatesText(t *testing.T) {
	reg := secret.NewRegistry()
	reg.Register("DefaultEndpointsProtocol=https;AccountName=st1;AccountKey=" + strings.Repeat("Q", 88))
	f := newFakeARM(t)
	f.handle("PUT", testID, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 400, map[string]any{"error": map[string]any{
			"code":    "InvalidRequestContent",
			"message": "cannot reach DefaultEndpointsProtocol=https;AccountName=st1;AccountKey=T3RoZXJBY2NvdW50S2V5 from here",
		}})
	})
	_, err := f.client(func(o *Options) { o.Secrets = reg }).Put(context.Background(), testID, testAPI, map[string]any{}, nil)
	if err == nil {
		t.Fatal("no error")
	}
	hiddenAndVisible(t, err.Error(), []string{"T3RoZXJBY2NvdW50S2V5", "AccountName=st1"}, []string{"cannot reach", "from here"})
}
