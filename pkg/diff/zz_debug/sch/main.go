package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

func main() {
	s, res := schema.Default().Lookup(os.Args[1], os.Args[2])
	fmt.Println(res)
	if s == nil {
		return
	}
	fmt.Println("patch", s.PatchSupported, s.PatchPaths, "etag", s.HasEtag)
	for p, v := range s.Properties {
		if len(os.Args) > 3 && !strings.Contains(p, os.Args[3]) {
			continue
		}
		b, _ := json.Marshal(v)
		fmt.Println(p, string(b))
	}
}
