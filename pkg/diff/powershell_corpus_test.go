package diff_test

// Held-out measurement (issue 22): PUT→GET round trips recorded by the Azure
// PowerShell modules' test suites. No rule of the engine was written from
// these records, so the rates below estimate how the diff behaves on traffic
// it has never seen. Run with -v for the per-provider tables and the ranked
// noise causes:
//
//	go test ./pkg/diff -run PowerShell -v

import (
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
)

// Floors that hold today on the PowerShell records. They guard against
// regressions; raise them when the engine improves.
const (
	psMinQuietNoPlugins = 0.95
	psMinQuietPlugins   = 0.95
	psMinSensitivity    = 0.99
	psMinRecords        = 32
	psMinProviders      = 10
)

// psUnapplied lists the records where ARM answered the PUT with success but
// kept an old value: the live state really differs from the desired one, so
// the engine must report exactly that path. They are left out of the quiet
// rate and checked on their own.
var psUnapplied = map[string]string{
	// The second PUT changes azureFile.accountName; ARM returns 200 and keeps
	// the first value in both the PUT response and the GET.
	"azure-powershell:src/App/App.Autorest/test/AzContainerAppManagedEnvStorage.Recording.json#1": "properties.azureFile.accountName",
}

func powershellCorpus(t testing.TB) []record {
	return loadCorpus(t, "corpus", "azure-powershell", "roundtrips.jsonl.gz")
}

// powershellApplied returns the records whose PUT ARM applied in full.
func powershellApplied(t testing.TB) []record {
	var out []record
	for _, r := range powershellCorpus(t) {
		if _, ok := psUnapplied[r.Source]; !ok {
			out = append(out, r)
		}
	}
	return out
}

func TestPowerShellCorpusUnappliedReported(t *testing.T) {
	found := 0
	for _, r := range powershellCorpus(t) {
		want, ok := psUnapplied[r.Source]
		if !ok {
			continue
		}
		found++
		for _, withPlugins := range []bool{false, true} {
			res := diff.Compute(input(r, withPlugins))
			if cs := claimed(res); len(cs) != 1 || genericPath(cs[0].Path) != want {
				t.Errorf("%s (plugins %v): want exactly one change at %s, got %+v", r.Source, withPlugins, want, res.Changes)
			}
		}
	}
	if found != len(psUnapplied) {
		t.Errorf("found %d of the %d records listed in psUnapplied", found, len(psUnapplied))
	}
}

func TestPowerShellCorpusShape(t *testing.T) {
	recs := powershellCorpus(t)
	providers := map[string]bool{}
	for _, r := range recs {
		providers[strings.ToLower(r.Provider)] = true
		if !strings.HasPrefix(r.Source, "azure-powershell:") {
			t.Errorf("%s: source does not name the PowerShell recordings", r.Source)
		}
		if r.APIVersion == "" || r.ResourceType == "" || r.ID == "" {
			t.Errorf("%s: missing apiVersion, resourceType or id", r.Source)
		}
	}
	if len(recs) < psMinRecords || len(providers) < psMinProviders {
		t.Errorf("corpus has %d records from %d providers, want at least %d from %d",
			len(recs), len(providers), psMinRecords, psMinProviders)
	}
}

func TestPowerShellCorpusQuiet(t *testing.T) {
	t.Parallel()
	before, after := quietWithAndWithout(t, powershellApplied(t), "azure-powershell, held out", psMinQuietNoPlugins, psMinQuietPlugins, 40)
	// Plugins only add knowledge: they must never make a record noisy.
	if after.ok["ALL"] < before.ok["ALL"] {
		t.Errorf("plugins made records noisy: %d quiet with, %d without", after.ok["ALL"], before.ok["ALL"])
	}
}

func TestPowerShellCorpusSensitivity(t *testing.T) {
	t.Parallel()
	recs := powershellApplied(t)
	for _, withPlugins := range []bool{false, true} {
		tl, misses, skipped, _ := sensitivityRun(recs, withPlugins)
		label := map[bool]string{false: "WITHOUT", true: "WITH"}[withPlugins]
		t.Logf("sensitivity %s plugins (azure-powershell, one echoed leaf mutated):\n%s", label, tl.report())
		t.Logf("leaves not sampled: %v", skipped)
		t.Logf("misses:\n%s", misses.top(20))
		if tl.total["ALL"] == 0 {
			t.Errorf("sensitivity %s plugins: no leaf was sampled", label)
			continue
		}
		if r := tl.rate("ALL"); r < psMinSensitivity {
			t.Errorf("sensitivity %s plugins %.2f%% fell below the %.0f%% floor", label, 100*r, 100*psMinSensitivity)
		}
	}
}

// After a write the tool records L = D and B = Project(S, owned); the next
// plan over the held-out records must then find nothing to do.
func TestPowerShellCorpusQuietAfterApply(t *testing.T) {
	t.Parallel()
	key := []byte("powershell-corpus-salt")
	n := 0
	for _, r := range powershellCorpus(t) {
		if exclusion(r) != "" {
			continue
		}
		// After the write, L and B agree with S even where ARM kept an old
		// value, so every record, unapplied ones too, must be quiet.
		in := input(r, true)
		st := in
		st.LastApplied = diff.HashSecrets(r.PutBody, in.Schema, key)
		st.Baseline = diff.Project(r.GetBody, diff.Compute(in).Owned)
		st.SecretKey = key
		n++
		if res := diff.Compute(st); res.Action != diff.ActionNoOp {
			t.Errorf("%s (%s): not quiet after apply: %+v", r.Source, r.ResourceType, res.Changes)
		}
	}
	if n == 0 {
		t.Fatal("no record measured")
	}
	t.Logf("quiet after apply: %d records", n)
}
