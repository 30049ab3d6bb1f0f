package schema

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/internal/shareddata"
)

// corpusMissing lists the resource types the azure-cli-extensions corpus
// uses that neither the Bicep type index nor the stable Swagger has: they
// are private or retired services. A type leaving this list (because a
// source or the generator learned it) fails the test too, so the list
// stays true.
var corpusMissing = map[string]string{
	"Microsoft.AutonomousDevelopmentPlatform/workspaces":                                              absent,
	"Microsoft.Blockchain/blockchainMembers":                                                          absent,
	"Microsoft.Blockchain/blockchainMembers/transactionNodes":                                         absent,
	"Microsoft.EventGrid/{parentType}/privateEndpointConnections":                                     templated,
	"Microsoft.FootprintMonitoring/profiles":                                                          absent,
	"Microsoft.FootprintMonitoring/profiles/experiments":                                              absent,
	"Microsoft.FootprintMonitoring/profiles/measurementEndpoints":                                     absent,
	"Microsoft.FootprintMonitoring/profiles/measurementEndpoints/conditions":                          absent,
	"Microsoft.HDInsight/clusterpools":                                                                absent,
	"Microsoft.HDInsight/clusterpools/clusters":                                                       absent,
	"Microsoft.Network/dnsZones/{recordType}":                                                         templated,
	"Microsoft.Network/privateDnsZones/{recordType}":                                                  templated,
	"Microsoft.Network/trafficmanagerprofiles/{endpointType}":                                         templated,
	"Microsoft.ProviderHub/providerRegistrations/resourcetypeRegistrations/resourcetypeRegistrations": absent,
	"Microsoft.Swiftlet/virtualMachines":                                                              absent,
	"microsoft.insights/components/{scopePath}":                                                       templated,
}

const (
	absent    = "in neither source: a retired preview or a private service"
	templated = "the corpus kept a path template ({recordType}), not a type"
)

// TestCoverage reports how much of ARM the embedded index knows: every
// api-version the Bicep type index has (34,509 pairs) plus the Swagger-only
// ones.
func TestCoverage(t *testing.T) {
	r := Default()
	types := r.Types()
	pairs := 0
	for _, typ := range types {
		pairs += len(r.Versions(typ))
	}
	t.Logf("embedded index: %d resource types, %d (type, api-version) pairs", len(types), pairs)
	if len(types) < 3400 {
		t.Errorf("only %d resource types; want at least 3,400", len(types))
	}
	if pairs < 34509 {
		t.Errorf("only %d (type, api-version) pairs; want at least 34,509", pairs)
	}
}

type corpusRecord struct {
	Source       string         `json:"source"`
	ResourceType string         `json:"resourceType"`
	APIVersion   string         `json:"apiVersion"`
	ID           string         `json:"id"`
	PutStatus    int            `json:"putStatus"`
	PutBody      map[string]any `json:"putBody"`
}

func (c corpusRecord) name() string {
	return c.ID[strings.LastIndex(c.ID, "/")+1:]
}

// TestCorpusBodiesValidate validates every recorded PUT body ARM accepted,
// as a create with its resource name: none may be an error. Spec examples
// are checked the same way; they are what the spec authors wrote, not
// what ARM accepted, so their errors are only counted.
func TestCorpusBodiesValidate(t *testing.T) {
	r := Default()
	for _, src := range []struct {
		path []string
		real bool
	}{
		{[]string{"azure-cli-extensions", "roundtrips.jsonl.gz"}, true},
		{[]string{"rest-api-specs-examples", "put_examples.jsonl.gz"}, false},
	} {
		sev := map[Severity]int{}
		kinds := map[IssueKind]int{}
		bodies := 0
		for _, rec := range readCorpusFile(t, src.path...) {
			ty, _ := r.Lookup(rec.ResourceType, rec.APIVersion)
			if ty == nil || rec.PutBody == nil {
				continue
			}
			bodies++
			for _, is := range ty.ValidateWith(rec.PutBody, ValidateOptions{Name: rec.name(), Create: true}) {
				sev[is.Severity]++
				if is.Severity != Error {
					continue
				}
				kinds[is.Kind]++
				if src.real {
					t.Errorf("%s (%s@%s): %s", rec.Source, rec.ResourceType, rec.APIVersion, is)
				}
			}
		}
		t.Logf("%s: %d PUT bodies validated as creates: %d errors %v, %d warnings, %d ignored readonly",
			src.path[0], bodies, sev[Error], kinds, sev[Warning], sev[Ignored])
		if bodies < 2000 {
			t.Errorf("only %d bodies validated", bodies)
		}
	}
}

// TestCorpusTypesResolve measures how many (type, api-version) pairs of
// the corpora the index knows exactly, and checks every type resolves
// except those in corpusMissing.
func TestCorpusTypesResolve(t *testing.T) {
	r := Default()
	missing := map[string]bool{}
	for _, src := range []struct {
		path []string
		min  float64
	}{
		{[]string{"azure-cli-extensions", "roundtrips.jsonl.gz"}, 0.95},
		{[]string{"rest-api-specs-examples", "put_examples.jsonl.gz"}, 0.99},
	} {
		seenPair := map[string]bool{}
		exact := 0
		for _, rec := range readCorpusFile(t, src.path...) {
			pair := strings.ToLower(rec.ResourceType) + "@" + rec.APIVersion
			if seenPair[pair] {
				continue
			}
			seenPair[pair] = true
			ty, res := r.Lookup(rec.ResourceType, rec.APIVersion)
			switch {
			case ty == nil:
				missing[rec.ResourceType] = true
			case res.Nearest:
				if res.Warning == "" || res.APIVersion == rec.APIVersion || !ty.Fallback() {
					t.Errorf("%s@%s: nearest resolution not marked: %+v", rec.ResourceType, rec.APIVersion, res)
				}
				if r.HasVersion(rec.ResourceType, rec.APIVersion) {
					t.Errorf("%s@%s: HasVersion true for a nearest resolution", rec.ResourceType, rec.APIVersion)
				}
			default:
				exact++
			}
		}
		share := float64(exact) / float64(len(seenPair))
		t.Logf("%s: %d (type, api-version) pairs, %d exact (%.1f%%)", src.path[0], len(seenPair), exact, 100*share)
		if share < src.min {
			t.Errorf("%s: exact share %.3f below %.3f", src.path[0], share, src.min)
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
	for _, typ := range unexpected {
		t.Errorf("corpus type %s does not resolve and is not listed in corpusMissing", typ)
	}
	for _, typ := range stale {
		t.Errorf("corpusMissing lists %s but it resolves now; remove it from the list", typ)
	}
}

// readCorpusFile reads a JSON-lines corpus with numbers kept exact, as
// every body in the tool carries them.
func readCorpusFile(t *testing.T, rel ...string) []corpusRecord {
	t.Helper()
	p := shareddata.Path(t, append([]string{"corpus"}, rel...)...)
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
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		if err := dec.Decode(&rec); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
