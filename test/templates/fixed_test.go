package templates_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// The fixed resources of the quickstart repository's pipeline: made once
// per subscription by its test/ci-gen-setup template, named in parameter
// files by GEN-VNET-NAME, GEN-KEYVAULT-NAME and the like (the values are in
// its test/ci-gen-setup/.config.json). Here each run makes the ones its
// parameters name, from the manifests below, in a group of their own.
const (
	genGroup    = "rg-corpus-gen"
	genVnet     = "corpus-vnet"
	genSubnet1  = "corpus-subnet-1"
	genSubnet2  = "corpus-subnet-2"
	genVault    = "kv-corpus-gen"
	genSecret   = "corpus-password"
	genIdentity = "id-corpus-gen"
	// genSecretEnv holds the value of the vault's secret.
	genSecretEnv = "CORPUS_GEN_VAULT_SECRET"
)

// The fixed resources a value may need.
const (
	fixedVnet     = "vnet"
	fixedVault    = "vault"
	fixedSecret   = "vault secret"
	fixedIdentity = "identity"
)

// fixedValue is what a GEN-* placeholder naming a fixed resource becomes.
type fixedValue struct {
	value string
	needs []string
	// object: value is JSON that replaces the quoted placeholder whole (a
	// Key Vault reference), as the pipeline writes objects.
	object bool
}

var genVaultID = "/subscriptions/" + harness.Sub + "/resourceGroups/" + genGroup + "/providers/Microsoft.KeyVault/vaults/" + genVault

// fixedValues are the placeholders this test makes resources for. Others
// naming resources (a certificate, a disk encryption key with its version,
// a custom domain) stay flagged as prerequisites it cannot make.
var fixedValues = map[string]fixedValue{
	"GEN-VNET-NAME":                                 {value: genVnet, needs: []string{fixedVnet}},
	"GEN-VNET-SUBNET1-NAME":                         {value: genSubnet1, needs: []string{fixedVnet}},
	"GEN-VNET-SUBNET2-NAME":                         {value: genSubnet2, needs: []string{fixedVnet}},
	"GEN-VNET-RESOURCEGROUP-NAME":                   {value: genGroup, needs: []string{fixedVnet}},
	"GEN-KEYVAULT-NAME":                             {value: genVault, needs: []string{fixedVault}},
	"GEN-KEYVAULT-RESOURCEGROUP-NAME":               {value: genGroup, needs: []string{fixedVault}},
	"GEN-KEYVAULT-SUBSCRIPTION-ID":                  {value: harness.Sub, needs: []string{fixedVault}},
	"GEN-KEYVAULT-RESOURCE-ID":                      {value: genVaultID, needs: []string{fixedVault}},
	"GEN-KEYVAULT-PASSWORD-SECRET-NAME":             {value: genSecret, needs: []string{fixedVault, fixedSecret}},
	"GEN-KEYVAULT-PASSWORD-REFERENCE":               {value: `{"keyVault":{"id":"` + genVaultID + `"},"secretName":"` + genSecret + `"}`, needs: []string{fixedVault, fixedSecret}, object: true},
	"GEN-USER-ASSIGNED-IDENTITY-NAME":               {value: genIdentity, needs: []string{fixedIdentity}},
	"GEN-USER-ASSIGNED-IDENTITY-RESOURCEGROUP-NAME": {value: genGroup, needs: []string{fixedIdentity}},
}

// fillFixedObjects replaces the quoted object placeholders.
func (s *substitution) fillFixedObjects(text string) string {
	for ph, f := range fixedValues {
		if f.object && strings.Contains(text, `"`+ph+`"`) {
			text = strings.ReplaceAll(text, `"`+ph+`"`, f.value)
			s.need(f.needs)
		}
	}
	return text
}

func (s *substitution) need(kinds []string) {
	if s.fixed == nil {
		s.fixed = map[string]bool{}
	}
	for _, k := range kinds {
		s.fixed[k] = true
	}
}

// fixedManifests are the manifests of each fixed resource.
var fixedManifests = map[string]string{
	fixedVnet: `metadata: {name: ` + genVnet + `}
spec:
  type: Microsoft.Network/virtualNetworks@2023-09-01
  resourceGroup: ` + genGroup + `
  body:
    location: ` + location + `
    properties:
      addressSpace: {addressPrefixes: [10.250.0.0/16]}
      subnets:
      - {name: ` + genSubnet1 + `, properties: {addressPrefix: 10.250.1.0/24}}
      - {name: ` + genSubnet2 + `, properties: {addressPrefix: 10.250.2.0/24}}
`,
	fixedVault: `metadata: {name: ` + genVault + `}
spec:
  type: Microsoft.KeyVault/vaults@2023-07-01
  resourceGroup: ` + genGroup + `
  body:
    location: ` + location + `
    properties:
      tenantId: ${tenantId}
      sku: {family: A, name: standard}
      accessPolicies: []
      enabledForDeployment: true
      enabledForTemplateDeployment: true
      enabledForDiskEncryption: true
`,
	fixedSecret: `metadata: {name: ` + genSecret + `}
spec:
  type: Microsoft.KeyVault/vaults/secrets@2023-07-01
  parent: ` + genVault + `
  body:
    properties:
      value: {valueFrom: {env: ` + genSecretEnv + `}}
`,
	fixedIdentity: `metadata: {name: ` + genIdentity + `}
spec:
  type: Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31
  resourceGroup: ` + genGroup + `
  body:
    location: ` + location + `
`,
}

// makeFixed applies the fixed resources kinds names, with their group.
func (c *cycle) makeFixed(kinds map[string]bool) bool {
	docs := []string{"metadata: {name: " + genGroup + "}\nspec:\n  type: Microsoft.Resources/resourceGroups@2021-04-01\n  body: {location: " + location + "}\n"}
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		docs = append(docs, fixedManifests[k])
	}
	if kinds[fixedSecret] {
		v := envSecret(genSecretEnv)
		c.res.secrets = append(c.res.secrets, v)
		if err := os.Setenv(genSecretEnv, v); err != nil {
			c.res.fail(classTool, "setup", err.Error())
			return false
		}
	}
	st := stage{label: "fixed resources", out: filepath.Join(c.work, "fixed-manifests"), state: filepath.Join(c.work, "fixed-state.json")}
	var b strings.Builder
	for _, d := range docs {
		b.WriteString("---\napiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\n" + d)
	}
	if err := os.MkdirAll(st.out, 0o755); err != nil {
		c.res.fail(classTool, "setup", err.Error())
		return false
	}
	if err := os.WriteFile(filepath.Join(st.out, "fixed.yaml"), []byte(b.String()), 0o644); err != nil {
		c.res.fail(classTool, "setup", err.Error())
		return false
	}
	return c.applyStage(st)
}
