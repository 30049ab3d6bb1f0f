package templates_test

import (
	"crypto/sha1"
	_ "embed"
	"encoding/base64"
	"encoding/hex"
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
	// genSSLSecret is the vault's certificate (azbot-ssl-cert upstream,
	// imported by Create-GEN-Artifacts.ps1): ARM cannot create a Key Vault
	// certificate, so it is the secret that backs one, whose value is the
	// PFX in base64 (genSSLSecretEnv).
	genSSLSecret    = "corpus-ssl-cert"
	genSSLSecretEnv = "CORPUS_GEN_VAULT_SSL_CERT"
	// genStorage and genContainer hold the private artifacts of
	// GEN-PRIVATE-STORAGE-ARTIFACTS.
	genStorage   = "stcorpusgenartifacts"
	genContainer = "artifacts"
)

// The self-signed certificate of the GEN-SELFSIGNED-CERT-* values: upstream
// publishes one it made with Create-GEN-Artifacts.ps1 in its
// test/ci-gen-setup/.config.json; this one was made for this test
// (openssl, RSA 2048, CN and DNS name corpus-cert-dns, 100 years), its PFX
// encrypted with certPassword. It secures nothing.
const (
	certDNSName  = "corpus-cert-dns"
	certPassword = "Corpus#Cert-Pw-2026"
)

var (
	//go:embed testdata/corpus-cert.pfx
	certPFX []byte
	//go:embed testdata/corpus-cert.cer
	certDER []byte
)

// certThumbprint is the certificate's SHA-1 thumbprint as Azure prints it.
func certThumbprint() string {
	h := sha1.Sum(certDER)
	return strings.ToUpper(hex.EncodeToString(h[:]))
}

// The fixed resources a value may need.
const (
	fixedVnet     = "vnet"
	fixedVault    = "vault"
	fixedSecret   = "vault secret"
	fixedIdentity = "identity"
	fixedSSLCert  = "vault certificate"
	fixedStorage  = "artifacts container"
)

// fixedValue is what a GEN-* placeholder naming a fixed resource becomes.
type fixedValue struct {
	value string
	needs []string
	// secret: value is a password the outputs must not show.
	secret bool
	// flag: the value names something the run cannot make whole, so it
	// stays flagged as a prerequisite.
	flag bool
	// object: value is JSON that replaces the quoted placeholder whole (a
	// Key Vault reference), as the pipeline writes objects.
	object bool
}

var genVaultID = "/subscriptions/" + harness.Sub + "/resourceGroups/" + genGroup + "/providers/Microsoft.KeyVault/vaults/" + genVault

// fixedValues are the placeholders this test makes resources for, and
// those that are data the pipeline keeps (a certificate and its password,
// a public file), which need no resource. Others naming resources (a disk
// encryption key with its version, a custom domain, a VHD) stay flagged as
// prerequisites it cannot make.
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
	"GEN-KEYVAULT-SSL-SECRET-NAME":                  {value: genSSLSecret, needs: []string{fixedVault, fixedSSLCert}},

	"GEN-SELFSIGNED-CERT-PFXDATA":    {value: base64.StdEncoding.EncodeToString(certPFX)},
	"GEN-SELFSIGNED-CERT-CERDATA":    {value: base64.StdEncoding.EncodeToString(certDER)},
	"GEN-SELFSIGNED-CERT-PASSWORD":   {value: certPassword, secret: true},
	"GEN-SELFSIGNED-CERT-THUMBPRINT": {value: certThumbprint()},
	"GEN-SELFSIGNED-CERT-DNSNAME":    {value: certDNSName},
	// The URIs of private blobs a custom script extension downloads with
	// the fixed identity: upstream's pipeline writes an array. The account
	// and its container are made; a blob is data ARM cannot write, so the
	// value stays flagged.
	"GEN-PRIVATE-STORAGE-ARTIFACTS": {value: `["https://` + genStorage + `.blob.core.windows.net/` + genContainer + `/corpus.ps1"]`, needs: []string{fixedStorage}, object: true, flag: true},
	// A public file of upstream's artifacts, the value the template's own
	// description gives for testing: ARM reads no data at the URI.
	"GEN-YELLOW-PARQUET-URI": {value: "https://azbotstorage.blob.core.windows.net/sample-artifacts/yellow_tripdata_2022-04.parquet"},
}

// fillFixedObjects replaces the quoted object placeholders.
func (s *substitution) fillFixedObjects(text string) string {
	for ph, f := range fixedValues {
		if f.object && strings.Contains(text, `"`+ph+`"`) {
			text = strings.ReplaceAll(text, `"`+ph+`"`, f.value)
			s.need(f.needs)
			if f.flag {
				s.prerequisites = append(s.prerequisites, ph)
			}
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
	fixedSSLCert: `metadata: {name: ` + genSSLSecret + `}
spec:
  type: Microsoft.KeyVault/vaults/secrets@2023-07-01
  parent: ` + genVault + `
  body:
    properties:
      contentType: application/x-pkcs12
      value: {valueFrom: {env: ` + genSSLSecretEnv + `}}
`,
	fixedStorage: `metadata: {name: ` + genStorage + `}
spec:
  type: Microsoft.Storage/storageAccounts@2023-05-01
  resourceGroup: ` + genGroup + `
  body:
    location: ` + location + `
    kind: StorageV2
    sku: {name: Standard_LRS}
    properties: {allowBlobPublicAccess: false}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: ` + genStorage + `-default}
spec:
  type: Microsoft.Storage/storageAccounts/blobServices@2023-05-01
  parent: ` + genStorage + `
  name: default
  body: {properties: {}}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: ` + genContainer + `}
spec:
  type: Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01
  parent: ` + genStorage + `-default
  body: {properties: {publicAccess: None}}
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
	secrets := map[string]string{fixedSecret: genSecretEnv, fixedSSLCert: genSSLSecretEnv}
	for kind, env := range secrets {
		if kinds[kind] && !c.setSecret(env, fixedSecretValue(env)) {
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

// fixedSecretValue is the value of a fixed secret's variable: the same in
// every worker, as setEnv's.
func fixedSecretValue(env string) string {
	if env == genSSLSecretEnv {
		return base64.StdEncoding.EncodeToString(certPFX)
	}
	return envSecret(env)
}

// setSecret sets a variable a fixed secret reads and counts its value as
// a secret the outputs must not show.
func (c *cycle) setSecret(env, v string) bool {
	c.res.secrets = append(c.res.secrets, v)
	if err := os.Setenv(env, v); err != nil {
		c.res.fail(classTool, "setup", err.Error())
		return false
	}
	return true
}
