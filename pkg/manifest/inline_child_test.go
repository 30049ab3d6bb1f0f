package manifest

import (
	"strings"
	"testing"
)

// A child declared both inline in its parent's body (a vnet's
// properties.subnets item) and as its own resource is written by both and
// flaps forever: the load refuses it, naming both places. A different
// child declared on its own is fine.
func TestChildDeclaredInlineAndOnItsOwn(t *testing.T) {
	const docs = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: vnet-hub}
spec:
  type: Microsoft.Network/virtualNetworks@2023-09-01
  resourceGroup: rg1
  body:
    location: westeurope
    properties:
      addressSpace: {addressPrefixes: [10.0.0.0/16]}
      subnets:
      - name: snet-a
        properties: {addressPrefix: 10.0.1.0/24}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: %s}
spec:
  type: Microsoft.Network/virtualNetworks/subnets@2023-09-01
  parent: Microsoft.Network/virtualNetworks/vnet-hub
  resourceGroup: rg1
  body:
    properties: {addressPrefix: 10.0.2.0/24}
`
	load(t, stdin(strings.Replace(docs, "%s", "snet-b", 1)))

	ve := loadErr(t, stdin(strings.Replace(docs, "%s", "SNET-A", 1)))
	if len(ve.Problems) != 2 {
		t.Fatalf("problems %v, want one at each place", ve)
	}
	child, parent := ve.Problems[1], ve.Problems[0]
	if parent.Index != 0 || parent.Path != "spec.body.properties.subnets[0]" || parent.Line != 12 {
		t.Errorf("parent's problem at #%d %s line %d, want #0 spec.body.properties.subnets[0] line 12", parent.Index, parent.Path, parent.Line)
	}
	if child.Index != 1 || child.Path != "metadata.name" || child.Line != 17 {
		t.Errorf("child's problem at #%d %s line %d, want #1 metadata.name line 17", child.Index, child.Path, child.Line)
	}
	// Each names the other place.
	for _, c := range []struct {
		p     Problem
		other string
	}{{parent, "<stdin>#1 (line 17)"}, {child, "<stdin>#0 (line 12)"}} {
		for _, want := range []string{c.other, "Keep one"} {
			if !strings.Contains(c.p.Message, want) {
				t.Errorf("%q lacks %q", c.p.Message, want)
			}
		}
	}
}
