package convert_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert"
)

const readerTemplate = `{` + schema + `,
  "resources": [
    {"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-05-01", "name": "st1", "location": "westus", "kind": "StorageV2", "sku": {"name": "Standard_LRS"}},
    {"type": "Microsoft.Web/sites/config", "apiVersion": "2023-12-01", "name": "app/appsettings",
     "properties": {
       "BLOB": "[reference(resourceId('Microsoft.Storage/storageAccounts', 'st1'), '2023-05-01').primaryEndpoints.blob]",
       "KEY": "[listKeys(resourceId('Microsoft.Storage/storageAccounts', 'st1'), '2023-05-01').keys[0].value]",
       "LOC": "[reference('st1', '2023-05-01', 'Full').location]"}}],
  "outputs": {"host": {"type": "string", "value": "[replace(reference(resourceId('Microsoft.Storage/storageAccounts', 'st1')).primaryEndpoints.blob, 'https://', '')]"}}}`

// TestEvaluateWithReader: with a Reader, reference() and list*() are
// answered by it, with the ID, api-version and action they name, and the
// answers feed the expressions around them.
func TestEvaluateWithReader(t *testing.T) {
	tmpl, err := convert.Parse("t.json", []byte(readerTemplate))
	if err != nil {
		t.Fatal(err)
	}
	sub := "00000000-0000-0000-0000-000000000001"
	id := "/subscriptions/" + sub + "/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/st1"
	var reads []convert.Read
	reader := func(_ context.Context, q convert.Read) (any, error) {
		reads = append(reads, q)
		switch {
		case q.Action == "listKeys":
			return map[string]any{"keys": []any{map[string]any{"value": "k1"}}}, nil
		case q.Full:
			return map[string]any{"location": "westus", "properties": map[string]any{}}, nil
		}
		return map[string]any{"primaryEndpoints": map[string]any{"blob": "https://st1.blob.core.windows.net/"}}, nil
	}
	rs, outs, err := tmpl.Evaluate(context.Background(), convert.Scope{Subscription: sub, ResourceGroup: "rg", Location: "westus"}, convert.WithReader(reader))
	if err != nil {
		t.Fatal(err)
	}
	props := rs[1].Body["properties"].(map[string]any)
	if props["BLOB"] != "https://st1.blob.core.windows.net/" || props["KEY"] != "k1" || props["LOC"] != "westus" {
		t.Errorf("properties = %v", props)
	}
	if outs["host"] != "st1.blob.core.windows.net/" {
		t.Errorf("outputs = %v", outs)
	}
	var sawKeys, sawName bool
	for _, q := range reads {
		if q.Action == "listKeys" && q.ID == id && q.APIVersion == "2023-05-01" {
			sawKeys = true
		}
		if q.Name == "st1" && q.Full && q.ID == "" {
			sawName = true
		}
	}
	if !sawKeys || !sawName {
		t.Errorf("reads = %+v", reads)
	}

	// A reader's error is the template's error; without a reader, the
	// reads are known only while deploying.
	_, _, err = tmpl.Evaluate(context.Background(), convert.Scope{Subscription: sub, ResourceGroup: "rg", Location: "westus"},
		convert.WithReader(func(context.Context, convert.Read) (any, error) { return nil, errors.New("st1 is not deployed yet") }))
	if err == nil || !strings.Contains(err.Error(), "st1 is not deployed yet") {
		t.Errorf("err = %v", err)
	}
	if _, _, err = tmpl.Evaluate(context.Background(), convert.Scope{Subscription: sub, ResourceGroup: "rg", Location: "westus"}); err == nil || !strings.Contains(err.Error(), "known only while deploying") {
		t.Errorf("without a reader: err = %v", err)
	}
}
