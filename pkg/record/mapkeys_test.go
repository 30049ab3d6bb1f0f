package record

import (
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// Equal secrets under two keys of one map (two tags from valueFrom) get
// different hashes, as docs/secrets.md promises, and the next plan still
// judges each equal to the manifest's value; a record hashed the older way
// (schema path alone) still compares equal.
func TestEqualSecretsUnderTwoMapKeysHashApart(t *testing.T) {
	reg := schema.Default()
	typ, _ := reg.Lookup("Microsoft.Storage/storageAccounts", "2023-05-01")
	const id = "/subscriptions/s1/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/st1"
	d := body(t, `{"location":"westeurope","tags":{"a":"same-secret-1","b":"same-secret-1","plain":"x"}}`)
	rec, err := Build(Input{ID: id, Type: "Microsoft.Storage/storageAccounts", Desired: d, Live: d, SecretPaths: []string{"tags.a", "tags.b"}, Schema: typ, Key: testKey})
	if err != nil {
		t.Fatal(err)
	}
	a, b := at(rec.LastApplied, "tags", "a"), at(rec.LastApplied, "tags", "b")
	if !secret.IsHash(a) || !secret.IsHash(b) || a == b {
		t.Fatalf("tags a and b hashed %v and %v: want two different hashes", a, b)
	}
	if at(rec.Baseline, "tags", "a") == at(rec.Baseline, "tags", "b") {
		t.Errorf("the baseline shares one hash for both tags")
	}
	r := diff.Compute(diff.Input{ID: id, Desired: d, LastApplied: rec.LastApplied, Baseline: rec.Baseline, Live: d, Schema: typ, SecretKey: testKey, SecretPaths: []string{"tags.a", "tags.b"}})
	if len(r.Changes) != 0 {
		t.Errorf("plan after the write: %+v", r.Changes)
	}
	// A record from before: both tags hashed under "tags.*".
	old := secret.Hash(secret.ResourceKey(testKey, id), "tags.*", "same-secret-1")
	l := body(t, `{"location":"westeurope","tags":{"plain":"x"}}`)
	l["tags"].(map[string]any)["a"], l["tags"].(map[string]any)["b"] = old, old
	r = diff.Compute(diff.Input{ID: id, Desired: d, LastApplied: l, Baseline: l, Live: d, Schema: typ, SecretKey: testKey, SecretPaths: []string{"tags.a", "tags.b"}})
	if len(r.Changes) != 0 {
		t.Errorf("plan against an older record: %+v", r.Changes)
	}
}
