package layout

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

const sub = "00000000-0000-0000-0000-000000000001"

// TestMixedManifestsLoad: the generated manifests are what the loader
// accepts without a warning, 21 resources per group, 12 types (the group
// type included), every name unique.
func TestMixedManifestsLoad(t *testing.T) {
	rs := Mixed("mx", 3)
	if len(rs) != 3*(MixedPerGroup+1) {
		t.Fatalf("%d resources for 3 groups, want %d", len(rs), 3*(MixedPerGroup+1))
	}
	var b bytes.Buffer
	if err := WriteManifests(&b, rs); err != nil {
		t.Fatal(err)
	}
	set, err := manifest.Load(context.Background(), manifest.LoadOptions{Filenames: []string{"-"}, Stdin: &b, Subscription: sub})
	if err != nil {
		t.Fatalf("generated manifests do not load: %v", err)
	}
	if len(set.Warnings) != 0 {
		t.Errorf("warnings: %q", set.Warnings)
	}
	types, ids := map[string]bool{}, map[string]bool{}
	for _, r := range set.Resources {
		types[r.Type] = true
		ids[strings.ToLower(r.ID)] = true
	}
	if len(types) != 12 || len(ids) != len(rs) {
		t.Errorf("%d types, %d distinct IDs; want 12 and %d", len(types), len(ids), len(rs))
	}
}

// TestAzapiRendering: every resource is one azapi_resource block with its
// type, parent and body; strings that look like HCL templates are escaped.
func TestAzapiRendering(t *testing.T) {
	rs := Mixed("mx", 2)
	var b bytes.Buffer
	if err := WriteAzapi(&b, rs); err != nil {
		t.Fatal(err)
	}
	tf := b.String()
	if n := strings.Count(tf, `resource "azapi_resource"`); n != len(rs) {
		t.Errorf("%d blocks, want %d", n, len(rs))
	}
	for _, want := range []string{
		`type      = "Microsoft.Network/publicIPAddresses@2023-09-01"`,
		`parent_id = azapi_resource.r_rg_mx_001.id`,
		`"publicIPAllocationMethod" = "Static"`,
		`"addressPrefixes" = ["10.1.0.0/16"]`,
		`location  = "global"`,
	} {
		if !strings.Contains(tf, want) {
			t.Errorf("main.tf lacks %s", want)
		}
	}
	if got := hcl("a${b}%{c}", 0); got != `"a$${b}%%{c}"` {
		t.Errorf("template escape: %s", got)
	}
	bad := []Resource{{Name: "x", Type: "T@1", Group: "rg-missing", Body: map[string]any{}}}
	if err := WriteAzapi(&bytes.Buffer{}, bad); err == nil {
		t.Error("a resource whose group is not declared was rendered")
	}
}
