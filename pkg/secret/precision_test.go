package secret

import (
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
)

// The rule that hides values in state, plans and get output is precise
// about keys: a key's creation time or a storage account's key policy is
// shown, the key itself is not.
func TestRuleKeysAndTimes(t *testing.T) {
	const storage = "Microsoft.Storage/storageAccounts"
	cases := []struct {
		typ, path string
		v         any
		want      bool
	}{
		{storage, "properties.keyCreationTime.key1", "2024-03-05T10:11:12.1234567Z", false},
		{storage, "properties.keyCreationTime.key2", "2024-03-05T10:11:12.1234567Z", false},
		{storage, "properties.keyPolicy.keyExpirationPeriodInDays", 90, false},
		{storage, "keys[0].creationTime", "2024-03-05T10:11:12.1234567Z", false},
		{storage, "keys[0].keyName", "key1", false},
		{storage, "properties.primaryKey", "cHJpbWFyeS1rZXktdmFsdWU=", true},
		{storage, "properties.connectionString", "DefaultEndpointsProtocol=https;AccountName=st1;AccountKey=QUJD", true},
		{"Microsoft.ServiceBus/namespaces/AuthorizationRules", "primaryConnectionString", "Endpoint=sb://ns1.servicebus.windows.net/;SharedAccessKey=QUJD", true},
		{"Microsoft.Resources/deployments", "properties.parameters.adminPassword.value", "2024-03-05T10:11:12Z", true}, // a credential whatever it looks like
	}
	for _, tc := range cases {
		p, err := bodypath.Parse(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := For(tc.typ, "st1", nil).At(p, tc.v); got != tc.want {
			t.Errorf("%s %s = %v, want %v", tc.typ, tc.path, got, tc.want)
		}
	}
}
