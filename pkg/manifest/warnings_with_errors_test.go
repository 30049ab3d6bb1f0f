package manifest

import (
	"strings"
	"testing"
)

// TestWarningsKeptWithErrors: a misspelt property (a warning) in one
// document is still reported when another document has an error, so CI
// sees every problem in one run.
func TestWarningsKeptWithErrors(t *testing.T) {
	o := docs(
		doc(rgDocT, rgType, "", "{location: westeurope}"),
		doc("st1", "Microsoft.Storage/storageAccounts@2023-05-01", "resourceGroup: rg-demo",
			"{location: westeurope, sku: {name: Standard_LRS}, kind: StorageV2, properties: {minimumTlsVersoin: TLS1_2}}"),
		doc("bad", "Microsoft.Storage/storageAccounts@2023-5-1", "resourceGroup: rg-demo", "{location: westeurope}"),
	)
	ve := loadErr(t, o)
	var errs, warns int
	for _, p := range ve.Problems {
		switch p.Severity {
		case SeverityError:
			errs++
		case SeverityWarning:
			warns++
			if !strings.Contains(p.Message, "minimumTlsVersion") || p.Line == 0 {
				t.Errorf("warning = %+v, want a did-you-mean for minimumTlsVersion with a line", p)
			}
		}
	}
	if errs != 1 || warns != 1 {
		t.Fatalf("errors=%d warnings=%d, want 1 and 1: %v", errs, warns, ve.Problems)
	}
	if !strings.Contains(ve.Error(), "warning: ") {
		t.Errorf("Error() does not mark the warning: %s", ve.Error())
	}
}
