package secret

import (
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
)

// An API Management named value is secret unless its own secret flag says
// false; without the body the rule cannot see the flag and stays secret.
// A connection string's type is an identifier in either case the service
// answers it.
func TestSecretRuleOnASiblingFlag(t *testing.T) {
	const nv = "/subscriptions/s/resourceGroups/g/providers/Microsoft.ApiManagement/service/apim/namedValues/nv"
	value := bodypath.Path{bodypath.Field("properties"), bodypath.Field("value")}
	for _, tc := range []struct {
		name string
		body map[string]any
		want bool
	}{
		{"secret: false", map[string]any{"properties": map[string]any{"secret": false, "value": "v"}}, false},
		{`secret: "false"`, map[string]any{"properties": map[string]any{"secret": "false", "value": "v"}}, false},
		{"secret: true", map[string]any{"properties": map[string]any{"secret": true, "value": "v"}}, true},
		{"no flag", map[string]any{"properties": map[string]any{"value": "v"}}, true},
		{"no body", nil, true},
	} {
		if got := ForIDBody(nv, nil, tc.body).At(value, "v"); got != tc.want {
			t.Errorf("%s: At(properties.value) = %v, want %v", tc.name, got, tc.want)
		}
	}
	if !ForID(nv, nil).At(value, "v") {
		t.Error("ForID without a body must keep the value secret")
	}
	const cs = "/subscriptions/s/resourceGroups/g/providers/Microsoft.Web/sites/app/config/connectionstrings"
	r := ForID(cs, nil)
	for _, leaf := range []string{"type", "Type"} {
		if r.At(bodypath.Path{bodypath.Field("properties"), bodypath.Field("db"), bodypath.Field(leaf)}, "SQLAzure") {
			t.Errorf("connection string %s is secret", leaf)
		}
	}
	if !r.At(bodypath.Path{bodypath.Field("properties"), bodypath.Field("db"), bodypath.Field("value")}, "Server=x") {
		t.Error("connection string value is not secret")
	}
}
