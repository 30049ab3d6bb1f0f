package manifest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSubscriptionOrder(t *testing.T) {
	dir := t.TempDir()
	profile := "\ufeff" + `{"subscriptions":[{"id":"11111111-1111-1111-1111-111111111111","isDefault":false},{"id":"22222222-2222-2222-2222-222222222222","isDefault":true}]}`
	if err := os.WriteFile(filepath.Join(dir, "azureProfile.json"), []byte(profile), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AZURE_CONFIG_DIR", dir)
	t.Setenv("AZURE_SUBSCRIPTION_ID", "")
	if got := Subscription(""); got != "22222222-2222-2222-2222-222222222222" {
		t.Fatalf("Azure CLI default: got %q", got)
	}
	t.Setenv("AZURE_SUBSCRIPTION_ID", "33333333-3333-3333-3333-333333333333")
	if got := Subscription(""); got != "33333333-3333-3333-3333-333333333333" {
		t.Fatalf("environment: got %q", got)
	}
	if got := Subscription("44444444-4444-4444-4444-444444444444"); got != "44444444-4444-4444-4444-444444444444" {
		t.Fatalf("explicit: got %q", got)
	}
}
