package dbg
import ("testing";"fmt";"sort";"github.com/kubectl-azure/kubectl-azure/pkg/schema")
func TestStats(t *testing.T){
  r := schema.Default()
  type kv struct{n string; c int}
  var all []kv
  for _, ty := range r.Types() {
    x, _ := r.Lookup(ty, "")
    all = append(all, kv{ty, len(x.Properties)})
  }
  sort.Slice(all, func(i,j int)bool{return all[i].c>all[j].c})
  for _, k := range all[:25] { fmt.Println(k.n, k.c) }
  z:=0; for _,k:=range all { if k.c==0 {z++; if z<15 {fmt.Println("EMPTY", k.n)}}}; fmt.Println("empty", z)
}
