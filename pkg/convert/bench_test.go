package convert_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert"
)

// BenchmarkConvertQuickstarts converts every template of testdata/convert
// (parse, evaluate, render, write) once per iteration.
func BenchmarkConvertQuickstarts(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "convert", "*", "azuredeploy.json"))
	if len(files) == 0 {
		b.Fatal("no templates")
	}
	type input struct {
		name string
		data []byte
	}
	var ins []input
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		ins = append(ins, input{f, data})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, in := range ins {
			t, err := convert.Parse(in.name, in.data)
			if err != nil {
				b.Fatal(err)
			}
			// Parameters without defaults are left out: the problems they
			// give are part of the work too.
			_, _ = t.Convert(context.Background(), convert.Options{Scope: convert.Scope{ResourceGroup: "rg-bench", Location: "westeurope"}, Partial: true})
		}
	}
	b.ReportMetric(float64(len(ins)), "templates/op")
}
