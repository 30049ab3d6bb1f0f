package manifest

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestAPIVersionProblems: a wrong or malformed api-version is one problem
// on spec.type, with its line and a did-you-mean, never a warning and an
// error that disagree nor missing-reference errors in the documents that
// reference the resource.
func TestAPIVersionProblems(t *testing.T) {
	served := func(_ context.Context, sub, ns string) (map[string][]string, error) {
		if sub != testSub || ns != "Microsoft.Storage" {
			return nil, errors.New("asked " + sub + " " + ns)
		}
		return map[string][]string{"microsoft.storage/storageaccounts": {"2022-09-01", "2023-01-01", "2023-05-01", "2024-01-01"}}, nil
	}
	failing := func(context.Context, string, string) (map[string][]string, error) { return nil, errors.New("offline") }
	tests := []struct {
		name    string
		version string
		served  func(context.Context, string, string) (map[string][]string, error)
		errs    []string // each the one error expected, in order
		warn    string   // the one api-version warning expected
	}{
		{name: "malformed", version: "2023-5-01", errs: []string{`api-version "2023-5-01" is malformed; use YYYY-MM-DD or YYYY-MM-DD-preview; did you mean 2023-05-01?`}},
		{name: "not a date", version: "2023-13-01", errs: []string{`api-version "2023-13-01" is malformed`}},
		{name: "word", version: "latest", errs: []string{`api-version "latest" is malformed`}},
		{name: "not served", version: "2023-04-02", served: served, errs: []string{"ARM does not serve api-version 2023-04-02 of Microsoft.Storage/storageAccounts; did you mean 2023-05-01 or 2023-01-01?"}},
		{name: "served", version: "2019-02-02", served: func(context.Context, string, string) (map[string][]string, error) {
			return map[string][]string{"microsoft.storage/storageaccounts": {"2019-02-02"}}, nil
		}, warn: "api-version 2019-02-02 of Microsoft.Storage/storageAccounts is not in the schema index, but ARM serves it"},
		{name: "no ARM", version: "2019-02-02", warn: "api-version 2019-02-02 of Microsoft.Storage/storageAccounts is not in the schema index; did you mean"},
		{name: "ARM unreachable", version: "2019-02-02", served: failing, warn: "could not ask ARM whether it serves it: offline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := docs(
				doc(rgDocT, rgType, "", "{location: westeurope}"),
				doc("st1", "Microsoft.Storage/storageAccounts@"+tt.version, "resourceGroup: rg-demo", "{location: westeurope, sku: {name: Standard_LRS}, kind: StorageV2}"),
				doc("ra", raType, "scope: ${ref:st1}", "{properties: {roleDefinitionId: x, principalId: y}}"),
				doc("default", "Microsoft.Storage/storageAccounts/blobServices@2023-05-01", "parent: st1", "{}"),
			)
			o.ServedVersions = tt.served
			o.LookupEnv = envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub})
			s, err := Load(context.Background(), o)
			var ve *ValidationError
			errors.As(err, &ve)
			if len(tt.errs) > 0 {
				if ve == nil || len(ve.Problems) != len(tt.errs) {
					t.Fatalf("err = %v, want %d problem(s)", err, len(tt.errs))
				}
				for i, p := range ve.Problems {
					if !strings.Contains(p.Message, tt.errs[i]) || p.Path != "spec.type" || p.Line != 13 {
						t.Errorf("problem = %+v, want %q on spec.type line 13", p, tt.errs[i])
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var found []Problem
			for _, f := range s.Findings {
				if strings.Contains(f.Message, "api-version") || strings.Contains(f.Message, "schema for") {
					found = append(found, f)
				}
			}
			if len(found) != 1 || !strings.Contains(found[0].Message, tt.warn) || found[0].Path != "spec.type" || found[0].Line != 13 {
				t.Errorf("findings = %+v, want one on spec.type line 13 with %q", found, tt.warn)
			}
		})
	}
}
