package dbg
import ("testing";"fmt";"github.com/kubectl-azure/kubectl-azure/pkg/schema")
func TestLen(t *testing.T){
  x, _ := schema.Default().Lookup("Microsoft.Network/loadBalancers", "")
  n:=0; mx:=""; for k:=range x.Properties{n+=len(k); if len(k)>len(mx){mx=k}}
  fmt.Println(len(x.Properties), n, len(mx), mx)
}
