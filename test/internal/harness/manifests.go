package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Identities writes n user-assigned identities spread over groups resource
// groups (which the manifests do not manage: seed them) into dir/identities.yaml,
// and returns the group names.
func Identities(t testing.TB, dir, prefix string, n, groups int) []string {
	t.Helper()
	var b strings.Builder
	names := make([]string, groups)
	for g := range names {
		names[g] = fmt.Sprintf("rg-%s-%02d", prefix, g)
	}
	for i := range n {
		fmt.Fprintf(&b, `---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata:
  name: id-%s-%05d
  labels: {suite: %s}
spec:
  type: Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31
  resourceGroup: %s
  body:
    location: westeurope
    tags: {env: bench, index: "%d"}
`, prefix, i, prefix, names[i%groups], i)
	}
	writeFile(t, filepath.Join(dir, "identities.yaml"), b.String())
	return names
}

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
	for g := range d.Groups {
		var b strings.Builder
		rg := fmt.Sprintf("rg-%s-%02d", d.Prefix, g)
		nsg := fmt.Sprintf("nsg-%s-%02d", d.Prefix, g)
		vnet := fmt.Sprintf("vnet-%s-%02d", d.Prefix, g)
		fmt.Fprintf(&b, `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: %s}
spec:
  type: Microsoft.Resources/resourceGroups@2021-04-01
  body: {location: westeurope, tags: {suite: %s}}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: %s}
spec:
  type: Microsoft.Network/networkSecurityGroups@2024-01-01
  resourceGroup: %s
  body:
    location: westeurope
    properties:
      securityRules:
        - name: deny-all-in
          properties: {priority: 4096, direction: Inbound, access: Deny, protocol: "*", sourceAddressPrefix: "*", sourcePortRange: "*", destinationAddressPrefix: "*", destinationPortRange: "*"}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: %s}
spec:
  type: Microsoft.Network/virtualNetworks@2024-01-01
  resourceGroup: %s
  body:
    location: westeurope
    properties:
      addressSpace: {addressPrefixes: ["10.%d.0.0/16"]}
`, rg, d.Prefix, nsg, rg, vnet, rg, g)
		for s := range d.Subnets {
			fmt.Fprintf(&b, `---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: snet-%s-%02d-%02d}
spec:
  type: Microsoft.Network/virtualNetworks/subnets@2024-01-01
  parent: Microsoft.Network/virtualNetworks/%s
  body:
    properties:
      addressPrefix: "10.%d.%d.0/24"
      networkSecurityGroup: {id: "${ref:%s}"}
`, d.Prefix, g, s, vnet, g, s, nsg)
		}
		for i := range d.Identities {
			fmt.Fprintf(&b, `---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: id-%s-%02d-%02d}
spec:
  type: Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31
  resourceGroup: %s
  body: {location: westeurope, tags: {suite: %s}}
`, d.Prefix, g, i, rg, d.Prefix)
		}
		writeFile(t, filepath.Join(dir, fmt.Sprintf("group-%02d.yaml", g)), b.String())
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
	var b strings.Builder
	names := make([]string, groups)
	for g := range names {
		names[g] = fmt.Sprintf("rg-%s-%02d", prefix, g)
		fmt.Fprintf(&b, `---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata:
  name: %s
spec:
  type: Microsoft.Resources/resourceGroups@2021-04-01
  body:
    location: westeurope
`, names[g])
		for i := range perGroup {
			fmt.Fprintf(&b, `---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata:
  name: id-%s-%02d-%04d
spec:
  type: Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31
  resourceGroup: %s
  body:
    location: westeurope
    tags: {env: bench, index: "%d"}
`, prefix, g, i, names[g], i)
		}
	}
	writeFile(t, filepath.Join(dir, "groups.yaml"), b.String())
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
