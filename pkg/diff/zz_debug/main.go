// Temporary investigation tool; deleted before hand-off.
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
	"github.com/kubectl-azure/kubectl-azure/plugins"
)

type record struct {
	Source, ResourceType, APIVersion string
	PutBody, GetBody                 map[string]any
}

func main() {
	file, pathSub, max := os.Args[1], os.Args[2], 40
	withPlugins := os.Getenv("PLUGINS") != ""
	f, _ := os.Open(file)
	zr, _ := gzip.NewReader(f)
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		var r record
		json.Unmarshal(sc.Bytes(), &r)
		s, _ := schema.Default().Lookup(r.ResourceType, r.APIVersion)
		in := diff.Input{Desired: r.PutBody, Live: r.GetBody, Schema: s}
		if withPlugins {
			in.Plugin = plugins.For(r.ResourceType)
		}
		res := diff.Compute(in)
		for _, c := range res.Changes {
			if strings.Contains(r.ResourceType+" "+c.Path, pathSub) {
				b, _ := json.Marshal(c.Before)
				a, _ := json.Marshal(c.After)
				if len(b) > 300 { b = b[:300] }
				if len(a) > 300 { a = a[:300] }
				fmt.Printf("%s %s\n  %s (%s) schema=%v\n  before(live)=%s\n  after(desired)=%s\n", r.Source, r.ResourceType+"@"+r.APIVersion, c.Path, c.Kind, s != nil, b, a)
				n++
				break
			}
		}
		if n >= max {
			return
		}
	}
}
