package apply

import (
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

// TestValuesReadFromCredentialsAreSecret: a value read from another
// resource's credential (an Application Insights connection string, a key)
// is secret at the path that uses it, so it is hashed in state and hidden
// in plans; a plain generated value (a principal ID) is not.
func TestValuesReadFromCredentialsAreSecret(t *testing.T) {
	r := &manifest.Resource{Deferred: map[string]*manifest.Deferred{
		"properties.siteConfig.appSettings[0].value": {Refs: []manifest.ValueRef{{Target: "/x", Path: "properties.ConnectionString"}}},
		"properties.key":         {Refs: []manifest.ValueRef{{Target: "/x", Path: "keys[0].primaryKey"}}},
		"properties.principalId": {Refs: []manifest.ValueRef{{Target: "/x", Path: "properties.principalId"}}},
	}}
	got := secretDeferred(r)
	want := []string{"properties.key", "properties.siteConfig.appSettings[0].value"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("secret deferred paths = %v, want %v", got, want)
	}
}
