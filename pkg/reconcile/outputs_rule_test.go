package reconcile

import (
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

type oneSchema struct{ t *schema.Type }

func (s oneSchema) Lookup(string, string) (*schema.Type, schema.Resolution) {
	return s.t, schema.Resolution{}
}

// TestOutputsAskTheSchemasSecretRule: an output the set reads is kept
// only where the plan's rule would show it; a property the schema marks
// secret, whatever its name, never is.
func TestOutputsAskTheSchemasSecretRule(t *testing.T) {
	const id = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Test.RP/things/t1"
	sch := &schema.Type{Name: "Test.RP/things", APIVersion: "2024-01-01", Properties: map[string]*schema.Property{
		"properties.vault": {Type: schema.TypeString, Secret: true},
		"properties.note":  {Type: schema.TypeString},
	}}
	res := &manifest.Resource{ID: id, Type: "Test.RP/things", APIVersion: "2024-01-01"}
	c := &Controller{Schemas: oneSchema{sch}}
	k := armid.Key(id)
	c.byKey = map[string]*manifest.Resource{k: res}
	c.refs = map[string][]string{k: {"properties.vault", "properties.note"}}
	c.observeBody(id, map[string]any{"properties": map[string]any{"vault": "S3cret-in-vault", "note": "plain"}})
	o, ok := c.OutputsOf(id)
	if !ok || o.Values["properties.note"] != "plain" {
		t.Fatalf("outputs %+v: the plain note is missing", o)
	}
	if v, kept := o.Values["properties.vault"]; kept {
		t.Errorf("the schema's secret is an output: %v", v)
	}
}
