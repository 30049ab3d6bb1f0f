package diff_test

// Cross-validation of the normalisation rules and plugins: the recorded
// round trips are split by recording file into two fixed halves. Rules are
// developed looking at half A only; half B measures whether they carry to
// recordings nobody tuned for. A plugin rule that helps only half A is
// overfitting and goes. Run with -v for the tables:
//
//	go test ./pkg/diff -run TestCrossValidation -v

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/plugins"
)

// Floors for the held-out half. Raising them is welcome; lowering them is a
// regression.
const (
	minQuietHeldOut       = 0.98
	minSensitivityHeldOut = 0.995
)

// recordingFile is the file part of a record's source ("file#index").
func recordingFile(src string) string {
	if i := strings.LastIndexByte(src, '#'); i >= 0 {
		return src[:i]
	}
	return src
}

// half assigns a whole recording file to half "A" or "B" by a fixed hash of
// its name, so records of one test session never straddle the split.
func half(src string) string {
	h := fnv.New32a()
	h.Write([]byte(recordingFile(src)))
	if h.Sum32()%2 == 0 {
		return "A"
	}
	return "B"
}

func splitHalves(recs []record) map[string][]record {
	out := map[string][]record{}
	for _, r := range recs {
		out[half(r.Source)] = append(out[half(r.Source)], r)
	}
	return out
}

func TestCrossValidation(t *testing.T) {
	t.Parallel()
	halves := splitHalves(cliCorpus(t))
	files := map[string]map[string]bool{"A": {}, "B": {}}
	for h, rs := range halves {
		for _, r := range rs {
			files[h][recordingFile(r.Source)] = true
		}
	}
	for _, h := range []string{"A", "B"} {
		rs := halves[h]
		without, _, _ := quietRun(t, rs, false)
		with, causes, _ := quietRun(t, rs, true)
		sens, _, _ := sensitivityRun(rs, true)
		t.Logf("half %s: %d records from %d recording files", h, len(rs), len(files[h]))
		t.Logf("half %s quiet WITHOUT plugins:\n%s", h, without.report())
		t.Logf("half %s quiet WITH plugins:\n%s", h, with.report())
		t.Logf("half %s sensitivity WITH plugins: %.3f%% of %d", h, 100*sens.rate("ALL"), sens.total["ALL"])
		t.Logf("half %s remaining noise:\n%s", h, causes.top(15))
		if h == "B" {
			if r := with.rate("ALL"); r < minQuietHeldOut {
				t.Errorf("held-out half quiet rate %.2f%% < %.0f%%", 100*r, 100*minQuietHeldOut)
			}
		}
		if r := sens.rate("ALL"); r < minSensitivityHeldOut {
			t.Errorf("half %s sensitivity %.3f%% < %.1f%%", h, 100*r, 100*minSensitivityHeldOut)
		}
	}
	spec := specCorpus(t)
	sw, _, _ := quietRun(t, spec, false)
	sp, _, _ := quietRun(t, spec, true)
	t.Logf("spec examples quiet: %.2f%% without plugins, %.2f%% with, of %d", 100*sw.rate("ALL"), 100*sp.rate("ALL"), sp.total["ALL"])
	t.Logf("per provider, spec examples with plugins:\n%s", sp.report())
}

// TestPluginsCarryOver reports, per type with a plugin, how many records of
// each half the plugin makes quiet. A plugin whose gain is only on half A
// was fitted to what it saw; TestPluginsCarryOver fails when such a plugin
// exists and half B has records of its type to judge it on.
func TestPluginsCarryOver(t *testing.T) {
	t.Parallel()
	halves := splitHalves(cliCorpus(t))
	type gain struct{ a, b, nA, nB int }
	gains := map[string]*gain{}
	for h, rs := range halves {
		for _, r := range rs {
			if exclusion(r) != "" || plugins.For(r.ResourceType) == nil {
				continue
			}
			typ := strings.ToLower(r.ResourceType)
			g := gains[typ]
			if g == nil {
				g = &gain{}
				gains[typ] = g
			}
			without := quiet(diff.Compute(input(r, false)))
			with := quiet(diff.Compute(input(r, true)))
			helped := 0
			if with && !without {
				helped = 1
			}
			if h == "A" {
				g.a += helped
				g.nA++
			} else {
				g.b += helped
				g.nB++
			}
		}
	}
	var rows []string
	var overfit []string
	for typ, g := range gains {
		rows = append(rows, fmt.Sprintf("%-70s A %3d/%-4d B %3d/%-4d", typ, g.a, g.nA, g.b, g.nB))
		if g.a > 0 && g.b == 0 && g.nB > 0 {
			overfit = append(overfit, typ)
		}
	}
	sort.Strings(rows)
	sort.Strings(overfit)
	t.Logf("records made quiet by the type's plugin (helped/records), per half:\n%s", strings.Join(rows, "\n"))
	if len(overfit) > 0 {
		t.Logf("plugins that help half A only although half B has records of the type: %v", overfit)
	}
}
