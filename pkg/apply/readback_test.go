package apply

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// TestWriteAnswerAsBaseline (issue 34): a synchronous write whose answer
// is the resource itself is recorded from that answer; any answer that is
// less is read back with a GET, so state always holds what Azure
// returned, never what was sent.
func TestWriteAnswerAsBaseline(t *testing.T) {
	id := idOf("rg1", "Microsoft.ManagedIdentity/userAssignedIdentities", "id1")
	desired := map[string]any{"location": "westeurope", "tags": map[string]any{"env": "prod"}}
	for _, tc := range []struct {
		name     string
		answer   func(stored map[string]any) map[string]any
		readBack bool
	}{
		{"the resource itself", func(s map[string]any) map[string]any { return s }, false},
		{"no body", nil, true},
		{"a reduced body", func(s map[string]any) map[string]any { delete(s, "tags"); return s }, true},
		{"another resource", func(s map[string]any) map[string]any { s["id"] = id + "x"; return s }, true},
		{"a failed resource", func(s map[string]any) map[string]any {
			s["properties"] = map[string]any{"provisioningState": "Failed"}
			return s
		}, true},
		{"values not as written", func(s map[string]any) map[string]any {
			s["tags"] = map[string]any{"env": "dev"}
			return s
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newFakeARM()
			a.seed(rgID("rg1"), map[string]any{"location": "westeurope"})
			a.answer = tc.answer
			st := newMemStore()
			e := newEngine(a, st, DefaultOptions())
			p := mustPlan(t, e, res(id, desired))
			before := len(a.Calls("GET"))
			if _, err := e.Execute(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			gets := len(a.Calls("GET")) - before
			if want := map[bool]int{true: 1, false: 0}[tc.readBack]; gets != want {
				t.Errorf("%d GETs after the write, want %d", gets, want)
			}
			rec, err := st.Get(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			tags, _ := rec.Baseline["tags"].(map[string]any)
			if tags["env"] != "prod" {
				t.Errorf("baseline tags %v, want what Azure holds (env=prod)", rec.Baseline["tags"])
			}
		})
	}
}

// TestWriteAnswerKeepsSecretsHashed: a write answer that echoes a secret
// (some services return what was sent) is recorded like a read: the
// secret is hashed in state, never stored in clear.
func TestWriteAnswerKeepsSecretsHashed(t *testing.T) {
	const clear = "s3cret-Value-never-stored"
	id := idOf("rg1", "Microsoft.Sql/servers", "sql1")
	a := newFakeARM()
	a.seed(rgID("rg1"), map[string]any{"location": "westeurope"})
	a.answer = func(s map[string]any) map[string]any { return s }
	st := newMemStore()
	e := newEngine(a, st, DefaultOptions())
	r := res(id, map[string]any{"location": "westeurope", "properties": map[string]any{"administratorLoginPassword": clear}})
	r.SecretPaths = []string{"properties.administratorLoginPassword"}
	p := mustPlan(t, e, r)
	before := len(a.Calls("GET"))
	if _, err := e.Execute(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if n := len(a.Calls("GET")) - before; n != 0 {
		t.Errorf("%d GETs after the write: the answer was not the baseline, so this test checks nothing", n)
	}
	rec, err := st.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), clear) {
		t.Fatalf("the secret is in state in clear: %s", data)
	}
}

// TestNothingReadInsideAbsent (issue 34): a plan reads nothing inside a
// resource group or parent it has just read as absent (a first apply),
// and reads as before what lies inside one that exists.
func TestNothingReadInsideAbsent(t *testing.T) {
	vnet := idOf("rg1", "Microsoft.Network/virtualNetworks", "vnet1")
	subnet := vnet + "/subnets/app"
	id := idOf("rg1", "Microsoft.ManagedIdentity/userAssignedIdentities", "id1")
	set := &manifest.Set{Resources: []*manifest.Resource{
		res(rgID("rg1"), map[string]any{"location": "westeurope"}),
		res(vnet, map[string]any{"location": "westeurope"}),
		res(subnet, map[string]any{"properties": map[string]any{"addressPrefix": "10.0.0.0/24"}}),
		res(id, map[string]any{"location": "westeurope"}),
	}}
	for _, tc := range []struct {
		name  string
		seed  []string
		reads []string
	}{
		{"nothing exists", nil, []string{rgID("rg1")}},
		{"the group exists", []string{rgID("rg1")}, []string{rgID("rg1"), id, vnet}},
		{"the vnet exists", []string{rgID("rg1"), vnet}, []string{rgID("rg1"), id, vnet, subnet}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newFakeARM()
			for _, s := range tc.seed {
				a.seed(s, map[string]any{"location": "westeurope"})
			}
			e := newEngine(a, newMemStore(), DefaultOptions())
			p, err := e.Plan(context.Background(), set)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, c := range a.Calls("GET") {
				got[strings.TrimPrefix(c, "GET ")] = true
			}
			if len(got) != len(tc.reads) {
				t.Errorf("read %v, want %v", a.Calls("GET"), tc.reads)
			}
			for _, r := range tc.reads {
				if !got[r] {
					t.Errorf("%s was not read; read %v", r, a.Calls("GET"))
				}
			}
			for _, r := range p.Plan.Resources {
				if exists := slices.Contains(tc.seed, r.ID); exists == (r.Action == plan.ActionCreate) {
					t.Errorf("%s planned %s although it exists=%v", r.ID, r.Action, exists)
				}
			}
		})
	}
}
