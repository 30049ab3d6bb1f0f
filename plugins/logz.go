package plugins

import (
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Logz.io monitors take the signing-up user's contact details, which GET
// never returns. Evidence:
// azure-cli-extensions:src/logz/azext_logz/tests/latest/recordings/test_main_account_crud.yaml#1,
// test_sub_account_crud.yaml#6.
func logzPlugins(b *builder) {
	logzUser := []schema.Path{"properties.userInfo", "properties.userInfo.firstName", "properties.userInfo.lastName",
		"properties.userInfo.emailAddress", "properties.userInfo.phoneNumber"}
	b.add("Microsoft.Logz/monitors", &diff.Funcs{R: diff.Rules{WriteOnly: logzUser}})
	b.add("Microsoft.Logz/monitors/accounts", &diff.Funcs{R: diff.Rules{WriteOnly: logzUser}})
}
