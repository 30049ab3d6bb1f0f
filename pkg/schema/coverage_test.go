package schema

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/internal/shareddata"
)

// corpusMissing lists the resource types the azure-cli-extensions corpus
// uses that the stable specs archive (azure-rest-api-specs 2024-07-08,
// stable folders only) lacks: none of them appears in any path of any
// stable file, so they are preview-only or unpublished services. Users
// reach them with --schema-dir on a checkout that has the preview specs.
// A type leaving this list (because the specs or the generator learned
// it) fails the test too, so the list stays true.
var corpusMissing = map[string]string{
	"Microsoft.App/builders":                                                                          notStable,
	"Microsoft.App/builders/builds":                                                                   notStable,
	"Microsoft.App/containerApps/resiliencyPolicies":                                                  notStable,
	"Microsoft.App/managedEnvironments/daprComponents/resiliencyPolicies":                             notStable,
	"Microsoft.AutonomousDevelopmentPlatform/workspaces":                                              notStable,
	"Microsoft.Blockchain/blockchainMembers":                                                          notStable,
	"Microsoft.Blockchain/blockchainMembers/transactionNodes":                                         notStable,
	"Microsoft.Blueprint/blueprintAssignments":                                                        notStable,
	"Microsoft.Blueprint/blueprints":                                                                  notStable,
	"Microsoft.Blueprint/blueprints/artifacts":                                                        notStable,
	"Microsoft.Blueprint/blueprints/versions":                                                         notStable,
	"Microsoft.ConfidentialLedger/managedCCFs":                                                        notStable,
	"Microsoft.ContainerService/managedclustersnapshots":                                              notStable,
	"Microsoft.CustomProviders/resourceProviders":                                                     notStable,
	"Microsoft.DataMigration/databaseMigrations":                                                      notStable,
	"Microsoft.DataMigration/sqlMigrationServices":                                                    notStable,
	"Microsoft.DocumentDB/databaseAccounts/dataTransferJobs":                                          notStable,
	"Microsoft.DocumentDB/mongoClusters":                                                              notStable,
	"Microsoft.DocumentDB/mongoClusters/firewallRules":                                                notStable,
	"Microsoft.EventGrid/namespaces":                                                                  notStable,
	"Microsoft.EventGrid/namespaces/permissionBindings":                                               notStable,
	"Microsoft.EventGrid/namespaces/topicSpaces":                                                      notStable,
	"Microsoft.EventGrid/namespaces/topics":                                                           notStable,
	"Microsoft.EventGrid/namespaces/topics/eventSubscriptions":                                        notStable,
	"Microsoft.FootprintMonitoring/profiles":                                                          notStable,
	"Microsoft.FootprintMonitoring/profiles/experiments":                                              notStable,
	"Microsoft.FootprintMonitoring/profiles/measurementEndpoints":                                     notStable,
	"Microsoft.FootprintMonitoring/profiles/measurementEndpoints/conditions":                          notStable,
	"Microsoft.HDInsight/clusterpools":                                                                notStable,
	"Microsoft.HDInsight/clusterpools/clusters":                                                       notStable,
	"Microsoft.Help/solutions":                                                                        notStable,
	"Microsoft.Help/troubleshooters":                                                                  notStable,
	"Microsoft.HybridCompute/machines/runCommands":                                                    notStable,
	"Microsoft.Network/networkManagers/securityUserConfigurations/ruleCollections":                    notStable,
	"Microsoft.Network/networkManagers/securityUserConfigurations/ruleCollections/rules":              notStable,
	"Microsoft.Network/networkSecurityPerimeters":                                                     notStable,
	"Microsoft.Network/networkSecurityPerimeters/links":                                               notStable,
	"Microsoft.Network/networkSecurityPerimeters/profiles":                                            notStable,
	"Microsoft.Network/networkSecurityPerimeters/profiles/accessRules":                                notStable,
	"Microsoft.Network/networkSecurityPerimeters/resourceAssociations":                                notStable,
	"Microsoft.OperationsManagement/solutions":                                                        notStable,
	"Microsoft.Portal/dashboards":                                                                     notStable,
	"Microsoft.ProviderHub/providerRegistrations/resourcetypeRegistrations/resourcetypeRegistrations": notStable,
	"Microsoft.SecurityInsights/bookmarks/relations":                                                  notStable,
	"Microsoft.Swiftlet/virtualMachines":                                                              notStable,
	"microsoft.insights/components/linkedStorageAccounts":                                             notStable,
}

const notStable = "no path in the stable specs (preview-only or unpublished)"

// TestCoverage reports how much of ARM the embedded index knows and checks
// the budgets of issue 4: at least 1,500 types and 9,000 (type,
// api-version) pairs.
func TestCoverage(t *testing.T) {
	r := Default()
	types := r.Types()
	pairs := 0
	for _, typ := range types {
		pairs += len(r.Versions(typ))
	}
	t.Logf("embedded index: %d resource types, %d (type, api-version) pairs", len(types), pairs)
	if len(types) < 1500 {
		t.Errorf("only %d resource types; want at least 1,500", len(types))
	}
	if pairs < 9000 {
		t.Errorf("only %d (type, api-version) pairs; want at least 9,000", pairs)
	}
}

type corpusRecord struct {
	Source       string         `json:"source"`
	ResourceType string         `json:"resourceType"`
	APIVersion   string         `json:"apiVersion"`
	PutBody      map[string]any `json:"putBody"`
}

// corpusSpecMismatches are the validation errors real, accepted PUT bodies
// of the corpus raise, each a place where the Azure CLI sends something
// the spec's type or closed enum forbids and ARM accepts anyway (numbers
// as strings; a webtest kind newer than the spec). Anything else is a
// generator bug (a merged discriminator with the wrong type, a lost
// $ref...), which is what this list guards against.
var corpusSpecMismatches = map[string]bool{
	"Microsoft.App/containerApps properties.configuration.ingress.targetPort":    true,
	"Microsoft.App/containerApps properties.template.containers[].resources.cpu": true,
	"Microsoft.OperationalInsights/workspaces properties.retentionInDays":        true,
	"Microsoft.Insights/webtests properties.Kind":                                true,
}

// TestCorpusBodiesValidate runs Validate on every recorded PUT body that
// ARM accepted: no errors beyond the known spec mismatches.
func TestCorpusBodiesValidate(t *testing.T) {
	r := Default()
	sev := map[Severity]int{}
	bodies := 0
	for _, rec := range readCorpus(t) {
		ty, _ := r.Lookup(rec.ResourceType, rec.APIVersion)
		if ty == nil || rec.PutBody == nil {
			continue
		}
		bodies++
		for _, is := range ty.Validate(rec.PutBody) {
			sev[is.Severity]++
			if is.Severity != Error {
				continue
			}
			sp, _ := ty.Resolve(SplitPath(is.Path))
			if !corpusSpecMismatches[ty.Name+" "+sp] {
				t.Errorf("%s (%s@%s): %s", rec.Source, rec.ResourceType, rec.APIVersion, is)
			}
		}
	}
	t.Logf("corpus PUT bodies validated: %d; issues: %d errors (known spec mismatches), %d warnings, %d ignored readonly",
		bodies, sev[Error], sev[Warning], sev[Ignored])
	if bodies < 2000 {
		t.Errorf("only %d bodies validated", bodies)
	}
}

func readCorpus(t *testing.T) []corpusRecord {
	t.Helper()
	p := shareddata.Path(t, "corpus", "azure-cli-extensions", "roundtrips.jsonl.gz")
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusRecord
	sc := bufio.NewScanner(gz)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		var rec corpusRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCorpusTypesResolve: every (type, api-version) the azure-cli-extensions
// recordings use resolves, exactly or to the nearest version, except the
// types listed in corpusMissing.
func TestCorpusTypesResolve(t *testing.T) {
	r := Default()
	recs := readCorpus(t)
	if len(recs) < 1000 {
		t.Fatalf("corpus has only %d records; is it the real one?", len(recs))
	}
	seenType := map[string]bool{}
	seenPair := map[string]bool{}
	exact, nearest := 0, 0
	missing := map[string]bool{}
	for _, rec := range recs {
		lt := strings.ToLower(rec.ResourceType)
		pair := lt + "@" + rec.APIVersion
		if seenPair[pair] {
			continue
		}
		seenPair[pair] = true
		seenType[lt] = true
		ty, res := r.Lookup(rec.ResourceType, rec.APIVersion)
		switch {
		case ty == nil:
			missing[rec.ResourceType] = true
		case res.Nearest:
			nearest++
			if res.Warning == "" || res.APIVersion == rec.APIVersion {
				t.Errorf("%s@%s: nearest resolution without warning: %+v", rec.ResourceType, rec.APIVersion, res)
			}
		default:
			exact++
		}
	}
	var unexpected, stale []string
	for typ := range missing {
		if _, ok := corpusMissing[typ]; !ok {
			unexpected = append(unexpected, typ)
		}
	}
	for typ := range corpusMissing {
		if _, ok := r.Lookup(typ, ""); ok.Found {
			stale = append(stale, typ)
		}
	}
	sort.Strings(unexpected)
	sort.Strings(stale)
	t.Logf("corpus: %d types, %d (type, api-version) pairs: %d exact, %d nearest, %d types unknown (listed in corpusMissing)",
		len(seenType), len(seenPair), exact, nearest, len(missing))
	for _, typ := range unexpected {
		t.Errorf("corpus type %s does not resolve and is not listed in corpusMissing", typ)
	}
	for _, typ := range stale {
		t.Errorf("corpusMissing lists %s but it resolves now; remove it from the list", typ)
	}
}
