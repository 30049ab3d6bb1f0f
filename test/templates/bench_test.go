package templates_test

import (
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// BenchmarkConvertCorpus converts every template of the corpus in-process,
// one after another, to stdout: the cost of convert itself (parsing,
// evaluating, rendering), whether or not a template converts. It reports
// the whole corpus's time (s-corpus) and how many converted.
func BenchmarkConvertCorpus(b *testing.B) {
	b.Setenv("AZURE_TENANT_ID", tenantID)
	all := templates(b)
	jobs := make([][]string, 0, len(all))
	dir := b.TempDir()
	for i, rel := range all {
		args, _, err := convertArgs(rel, filepath.Join(dir, strconv.Itoa(i)+".parameters.json"))
		if err != nil {
			b.Fatal(err)
		}
		jobs = append(jobs, args)
	}
	b.ResetTimer()
	var converted int
	start := time.Now()
	for n := 0; n < b.N; n++ {
		converted = 0
		for _, j := range jobs {
			if harness.RunRaw(j...).Code == 0 {
				converted++
			}
		}
	}
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "s-corpus")
	b.ReportMetric(float64(converted), "converted")
	b.ReportMetric(float64(len(jobs)), "templates")
}
