package templates_test

import (
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

func TestFailureLineKeepsARMsAnswer(t *testing.T) {
	out := "  ✗ failed   Microsoft.SecurityInsights/automationRules/r1: PUT Microsoft.SecurityInsights/automationRules/r1 (m.yaml#1): PUT /subscriptions/s/x: 404 Not Found (ParentResourceNotFound): the parent could not be found.\nerror: 1 resource(s) failed, 0 skipped"
	r := harness.Result{Stdout: out}
	want := "Microsoft.SecurityInsights/automationRules/r1: 404 Not Found (ParentResourceNotFound): the parent could not be found."
	if got := failure(r); got != want {
		t.Fatalf("failure:\n got %q\nwant %q", got, want)
	}
	if c := classifyRun(out); c != classEmulator {
		t.Fatalf("an ARM answer is classed %q, want %q", c, classEmulator)
	}
	if c := classifyRun("error: m.yaml#1 (line 15): spec.type: ARM does not serve api-version 2017-03-15-preview of Microsoft.OperationalInsights/workspaces; did you mean 2017-03-01-preview?"); c != classEmulator {
		t.Fatalf("a version the emulator's provider list lacks is classed %q, want %q", c, classEmulator)
	}
	if c := classifyRun("error: dependency cycle: a -> b -> a"); c != classTool {
		t.Fatalf("a client-side error is classed %q, want %q", c, classTool)
	}
	const absent = "error: Microsoft.HybridCompute/machines/Node1 (manifests/%s.yaml#0) is annotated azure.kubectl.io/existing: true, but it does not exist in Azure; nothing was written."
	if c := classifyRun(strings.Replace(absent, "%s", "SingleNodeNoStorage", 1)); c != classPrerequisite {
		t.Fatalf("an existing resource of a group nobody makes is classed %q, want %q", c, classPrerequisite)
	}
	if c := classifyRun(strings.Replace(absent, "%s", "rg-corpus-prereq", 1)); c != classTool {
		t.Fatalf("an existing resource absent from a group the corpus makes is classed %q, want %q", c, classTool)
	}
}

func TestUnknownTypesNamesWhatTheSchemaLacks(t *testing.T) {
	// A classic Data Factory (v1) template: its types left the specs long ago.
	got := unknownTypes(corpusDir + "/quickstarts/microsoft.datafactory/data-factory-blob-to-sql-copy-stored-proc/azuredeploy.json")
	if got == "" || !strings.Contains(got, "Microsoft.DataFactory/datafactories") {
		t.Fatalf("unknownTypes = %q, want it to name Microsoft.DataFactory/datafactories", got)
	}
	if got := unknownTypes(corpusDir + "/quickstarts/microsoft.storage/storage-account-create/azuredeploy.json"); got != "" {
		t.Fatalf("a storage account template: unknownTypes = %q, want none", got)
	}
}

func TestNestedExtensionTypesAreTheExtensionsTypes(t *testing.T) {
	for _, c := range []struct{ typ, name, want string }{
		{"Microsoft.KeyVault/vaults/providers/diagnosticSettings", "[concat(parameters('keyVaultName'), '/Microsoft.Insights/service')]", "Microsoft.Insights/diagnosticSettings"},
		{"Microsoft.Network/virtualNetworks/subnets/providers/roleAssignments", "[parameters('existingSubnetRoleAssignmentName')]", "Microsoft.Authorization/roleAssignments"},
		{"Microsoft.Web/sites/providers/links", "[concat(parameters('siteName'), '/Microsoft.Resources/link')]", "Microsoft.Resources/links"},
		{"Microsoft.Storage/storageAccounts", "st", "Microsoft.Storage/storageAccounts"},
	} {
		if got := extensionType(c.typ, c.name); got != c.want {
			t.Errorf("extensionType(%s, %s) = %s, want %s", c.typ, c.name, got, c.want)
		}
	}
	// A template whose only unknown type was a vault's nested diagnostic settings is run.
	if got := unknownTypes(corpusDir + "/quickstarts/microsoft.azurestackhci/create-cluster/azuredeploy.json"); got != "" {
		t.Fatalf("unknownTypes = %q, want none", got)
	}
}

func TestTableGivesEachClassAgainstKnownAndTheTarget(t *testing.T) {
	var rs []result
	for i := 0; i < 8; i++ {
		rs = append(rs, result{template: "p", class: classPass})
	}
	rs = append(rs, result{template: "t", class: classTool}, result{template: "e", class: classEmulator}, result{template: "s", class: classSchema})
	tab := summarise(rs).table()
	for _, want := range []string{
		"pass                                8    80.0%",
		"tool                                1    10.0%",
		"schema does not know a type         1        -",
		"pass rate: 80.0% (8 of 10 templates whose types the schema knows; 11 in all); target 95%: 2 more to pass",
	} {
		if !strings.Contains(tab, want) {
			t.Errorf("table lacks %q:\n%s", want, tab)
		}
	}
}

func TestClassifyConvertBlamesTheConverterOnlyForItsOwnFaults(t *testing.T) {
	for _, c := range []struct {
		line string
		want class
	}{
		{"error: #0 (line 19): parameters._secretsLocation: parameter _secretsLocation has no value: give it with --param _secretsLocation=VALUE or in a --parameters file", classPrerequisite},
		{"error: #0 (line 216): resources[0].properties.templateLink: a linked template (templateLink) is not converted: download it", classInexpressible},
		{"error: #0 (line 254): resources[7].properties.value: listAccountSas needs a value known only at deploy time (an action called with a request body)", classInexpressible},
		{"error: #0 (line 12): resources[0].name: unknown function foo", classConverter},
		{`error: #0 (line 11): parameters: the template has no parameter "x" (it has a, b); ARM refuses the template: InvalidTemplate for a parameter it does not declare`, classTemplate},
		{"error: #0 (line 206): resources[4].properties.k: expected ',' or ')' at offset 139 in the arguments of listKeys (ARM refuses the template: InvalidTemplate)", classTemplate},
		{"error: #0 (line 519): resources[2].properties.id: resourceId: the type Microsoft.Network/virtualNetworks/subnets requires 2 resource name argument(s), got 1 (ARM refuses the template: InvalidTemplate)", classTemplate},
	} {
		if got := classifyConvert(c.line); got != c.want {
			t.Errorf("classifyConvert(%q) = %q, want %q", c.line, got, c.want)
		}
	}
}

func TestPrereqFailuresAreClassedByWhoseFaultTheyAre(t *testing.T) {
	for _, c := range []struct {
		rel  string
		left []string
		want class
	}{
		// Its prereqs declare no output existingSliceName: the sample lacks it.
		{"quickstarts/microsoft.mobilenetwork/mobilenetwork-update-packet-core-control-plane/azuredeploy.json", []string{"GET-PREREQ-existingSliceName"}, classPrerequisite},
		// A declared output convert gives no value (a connection string with a key).
		{"quickstarts/microsoft.datafactory/data-factory-v2-transform-using-spark/azuredeploy.json", []string{"GET-PREREQ-AzureStorage_connectionString"}, classInexpressible},
	} {
		if got, why := missingOutputs(c.rel, c.left); got != c.want || !strings.Contains(why, c.left[0]) {
			t.Errorf("missingOutputs(%s) = %q, %q; want %q naming %s", c.rel, got, why, c.want, c.left[0])
		}
	}
	for _, c := range []struct {
		stderr string
		want   class
	}{
		{"error: -o jsonpath on /subscriptions/s/resourceGroups/g/providers/Microsoft.KeyVault/vaults/v/keys/k: keyUriWithVersion is not found", classEmulator},
		{"error: manifests/m.yaml#1: spec.type: unknown type", classTool},
	} {
		if got := getClass(c.stderr); got != c.want {
			t.Errorf("getClass(%q) = %q, want %q", c.stderr, got, c.want)
		}
	}
}

// A refusal whose "known only when deployed" comes after the first 300
// characters is still not expressible: convert's line is classed whole.
func TestConvertVerdictReadsTheWholeLine(t *testing.T) {
	line := "error: #0 (line 326): resources[5].properties.virtualMachineProfile.extensionProfile.extensions[0].properties.settings." +
		strings.Repeat("x", 300) + ": reference(resourceId('Microsoft.KeyVault/vaults', ...)) is known only when deployed: it cannot be in a manifest"
	cl, reason := convertVerdict(line + "\n")
	if cl != classInexpressible {
		t.Errorf("class %q, want %q", cl, classInexpressible)
	}
	if len(reason) > 303 {
		t.Errorf("the reason is not clipped: %d characters", len(reason))
	}
}
