package manifest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// FuzzLoad feeds arbitrary bytes as a manifest stream: Load must never
// panic, and must return either a Set, a *ValidationError or the empty-set
// error, never two of them and never another error type.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(rgDoc))
	f.Add([]byte("a: [unclosed\n---\n- list\n---\n\xef\xbb\xbf{}"))
	f.Add([]byte(strings.Replace(kvSecretDoc, "VALUEFROM", "{env: X}", 1)))
	f.Add([]byte("apiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata: {name: a}\nspec: {type: A.B/c@2020-01-01, scope: '${ref:a}${', parent: '$${ref:}'}\n"))
	f.Add([]byte(rgDoc + "---\napiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata: {name: st, annotations: {azure.kubectl.io/depends-on: rg-demo}}\n" +
		"spec: {type: Microsoft.Storage/storageAccounts@2023-05-01, name: 'st${uniqueString:${ref:rg-demo},${resourceGroupId:x}}', resourceGroup: rg-demo, body: {tags: {" +
		"a: {valueFrom: {template: 'k=${secret:k};id=${ref:rg-demo}/x', secrets: {k: {env: X}}}}, b: '/subscriptions/${subscriptionId}/resourceGroups/rg-demo;'}}}\n"))
	seeds, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "*", "*.yaml"))
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		set, err := Load(context.Background(), LoadOptions{
			Filenames: []string{"-"},
			Stdin:     strings.NewReader(string(data)),
			LookupEnv: envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub, "X": "v"}),
		})
		if errors.Is(err, ErrNoResources) {
			if set != nil {
				t.Fatal("a Set and ErrNoResources together")
			}
			return
		}
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Problems) == 0 || set != nil {
				t.Fatalf("want a Set or a non-empty *ValidationError, got set=%v err=%T %v", set, err, err)
			}
			return
		}
		if set == nil {
			t.Fatal("nil Set without error")
		}
		for _, r := range set.Resources {
			if _, perr := armid.Parse(r.ID); perr != nil {
				t.Fatalf("Load returned an unparsable ID: %v", perr)
			}
		}
	})
}
