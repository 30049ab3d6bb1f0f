package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator/emulatortest"
)

// Identities writes n user-assigned identities spread over groups resource
// groups (which the manifests do not manage: seed them) into dir/identities.yaml,
// and returns the group names.
func Identities(t testing.TB, dir, prefix string, n, groups int) []string {
	t.Helper()
	names := make([]string, groups)
	for g := range names {
		names[g] = fmt.Sprintf("rg-%s-%02d", prefix, g)
	}
	docs := make([]emulatortest.Doc, n)
	for i := range docs {
		docs[i] = emulatortest.Identity(fmt.Sprintf("id-%s-%05d", prefix, i), names[i%groups], benchTags(i))
		docs[i].Labels = "{suite: " + prefix + "}"
	}
	writeFile(t, filepath.Join(dir, "identities.yaml"), emulatortest.Manifests(docs...))
	return names
}

// benchTags is the tags line of the i-th identity of a generated set.
func benchTags(i int) string { return fmt.Sprintf(`tags: {env: bench, index: "%d"}`, i) }

// DAG describes a manifest set with dependencies: per group a managed
// resource group, an NSG and a vnet in it, subnets of the vnet that each
// reference the NSG (so every subnet waits for both), and identities.
type DAG struct {
	Prefix     string
	Groups     int
	Subnets    int // per vnet
	Identities int // per group
}

// Count is the number of resources the set declares.
func (d DAG) Count() int { return d.Groups * (3 + d.Subnets + d.Identities) }

// Write puts one file per group into dir.
func (d DAG) Write(t testing.TB, dir string) {
	t.Helper()
	suite := "tags: {suite: " + d.Prefix + "}"
	for g := range d.Groups {
		rg := fmt.Sprintf("rg-%s-%02d", d.Prefix, g)
		nsg := fmt.Sprintf("nsg-%s-%02d", d.Prefix, g)
		vnet := fmt.Sprintf("vnet-%s-%02d", d.Prefix, g)
		docs := []emulatortest.Doc{
			emulatortest.Group(rg, suite),
			{Name: nsg, Type: "Microsoft.Network/networkSecurityGroups@2024-01-01", Place: "resourceGroup: " + rg, Body: []string{
				"location: westeurope",
				"properties:",
				"  securityRules:",
				"    - name: deny-all-in",
				`      properties: {priority: 4096, direction: Inbound, access: Deny, protocol: "*", sourceAddressPrefix: "*", sourcePortRange: "*", destinationAddressPrefix: "*", destinationPortRange: "*"}`,
			}},
			emulatortest.VNet(vnet, rg, fmt.Sprintf("10.%d.0.0/16", g)),
		}
		for s := range d.Subnets {
			docs = append(docs, emulatortest.Doc{Name: fmt.Sprintf("snet-%s-%02d-%02d", d.Prefix, g, s),
				Type: "Microsoft.Network/virtualNetworks/subnets@2024-01-01", Place: "parent: Microsoft.Network/virtualNetworks/" + vnet,
				Body: []string{"properties:", fmt.Sprintf(`  addressPrefix: "10.%d.%d.0/24"`, g, s), `  networkSecurityGroup: {id: "${ref:` + nsg + `}"}`}})
		}
		for i := range d.Identities {
			docs = append(docs, emulatortest.Identity(fmt.Sprintf("id-%s-%02d-%02d", d.Prefix, g, i), rg, suite))
		}
		writeFile(t, filepath.Join(dir, fmt.Sprintf("group-%02d.yaml", g)), emulatortest.Manifests(docs...))
	}
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// WriteFile writes content to path, creating directories.
func WriteFile(t testing.TB, path, content string) { t.Helper(); writeFile(t, path, content) }

// IDs returns the lower-cased ARM IDs the set declares, for subscription sub.
func (d DAG) IDs() []string {
	var ids []string
	for g := range d.Groups {
		rg := fmt.Sprintf("/subscriptions/%s/resourceGroups/rg-%s-%02d", Sub, d.Prefix, g)
		vnet := fmt.Sprintf("%s/providers/Microsoft.Network/virtualNetworks/vnet-%s-%02d", rg, d.Prefix, g)
		ids = append(ids, rg, vnet, fmt.Sprintf("%s/providers/Microsoft.Network/networkSecurityGroups/nsg-%s-%02d", rg, d.Prefix, g))
		for s := range d.Subnets {
			ids = append(ids, fmt.Sprintf("%s/subnets/snet-%s-%02d-%02d", vnet, d.Prefix, g, s))
		}
		for i := range d.Identities {
			ids = append(ids, fmt.Sprintf("%s/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-%s-%02d-%02d", rg, d.Prefix, g, i))
		}
	}
	for i := range ids {
		ids[i] = strings.ToLower(ids[i])
	}
	return ids
}

// ManagedGroups writes groups managed resource groups with perGroup
// identities in each (groups × (perGroup+1) resources) and returns the
// group names.
func ManagedGroups(t testing.TB, dir, prefix string, groups, perGroup int) []string {
	t.Helper()
	names := make([]string, groups)
	var docs []emulatortest.Doc
	for g := range names {
		names[g] = fmt.Sprintf("rg-%s-%02d", prefix, g)
		docs = append(docs, emulatortest.Group(names[g]))
		for i := range perGroup {
			docs = append(docs, emulatortest.Identity(fmt.Sprintf("id-%s-%02d-%04d", prefix, g, i), names[g], benchTags(i)))
		}
	}
	writeFile(t, filepath.Join(dir, "groups.yaml"), emulatortest.Manifests(docs...))
	return names
}

// Drift changes one tag of a live resource behind the tool's back, through
// the admin API (not counted as a request).
func (a *ARM) Drift(id, tag, value string) {
	a.t.Helper()
	for _, r := range a.Live() {
		if !strings.EqualFold(r.ID, id) {
			continue
		}
		tags, _ := r.Body["tags"].(map[string]any)
		if tags == nil {
			tags = map[string]any{}
			r.Body["tags"] = tags
		}
		tags[tag] = value
		if err := a.Server().Seed(r.ID, r.APIVersion, r.Body); err != nil {
			a.t.Fatal(err)
		}
		return
	}
	a.t.Fatalf("drift: %s is not in the emulator", id)
}
