package templates_test

import (
	"crypto/sha1"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// sshPublicKey stands for GEN-SSH-PUB-KEY: a 2048-bit RSA public key made
// for this test (its private half was never kept).
const sshPublicKey = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQCf/G2HZM1Ic/fFOvk1fnBDhpL/wdFRyiEyEwyHr2F1s3UC1520G8Ck3Yt1n53LE7tN7PpDkY0rY7m1Z5P4Svt4iSiwnIDzNdf+qo0JBNhJ4lMx+jYi5t580G06Vah7Zw6kFHYYkxwcnYlev2+B+pbr1doMPfYHgzgDJPvQWPCej0oX10sRbCpRJHqMtSIhscY+llbmnsryrFUPvYz2IUhCwUYLLLe8ekoOZ5pevsdTBFN5BWUkBLN1fUoIQBm82x70+mKJrJO6n+0hdDFZJiqKnfDqzNlKCMPxuQc/2n9z355ysATMOgVMuFgU0LZf3AtXkrsRptBKLq2iUuZwCeeJ corpus-test"

// defaultUniqueLen is the length of a bare GEN-UNIQUE, as the quickstart
// repository's contribution guide gives it.
const defaultUniqueLen = 18

// placeholderRE finds the repository's test placeholders inside a
// parameter file's string values.
var placeholderRE = regexp.MustCompile(`GEN-[A-Z0-9]+(?:-[A-Z0-9]+)*`)

// substitution is a parameter file with its placeholders replaced.
type substitution struct {
	text    string
	secrets []string // every password value written into text
	// prerequisites names placeholders that stand for resources the
	// template expects to exist already (GEN-VNET-NAME, ...).
	prerequisites []string
	// fixed names the fixed resources (fixedKinds) the values written name.
	fixed map[string]bool
}

// substitute replaces every placeholder of a parameter file with a value
// that depends only on the template's path and the placeholder's place, so
// two runs (and two workers) agree.
func substitute(template, text string) substitution {
	var s substitution
	text = s.fillFixedObjects(text)
	n := 0
	s.text = placeholderRE.ReplaceAllStringFunc(text, func(ph string) string {
		n++
		if f, ok := fixedValues[ph]; ok && !f.object {
			s.need(f.needs)
			if f.secret {
				s.secrets = append(s.secrets, f.value)
			}
			return f.value
		}
		v, secret, prereq := placeholderValue(template, ph, n)
		if secret {
			s.secrets = append(s.secrets, v)
		}
		if prereq {
			s.prerequisites = append(s.prerequisites, ph)
		}
		return v
	})
	s.prerequisites = append(s.prerequisites, prereqOutputRE.FindAllString(text, -1)...)
	return s
}

// prereqOutputRE finds values the repository's pipeline takes from the
// outputs of a sample's prereqs/ deployment; they are left as they are.
var prereqOutputRE = regexp.MustCompile(`GET-PREREQ-[A-Za-z0-9_-]*[A-Za-z0-9]`)

// placeholderValue is the value of the n-th placeholder ph of template.
func placeholderValue(template, ph string, n int) (v string, secret, prereq bool) {
	seed := fmt.Sprintf("%s\x00%s\x00%d", template, ph, n)
	switch {
	case ph == "GEN-UNIQUE":
		return uniqueName(seed, defaultUniqueLen), false, false
	case strings.HasPrefix(ph, "GEN-UNIQUE-"):
		l, err := strconv.Atoi(strings.TrimPrefix(ph, "GEN-UNIQUE-"))
		if err != nil || l < 3 || l > 64 {
			l = defaultUniqueLen
		}
		return uniqueName(seed, l), false, false
	case strings.HasPrefix(ph, "GEN-PASSWORD"):
		return password(seed), true, false
	case ph == "GEN-SSH-PUB-KEY":
		return sshPublicKey, false, false
	case ph == "GEN-GUID", strings.HasSuffix(ph, "-OBJECTID"), strings.HasSuffix(ph, "-OBJID"),
		strings.HasSuffix(ph, "-APPID"), strings.HasSuffix(ph, "-TENANTID"):
		return guidOf(seed), false, false
	}
	// Anything else names something that must exist before the deployment
	// (a vault, a vnet, a certificate): a plausible value, flagged.
	return uniqueName(seed, 12), false, true
}

func digest(seed string) []byte {
	h := sha256.Sum256([]byte(seed))
	return h[:]
}

// uniqueName is n lower-case letters and digits starting with a letter, as
// storage accounts and DNS labels accept.
func uniqueName(seed string, n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		for _, c := range digest(fmt.Sprintf("%s\x00%d", seed, i)) {
			if b.Len() == n {
				break
			}
			set := alphabet
			if b.Len() == 0 {
				set = alphabet[:26]
			}
			b.WriteByte(set[int(c)%len(set)])
		}
	}
	return b.String()
}

// password meets Azure's VM, SQL and cluster rules: 20 characters, upper,
// lower, digit and symbol.
func password(seed string) string {
	return "Pw" + hex.EncodeToString(digest("pw\x00" + seed))[:14] + "!9Zq"
}

func guidOf(seed string) string {
	h := hex.EncodeToString(digest(seed))
	return h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:32]
}

// envSecret is the value given to an environment variable convert names for
// a secure parameter. It depends only on the variable's name: the CLI runs
// in-process and reads the process environment, so two workers setting the
// same variable must agree.
func envSecret(name string) string {
	return password("env\x00" + name)
}

func TestSubstituteIsDeterministicAndFlagsPasswords(t *testing.T) {
	in := `{"p":{"value":"GET-PREREQ-vnetName"},"a":{"value":"GEN-UNIQUE"},"b":{"value":"GEN-UNIQUE-8"},"c":{"value":"GEN-PASSWORD"},"d":{"value":"GEN-SSH-PUB-KEY"},"e":{"value":"GEN-GUID"},"f":{"value":"GEN-CUSTOM-FQDN-NAME"},"g":{"value":"GEN-UNIQUE"},"h":{"value":"GEN-VNET-NAME"},"i":{"reference":"GEN-KEYVAULT-PASSWORD-REFERENCE"}}`
	a, b := substitute("x/azuredeploy.json", in), substitute("x/azuredeploy.json", in)
	if a.text != b.text {
		t.Fatalf("two substitutions differ:\n%s\n%s", a.text, b.text)
	}
	if placeholderRE.MatchString(a.text) {
		t.Fatalf("placeholder left: %s", a.text)
	}
	if len(a.secrets) != 1 || !strings.Contains(a.text, a.secrets[0]) {
		t.Fatalf("secrets %q not the password written", a.secrets)
	}
	if strings.Join(a.prerequisites, " ") != "GEN-CUSTOM-FQDN-NAME GET-PREREQ-vnetName" {
		t.Fatalf("prerequisites %q, want GEN-CUSTOM-FQDN-NAME and GET-PREREQ-vnetName", a.prerequisites)
	}
	// The fixed resources the pipeline keeps are named, and made by the run.
	if !strings.Contains(a.text, `"h":{"value":"`+genVnet+`"}`) || !a.fixed[fixedVnet] || !a.fixed[fixedVault] || !a.fixed[fixedSecret] || a.fixed[fixedIdentity] {
		t.Fatalf("fixed resources %v for %s", a.fixed, a.text)
	}
	if !strings.Contains(a.text, `"i":{"reference":{"keyVault":{"id":"`+genVaultID+`"},"secretName":"`+genSecret+`"}}`) {
		t.Fatalf("the Key Vault reference is not the object the pipeline writes: %s", a.text)
	}
	if other := substitute("y/azuredeploy.json", in); other.text == a.text {
		t.Fatal("two templates got the same values")
	}
	u := regexp.MustCompile(`"a":\{"value":"([a-z][a-z0-9]{17})"\}.*"g":\{"value":"([a-z][a-z0-9]{17})"\}`).FindStringSubmatch(a.text)
	if u == nil || u[1] == u[2] {
		t.Fatalf("two GEN-UNIQUE of one file must be distinct 18-character names: %s", a.text)
	}
	if !regexp.MustCompile(`"b":\{"value":"[a-z][a-z0-9]{7}"\}`).MatchString(a.text) {
		t.Fatalf("GEN-UNIQUE-8 is not 8 characters: %s", a.text)
	}
}

func TestPrereqOutputsReplaceQuotedPlaceholders(t *testing.T) {
	in := `{"a":{"value":"GET-PREREQ-vnetName"},"b":{"value":"GET-PREREQ-vnetNameLong"},"c":{"value":"GET-PREREQ-ids"},"d":{"value":"x GET-PREREQ-vnetName"},"e":{"value":"GET-PREREQ-missing"}}`
	outs := map[string]string{
		"vnetName":     outputJSON("vnet-1", "string"),
		"vnetNameLong": outputJSON("vnet-2", ""),
		"ids":          outputJSON(`["/subscriptions/s/x"]`, "array"),
	}
	got := fillPrereqOutputs(in, outs)
	want := `{"a":{"value":"vnet-1"},"b":{"value":"vnet-2"},"c":{"value":["/subscriptions/s/x"]},"d":{"value":"x GET-PREREQ-vnetName"},"e":{"value":"GET-PREREQ-missing"}}`
	if got != want {
		t.Fatalf("fillPrereqOutputs:\n got %s\nwant %s", got, want)
	}
	if u := unresolved(substitution{text: got + `"GET-PREREQ-cmk_key_uri"`}); strings.Join(u, " ") != "GET-PREREQ-vnetName GET-PREREQ-missing GET-PREREQ-cmk_key_uri" {
		t.Fatalf("unresolved = %q", u)
	}
	li := newLiveIndex()
	li.add("nsg", "Microsoft.Network/networkSecurityGroups", "/subscriptions/s/nsg", map[string]any{"properties": map[string]any{"rules": []any{map[string]any{"name": "r0"}}}})
	if v, ok := li.resolve(`["${ref:nsg}","${ref:nsg.properties.rules[0].name}","${subscriptionId}"]`); !ok || v != `["/subscriptions/s/nsg","r0","`+harness.Sub+`"]` {
		t.Fatalf("resolve = %q, %v", v, ok)
	}
	if _, ok := li.resolve("${ref:other}"); ok {
		t.Fatal("a reference to no manifest resolved")
	}
}

func TestArtifactsLocationOnlyWhenDeclared(t *testing.T) {
	// Its prereqs/ template has _artifactsLocation as a variable, not a
	// parameter: convert refuses --param for it.
	if hasArtifactsLocation(corpusDir + "/application-workloads/elastic/elasticsearch-jmeter/prereqs/prereq.azuredeploy.json") {
		t.Fatal("a template that does not declare _artifactsLocation is given one")
	}
	if !hasArtifactsLocation(corpusDir + "/application-workloads/elastic/elasticsearch-jmeter/azuredeploy.json") {
		t.Fatal("a template declaring _artifactsLocation is not given one")
	}
}

func TestLiveIndexResolvesReferencesAsTheToolSplitsThem(t *testing.T) {
	const rg = "/subscriptions/s/resourceGroups/g/providers/"
	site, core := rg+"Microsoft.MobileNetwork/mobileNetworks/n/sites/s1", rg+"Microsoft.MobileNetwork/packetCoreControlPlanes/s1"
	li := newLiveIndex()
	// Two resources of one template share a name: convert names the
	// second by TYPE/NAME.
	li.add("s1", "Microsoft.MobileNetwork/packetCoreControlPlanes", core, map[string]any{"properties": map[string]any{"state": "core"}})
	li.add("sites-s1", "Microsoft.MobileNetwork/mobileNetworks/sites", site, map[string]any{"properties": map[string]any{"state": "site"}})
	li.add("app.v2", "Microsoft.Web/sites", rg+"Microsoft.Web/sites/app", map[string]any{"properties": map[string]any{"host": "h"}})
	li.add("app", "Microsoft.Web/sites", rg+"Microsoft.Web/sites/other", nil)
	for _, tc := range []struct{ in, want string }{
		{"${ref:s1}", core},
		// The TYPE/NAME form holds the dot of its namespace; NAME is the ARM name.
		{"${ref:Microsoft.MobileNetwork/mobileNetworks/sites/s1}", site},
		{"${ref:microsoft.mobilenetwork/mobilenetworks/sites/S1.properties.state}", "site"},
		{"${ref:Microsoft.MobileNetwork/mobileNetworks/sites/sites-s1}", site},
		// The longest name that is a manifest wins over a shorter one.
		{"${ref:app.v2.properties.host}", "h"},
		{"${ref:app.v2}", rg + "Microsoft.Web/sites/app"},
		{"${ref:app}", rg + "Microsoft.Web/sites/other"},
	} {
		if got, ok := li.resolve(tc.in); !ok || got != tc.want {
			t.Errorf("resolve(%s) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
	for _, in := range []string{"${ref:Microsoft.MobileNetwork/mobileNetworks/sites/s2}", "${ref:s1.properties.missing}", "${ref:Microsoft.Web/sites/s1}"} {
		if got, ok := li.resolve(in); ok {
			t.Errorf("resolve(%s) = %q, want no value", in, got)
		}
	}
}

func TestDataPlaceholdersAreTheCertificateNotPrerequisites(t *testing.T) {
	in := `{"pfx":{"value":"GEN-SELFSIGNED-CERT-PFXDATA"},"cer":{"value":"GEN-SELFSIGNED-CERT-CERDATA"},"pw":{"value":"GEN-SELFSIGNED-CERT-PASSWORD"},"dns":{"value":"GEN-SELFSIGNED-CERT-DNSNAME"},"tp":{"value":"GEN-SELFSIGNED-CERT-THUMBPRINT"},"uri":{"value":"GEN-YELLOW-PARQUET-URI"},"ssl":{"value":"GEN-KEYVAULT-SSL-SECRET-NAME"}}`
	s := substitute("x/azuredeploy.json", in)
	if len(s.prerequisites) != 0 {
		t.Fatalf("data placeholders flagged as prerequisites: %q", s.prerequisites)
	}
	if len(s.secrets) != 1 || s.secrets[0] != certPassword {
		t.Fatalf("secrets %q, want the certificate's password only", s.secrets)
	}
	var got map[string]struct{ Value string }
	if err := json.Unmarshal([]byte(s.text), &got); err != nil {
		t.Fatal(err)
	}
	der, err := base64.StdEncoding.DecodeString(got["cer"].Value)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatalf("GEN-SELFSIGNED-CERT-CERDATA is no certificate: %v", err)
	}
	if cert.Subject.CommonName != got["dns"].Value || len(cert.DNSNames) != 1 || cert.DNSNames[0] != got["dns"].Value {
		t.Fatalf("the certificate is for %s %v, the DNS name given %s", cert.Subject.CommonName, cert.DNSNames, got["dns"].Value)
	}
	sum := sha1.Sum(der)
	if got["tp"].Value != strings.ToUpper(hex.EncodeToString(sum[:])) {
		t.Fatalf("thumbprint %s is not the certificate's", got["tp"].Value)
	}
	if pfx, err := base64.StdEncoding.DecodeString(got["pfx"].Value); err != nil || len(pfx) < len(der) {
		t.Fatalf("GEN-SELFSIGNED-CERT-PFXDATA is no PFX holding the certificate: %d bytes, %v", len(pfx), err)
	}
	// The vault certificate is a resource the run makes.
	if !s.fixed[fixedVault] || !s.fixed[fixedSSLCert] || got["ssl"].Value != genSSLSecret {
		t.Fatalf("GEN-KEYVAULT-SSL-SECRET-NAME: %q, fixed %v", got["ssl"].Value, s.fixed)
	}
}

func TestPrivateArtifactsAreAnArrayStillFlagged(t *testing.T) {
	s := substitute("x/azuredeploy.json", `{"fileUris":{"value":"GEN-PRIVATE-STORAGE-ARTIFACTS"}}`)
	var got map[string]struct{ Value []string }
	if err := json.Unmarshal([]byte(s.text), &got); err != nil || len(got["fileUris"].Value) != 1 {
		t.Fatalf("GEN-PRIVATE-STORAGE-ARTIFACTS is not an array of URIs: %s (%v)", s.text, err)
	}
	if !strings.HasPrefix(got["fileUris"].Value[0], "https://"+genStorage+".blob.core.windows.net/"+genContainer+"/") || !s.fixed[fixedStorage] {
		t.Fatalf("the URI %s is not in the fixed container (fixed %v)", got["fileUris"].Value[0], s.fixed)
	}
	if strings.Join(s.prerequisites, " ") != "GEN-PRIVATE-STORAGE-ARTIFACTS" {
		t.Fatalf("prerequisites %q: the blob is not made, the value must stay flagged", s.prerequisites)
	}
}
