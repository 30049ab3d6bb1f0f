package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/plugins"
)

type record struct {
	Source, ResourceType, APIVersion string
	PutBody, GetBody                 map[string]any
}

func main() {
	f, _ := os.Open(os.Args[1])
	zr, _ := gzip.NewReader(f)
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	cnt := map[string]int{}
	types := map[string]int{}
	for sc.Scan() {
		var r record
		json.Unmarshal(sc.Bytes(), &r)
		s, _ := schema.Default().Lookup(r.ResourceType, r.APIVersion)
		in := diff.Input{Desired: r.PutBody, Live: r.GetBody, Schema: s}
		if os.Getenv("PLUGINS") != "" {
			in.Plugin = plugins.For(r.ResourceType)
		}
		res := diff.Compute(in)
		if len(res.Changes) == 0 {
			continue
		}
		onlyAdd := true
		for _, c := range res.Changes {
			if c.Kind != "add" {
				onlyAdd = false
			}
		}
		cnt[fmt.Sprint("onlyAdd=", onlyAdd)]++
		types[fmt.Sprint(r.ResourceType, " onlyAdd=", onlyAdd)]++
	}
	fmt.Println(cnt)
	var ks []string
	for k := range types {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return types[ks[i]] > types[ks[j]] })
	for _, k := range ks {
		fmt.Println(types[k], k)
	}
}
