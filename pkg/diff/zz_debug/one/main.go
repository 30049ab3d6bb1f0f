package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

type record struct {
	Source, ResourceType, APIVersion string
	PutBody, GetBody                 map[string]any
}

// usage: one FILE SOURCE-SUFFIX path.to.leaf (dots, numeric = index) newvalue-json
func main() {
	f, _ := os.Open(os.Args[1])
	zr, _ := gzip.NewReader(f)
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r record
		json.Unmarshal(sc.Bytes(), &r)
		if !strings.HasSuffix(r.Source, os.Args[2]) {
			continue
		}
		s, _ := schema.Default().Lookup(r.ResourceType, r.APIVersion)
		d := r.PutBody
		if len(os.Args) > 4 {
			var v any
			json.Unmarshal([]byte(os.Args[4]), &v)
			var cur any = d
			parts := strings.Split(os.Args[3], "/")
			for i, p := range parts {
				last := i == len(parts)-1
				switch c := cur.(type) {
				case map[string]any:
					if last { c[p] = v } else { cur = c[p] }
				case []any:
					var n int
					fmt.Sscan(p, &n)
					if last { c[n] = v } else { cur = c[n] }
				}
			}
		}
		res := diff.Compute(diff.Input{Desired: d, Live: r.GetBody, Schema: s, Explain: true})
		b, _ := json.MarshalIndent(res, "", " ")
		fmt.Println(string(b))
		return
	}
}
