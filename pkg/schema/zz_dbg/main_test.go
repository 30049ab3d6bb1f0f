package dbg

import (
	"fmt"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"os"
	"sort"
	"testing"
)

func TestDump(t *testing.T) {
	ty, res := schema.Default().Lookup(os.Getenv("T"), os.Getenv("V"))
	fmt.Printf("%+v\n", res)
	if ty == nil {
		return
	}
	fmt.Printf("patch=%v etag=%v putlro=%v dellro=%v pp=%v\n", ty.PatchSupported, ty.HasEtag, ty.PutLRO, ty.DeleteLRO, ty.PatchPaths)
	var ks []string
	for k := range ty.Properties {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		p := ty.Properties[k]
		fmt.Printf("%-60s %s ro=%v co=%v s=%v wo=%v d=%v e=%v ec=%v id=%v k=%v pos=%v\n", k, p.Type, p.ReadOnly, p.CreateOnly, p.Secret, p.WriteOnly, p.Default, p.Enum, p.EnumClosed, p.ARMID, p.Identifiers, p.Positional)
	}
}
