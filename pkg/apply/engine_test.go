package apply

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

var (
	rg1   = rgID("rg1")
	idA   = idOf("rg1", "Microsoft.ManagedIdentity/userAssignedIdentities", "a")
	idB   = idOf("rg1", "Microsoft.ManagedIdentity/userAssignedIdentities", "b")
	vnet  = idOf("rg1", "Microsoft.Network/virtualNetworks", "v")
	snet1 = vnet + "/subnets/s1"
	snet2 = vnet + "/subnets/s2"

	idInRG2 = idOf("rg2", "Microsoft.ManagedIdentity/userAssignedIdentities", "c")
)

func body(kv ...string) map[string]any {
	b := map[string]any{"location": "westeurope"}
	if len(kv) > 0 {
		tags := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			tags[kv[i]] = kv[i+1]
		}
		b["tags"] = tags
	}
	return b
}

// mustPlan plans the set of rs with e, failing t on an error.
func mustPlan(t *testing.T, e *Engine, rs ...*manifest.Resource) *Prepared {
	t.Helper()
	p, err := e.Plan(context.Background(), &manifest.Set{Resources: rs})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func newEngine(a ARM, st state.Store, o Options) *Engine {
	return &Engine{Client: FromARM(a), Store: st, Schemas: noChildTypes{}, Options: o}
}

// noChildTypes is the schema source of the fake tests: no facts and no
// child types (heuristics only), but able to say so, as delete requires.
type noChildTypes struct{ lookupOnly }

func (noChildTypes) Types() []string                { return nil }
func (noChildTypes) HasVersion(string, string) bool { return false }
func (noChildTypes) NewestVersion(string) string    { return "" }

func actions(p *plan.Plan) map[string]plan.Action {
	out := map[string]plan.Action{}
	for _, r := range p.Resources {
		out[armid.Key(r.ID)] = r.Action
	}
	return out
}

// TestPlanDecisions checks the action and method the engine chooses from
// live state and state records, without HTTP.
func TestPlanDecisions(t *testing.T) {
	for _, tc := range []struct {
		name       string
		live       map[string]any // nil: absent
		rec        map[string]any // nil: no record
		desired    map[string]any
		want       plan.Action
		wantMethod plan.Method
	}{
		{"absent is created", nil, nil, body(), plan.ActionCreate, "PUT"},
		{"recorded but deleted outside is created again", nil, body(), body(), plan.ActionCreate, "PUT"},
		{"unchanged is a no-op", body("a", "1"), body("a", "1"), body("a", "1"), plan.ActionNoOp, ""},
		// Without a schema saying PATCH takes the path, GET-modify-PUT.
		{"a tag change updates", body("a", "1"), body("a", "1"), body("a", "2"), plan.ActionUpdate, "PUT"},
		{"exists but not in state is adopted", body("a", "0"), nil, body("a", "1"), plan.ActionAdopt, "PUT"},
		{"adopt with nothing to change writes nothing", body(), nil, body(), plan.ActionAdopt, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newFakeARM()
			a.seed(rg1, body())
			if tc.live != nil {
				a.seed(idA, tc.live)
			}
			st := newMemStore(recordOf(rg1, body(), DefaultSet))
			if tc.rec != nil {
				st = newMemStore(recordOf(rg1, body(), DefaultSet), recordOf(idA, tc.rec, DefaultSet))
			}
			e := newEngine(a, st, DefaultOptions())
			p := mustPlan(t, e, res(rg1, body()), res(idA, tc.desired, rg1))
			var got plan.Resource
			for _, r := range p.Plan.Resources {
				if armid.Equal(r.ID, idA) {
					got = r
				}
			}
			if got.Action != tc.want || got.Method != tc.wantMethod {
				t.Fatalf("action %s method %q, want %s %q (changes %+v)", got.Action, got.Method, tc.want, tc.wantMethod, got.Changes)
			}
			if got.Subscription != sub || got.Name != "a" {
				t.Errorf("subscription %q name %q: every entry names its subscription and manifest name", got.Subscription, got.Name)
			}
			if !reflect.DeepEqual(p.Plan.Subscriptions, []string{sub}) {
				t.Errorf("plan subscriptions = %v", p.Plan.Subscriptions)
			}
			if len(a.Calls("PUT"))+len(a.Calls("PATCH"))+len(a.Calls("DELETE")) != 0 {
				t.Errorf("planning wrote: %v", a.calls)
			}
		})
	}
}

// TestCheckRefusals covers each consent the plan may need: every refusal
// happens before any write, and the matching option lifts it.
func TestCheckRefusals(t *testing.T) {
	type setup struct {
		live    []string
		records []*state.Record
		set     []*manifest.Resource
	}
	for _, tc := range []struct {
		name     string
		s        setup
		opts     func(*Options)
		wantErr  string // "" = allowed
		allow    func(*Options)
		protect  string
		wantLeft []string // IDs live after executing with allow
	}{
		{
			name:    "adopt needs --adopt",
			s:       setup{live: []string{rg1, idA}, records: []*state.Record{recordOf(rg1, body(), DefaultSet)}, set: []*manifest.Resource{res(rg1, body()), res(idA, body("x", "y"), rg1)}},
			wantErr: "--adopt", allow: func(o *Options) { o.Adopt = true }, wantLeft: []string{rg1, idA},
		},
		{
			name:    "deleting what the tool never applied needs --allow-delete-unmanaged",
			s:       setup{live: []string{rg1, idA}, records: []*state.Record{recordOf(rg1, body(), DefaultSet)}, set: []*manifest.Resource{res(idA, body())}},
			opts:    func(o *Options) { o.Mode = plan.ModeDelete },
			wantErr: "--allow-delete-unmanaged", allow: func(o *Options) { o.AllowDeleteUnmanaged = true }, wantLeft: []string{rg1},
		},
		{
			name: "deleting a group with unmanaged contents needs --allow-cascade",
			s: setup{live: []string{rg1, idA, idB}, records: []*state.Record{recordOf(rg1, body(), DefaultSet), recordOf(idA, body(), DefaultSet)},
				set: []*manifest.Resource{res(rg1, body())}},
			opts:    func(o *Options) { o.Mode = plan.ModeDelete },
			wantErr: "would also delete " + idB, allow: func(o *Options) { o.AllowCascade = true }, wantLeft: nil,
		},
		{
			name: "a prune of the whole set needs --allow-prune-all when nobody confirms",
			s: setup{live: []string{rg1, idA, rgID("rg2")}, records: []*state.Record{recordOf(rg1, body(), "s"), recordOf(idA, body(), "s")},
				set: []*manifest.Resource{res(idInRG2, body())}},
			opts:    func(o *Options) { o.Prune, o.Set = true, "s" },
			wantErr: "--allow-prune-all", allow: func(o *Options) { o.AllowPruneAll = true }, wantLeft: []string{rgID("rg2"), idInRG2},
		},
		{
			name: "an interactive prune of the whole set is confirmed by the person",
			s: setup{live: []string{rg1, idA, rgID("rg2")}, records: []*state.Record{recordOf(rg1, body(), "s"), recordOf(idA, body(), "s")},
				set: []*manifest.Resource{res(idInRG2, body())}},
			opts:     func(o *Options) { o.Prune, o.Set, o.Interactive = true, "s", true },
			wantLeft: []string{rgID("rg2"), idInRG2},
		},
		{
			name: "a prune of part of the set needs no extra flag",
			s: setup{live: []string{rg1, idA}, records: []*state.Record{recordOf(rg1, body(), "s"), recordOf(idA, body(), "s")},
				set: []*manifest.Resource{res(rg1, body())}},
			opts:     func(o *Options) { o.Prune, o.Set = true, "s" },
			wantLeft: []string{rg1},
		},
		{
			name: "prevent-destroy refuses a delete whatever the flags",
			s: setup{live: []string{rg1, idA}, records: []*state.Record{recordOf(rg1, body(), DefaultSet), recordOf(idA, body(), DefaultSet)},
				set: []*manifest.Resource{res(idA, body())}},
			opts:    func(o *Options) { o.Mode, o.AllowCascade, o.AllowDeleteUnmanaged = plan.ModeDelete, true, true },
			protect: idA, wantErr: "prevent-destroy",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newFakeARM()
			for _, id := range tc.s.live {
				a.seed(id, body())
			}
			o := DefaultOptions()
			o.Subscription = sub
			if tc.opts != nil {
				tc.opts(&o)
			}
			st := newMemStore(tc.s.records...)
			e := newEngine(a, st, o)
			set := &manifest.Set{Resources: tc.s.set}
			p, err := e.Plan(context.Background(), set)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range p.items {
				if tc.protect != "" && armid.Equal(it.id, tc.protect) {
					it.protected = true
				}
			}
			err = e.Check(p)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
			} else {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Check error = %v, want one mentioning %q", err, tc.wantErr)
				}
				if _, xerr := e.Execute(context.Background(), p); xerr == nil {
					t.Fatal("Execute ran a refused plan")
				}
				if w := a.Calls("PUT"); len(w)+len(a.Calls("DELETE"))+len(a.Calls("PATCH")) > 0 {
					t.Fatalf("a refused plan wrote: %v", a.calls)
				}
				if tc.allow == nil {
					return
				}
				tc.allow(&e.Options)
			}
			if _, err := e.Execute(context.Background(), p); err != nil {
				t.Fatalf("Execute: %v", err)
			}
			var left []string
			for _, b := range a.res {
				left = append(left, b["id"].(string))
			}
			if !sameIDs(left, tc.wantLeft) {
				t.Errorf("live after apply = %v, want %v", left, tc.wantLeft)
			}
		})
	}
}

func sameIDs(a, b []string) bool {
	m := map[string]int{}
	for _, x := range a {
		m[armid.Key(x)]++
	}
	for _, x := range b {
		m[armid.Key(x)]--
	}
	for _, v := range m {
		if v != 0 {
			return false
		}
	}
	return true
}

// TestPruneScope: prune considers only records of the target subscription
// and set, and never runs on an empty manifest set.
func TestPruneScope(t *testing.T) {
	other := "/subscriptions/00000000-0000-0000-0000-000000000002/resourceGroups/rg1/providers/Microsoft.ManagedIdentity/userAssignedIdentities/a"
	a := newFakeARM()
	for _, id := range []string{rg1, idA, idB, other} {
		a.seed(id, body())
	}
	st := newMemStore(recordOf(rg1, body(), "s"), recordOf(idA, body(), "s"), recordOf(idB, body(), "t"), recordOf(other, body(), "s"))
	o := DefaultOptions()
	o.Prune, o.Set, o.Subscription = true, "s", sub
	e := newEngine(a, st, o)

	if _, err := e.Plan(context.Background(), &manifest.Set{}); !errors.Is(err, ErrPruneEmpty) {
		t.Fatalf("prune of an empty set: err = %v, want ErrPruneEmpty", err)
	}
	p := mustPlan(t, e, res(rg1, body()))
	got := actions(p.Plan)
	want := map[string]plan.Action{armid.Key(rg1): plan.ActionNoOp, armid.Key(idA): plan.ActionDelete}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("plan = %v, want %v (other set and other subscription untouched)", got, want)
	}
	if p.Plan.Summary.Delete != 1 {
		t.Errorf("summary delete = %d", p.Plan.Summary.Delete)
	}
}

// TestCascadeListsContentsAndDropsRecords: deleting a group lists what ARM
// deletes with it, marks what is managed, and forgets the records of
// children deleted with it once the delete succeeded.
func TestCascadeListsContentsAndDropsRecords(t *testing.T) {
	a := newFakeARM()
	for _, id := range []string{rg1, idA, idB} {
		a.seed(id, body())
	}
	st := newMemStore(recordOf(rg1, body(), DefaultSet), recordOf(idA, body(), DefaultSet))
	o := DefaultOptions()
	o.Mode, o.AllowCascade = plan.ModeDelete, true
	e := newEngine(a, st, o)
	p := mustPlan(t, e, res(rg1, body()))
	want := []plan.CascadeItem{
		{ID: idA, Type: "Microsoft.ManagedIdentity/userAssignedIdentities", Managed: true},
		{ID: idB, Type: "Microsoft.ManagedIdentity/userAssignedIdentities", Managed: false},
	}
	if got := p.Plan.Resources[0].Cascade; !reflect.DeepEqual(got, want) {
		t.Fatalf("cascade = %+v\nwant %+v", got, want)
	}
	if p.Plan.Summary.Cascade != 2 {
		t.Errorf("summary cascade = %d", p.Plan.Summary.Cascade)
	}
	r, err := e.Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if st.has(idA) || st.has(rg1) {
		t.Errorf("records of the group and its cascaded child remain")
	}
	if r.Summary != (plan.ResultSummary{Done: 1}) || r.Results[0].Status != plan.StatusDone {
		t.Errorf("result = %+v", r)
	}
}

// TestExecuteOrderAndFailures: parents are written before children,
// children deleted before parents, a failure skips only its dependants, and
// the result's counts are the error's counts.
func TestExecuteOrderAndFailures(t *testing.T) {
	a := newFakeARM()
	a.fail["PUT "+armid.Key(idA)] = errors.New("boom: secret-value-123")
	st := newMemStore()
	e := newEngine(a, st, DefaultOptions())
	rec := &recorder{}
	e.Progress = rec
	child := idA + "/federatedIdentityCredentials/f"
	set := &manifest.Set{Resources: []*manifest.Resource{
		res(child, map[string]any{"properties": map[string]any{"issuer": "x"}}, idA),
		res(idA, body(), rg1), res(idB, body(), rg1), res(rg1, body())}}
	p, err := e.Plan(context.Background(), set)
	if err != nil {
		t.Fatal(err)
	}
	gotOrder := []string{}
	for _, r := range p.Plan.Resources {
		gotOrder = append(gotOrder, r.ID)
	}
	if wantOrder := []string{rg1, idA, idB, child}; !reflect.DeepEqual(gotOrder, wantOrder) {
		t.Errorf("plan order = %v, want parents first %v", gotOrder, wantOrder)
	}
	e.Secrets.Register("secret-value-123")
	r, err := e.Execute(context.Background(), p)
	var ee *ExecuteError
	if !errors.As(err, &ee) || len(ee.Failed) != 1 || len(ee.Skipped) != 1 {
		t.Fatalf("err = %v, want 1 failed 1 skipped", err)
	}
	if r.Summary != (plan.ResultSummary{Done: 2, Failed: 1, Skipped: 1}) {
		t.Errorf("result summary = %+v", r.Summary)
	}
	status := map[string]plan.Status{}
	for _, x := range r.Results {
		status[armid.Key(x.ID)] = x.Status
		if strings.Contains(x.Error, "secret-value-123") {
			t.Errorf("result error not scrubbed: %s", x.Error)
		}
	}
	want := map[string]plan.Status{armid.Key(rg1): "done", armid.Key(idA): "failed", armid.Key(idB): "done", armid.Key(child): "skipped"}
	if !reflect.DeepEqual(status, want) {
		t.Errorf("statuses = %v, want %v", status, want)
	}
	puts := a.Calls("PUT")
	if len(puts) != 3 || puts[0] != "PUT "+rg1 {
		t.Errorf("PUTs = %v: the group goes first, the child never", puts)
	}
}

// TestDeletesChildrenFirst: deletes run children before parents.
func TestDeletesChildrenFirst(t *testing.T) {
	a := newFakeARM()
	for _, id := range []string{rg1, vnet, snet1} {
		a.seed(id, body())
	}
	st := newMemStore(recordOf(rg1, body(), DefaultSet), recordOf(vnet, body(), DefaultSet), recordOf(snet1, body(), DefaultSet))
	o := DefaultOptions()
	o.Mode = plan.ModeDelete
	e := newEngine(a, st, o)
	p := mustPlan(t, e, res(vnet, body(), rg1), res(snet1, body(), vnet))
	if _, err := e.Execute(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if got, want := a.Calls("DELETE"), []string{"DELETE " + snet1, "DELETE " + vnet}; !reflect.DeepEqual(got, want) {
		t.Errorf("deletes = %v, want %v", got, want)
	}
}

// TestWholeGroupGoesInOneDelete: when the resource group goes with
// everything in it managed and consented, one DELETE of the group is sent
// instead of one per resource, and every record is forgotten (issue 34).
func TestWholeGroupGoesInOneDelete(t *testing.T) {
	a := newFakeARM()
	ids := []string{rg1, vnet, snet1, idA, idB}
	var recs []*state.Record
	var set []*manifest.Resource
	for _, id := range ids {
		a.seed(id, body())
		recs = append(recs, recordOf(id, body(), DefaultSet))
		set = append(set, res(id, body()))
	}
	st := newMemStore(recs...)
	o := DefaultOptions()
	o.Mode = plan.ModeDelete
	e := newEngine(a, st, o)
	p := mustPlan(t, e, set...)
	r, err := e.Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Calls("DELETE"); !reflect.DeepEqual(got, []string{"DELETE " + rg1}) {
		t.Errorf("deletes = %v, want one of the group", got)
	}
	for _, id := range ids {
		if st.has(id) {
			t.Errorf("%s is still recorded", id)
		}
	}
	if r.Summary.Done != len(ids) {
		t.Errorf("result %+v, want %d done", r.Summary, len(ids))
	}
}

// TestCancelledRunSkipsEverything: a run cancelled before it starts writes
// nothing, reports every resource skipped, and its error says so.
func TestCancelledRunSkipsEverything(t *testing.T) {
	a := newFakeARM()
	e := newEngine(a, newMemStore(), DefaultOptions())
	p := mustPlan(t, e, res(rg1, body()), res(idA, body(), rg1))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := e.Execute(ctx, p)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want one wrapping context.Canceled", err)
	}
	if r.Summary != (plan.ResultSummary{Skipped: 2}) {
		t.Errorf("summary = %+v", r.Summary)
	}
	if !strings.Contains(err.Error(), "0 resource(s) failed, 2 skipped") {
		t.Errorf("error %q disagrees with the result", err)
	}
	if len(a.Calls("PUT")) > 0 {
		t.Errorf("cancelled run wrote: %v", a.calls)
	}
}

// TestWritesUnderNetworkParentAreSerialised: subnets of one vnet are never
// written at the same time; identities are.
func TestWritesUnderNetworkParentAreSerialised(t *testing.T) {
	a := newFakeARM()
	a.hold = 5e6 // 5ms: long enough for overlapping writes to show
	a.seed(rg1, body())
	a.seed(vnet, body())
	st := newMemStore(recordOf(rg1, body(), DefaultSet), recordOf(vnet, body(), DefaultSet))
	e := newEngine(a, st, DefaultOptions())
	var rs []*manifest.Resource
	for _, id := range []string{snet1, snet2, vnet + "/subnets/s3", vnet + "/subnets/s4"} {
		rs = append(rs, res(id, map[string]any{"properties": map[string]any{"addressPrefix": "10.0.0.0/24"}}, vnet))
	}
	p := mustPlan(t, e, append(rs, res(rg1, body()), res(vnet, body(), rg1))...)
	if _, err := e.Execute(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if got := a.maxFlight[armid.Key(vnet)]; got != 1 {
		t.Errorf("max concurrent writes under the vnet = %d, want 1", got)
	}
	if n := len(a.Calls("PUT")); n != 4 {
		t.Errorf("PUTs = %d, want 4", n)
	}
}

// TestUnselectedMissingWarns: a dependency -l left out that is missing in
// Azure is named in the plan's warnings; one that exists is not.
func TestUnselectedMissingWarns(t *testing.T) {
	a := newFakeARM()
	a.seed(rg1, body())
	a.seed(idA, body())
	e := newEngine(a, newMemStore(), DefaultOptions())
	set := &manifest.Set{Resources: []*manifest.Resource{res(idA+"/federatedIdentityCredentials/f", body(), idA)},
		Unselected: []string{idA, idB, rgID("gone")}}
	p, err := e.Plan(context.Background(), set)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(p.Plan.Warnings, "\n")
	for _, want := range []string{idB, rgID("gone")} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings %q do not name missing %s", got, want)
		}
	}
	if strings.Contains(got, idA+" ") {
		t.Errorf("warnings name %s, which exists", idA)
	}
}

// TestKeptPropertyIsNoted: a property removed from the manifest that Azure
// keeps after the write is reported in the result, never silently.
func TestKeptPropertyIsNoted(t *testing.T) {
	a := newFakeARM()
	a.generate = func(id string, b map[string]any) {
		props, _ := b["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
			b["properties"] = props
		}
		props["flag"] = true // the service keeps its value when omitted
	}
	withFlag := map[string]any{"location": "westeurope", "tags": map[string]any{"a": "1"}, "properties": map[string]any{"flag": true, "other": "x"}}
	a.seed(rg1, body())
	a.seed(idA, withFlag)
	st := newMemStore(recordOf(rg1, body(), DefaultSet), recordOf(idA, withFlag, DefaultSet))
	e := newEngine(a, st, DefaultOptions())
	p, err := e.Plan(context.Background(), &manifest.Set{Resources: []*manifest.Resource{
		res(idA, map[string]any{"location": "westeurope", "tags": map[string]any{"a": "2"}, "properties": map[string]any{"other": "x"}})}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, x := range r.Results {
		notes = append(notes, x.Notes...)
	}
	if want := "Azure kept properties.flag = true; it is no longer managed"; !reflect.DeepEqual(notes, []string{want}) {
		t.Errorf("notes = %q, want [%q]", notes, want)
	}
}

// cancellingARM cancels the run when the first PUT of a given resource
// arrives and then fails that PUT as an interrupted request would.
type cancellingARM struct {
	*fakeARM
	at     string
	cancel context.CancelFunc
}

func (c *cancellingARM) Put(ctx context.Context, id, v string, b map[string]any, o *arm.RequestOptions) (*arm.Response, error) {
	if armid.Equal(id, c.at) {
		c.cancel()
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return c.fakeARM.Put(ctx, id, v, b, o)
}

// TestInterruptKeepsInFlightIntent: a write in flight when the run is
// interrupted stays journaled (the next run settles it), nothing starts
// after the interrupt, and the counts agree.
func TestInterruptKeepsInFlightIntent(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := &cancellingARM{fakeARM: newFakeARM(), at: idA, cancel: cancel}
	a.seed(rg1, body())
	st := newMemStore(recordOf(rg1, body(), DefaultSet))
	e := newEngine(a, st, DefaultOptions())
	child := idA + "/federatedIdentityCredentials/f"
	p, err := e.Plan(context.Background(), &manifest.Set{Resources: []*manifest.Resource{
		res(rg1, body()), res(idA, body(), rg1), res(child, body(), idA)}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.Execute(ctx, p)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if r.Summary != (plan.ResultSummary{Failed: 1, Skipped: 1}) {
		t.Errorf("summary = %+v, want the in-flight write failed and its child skipped", r.Summary)
	}
	if !strings.Contains(err.Error(), "1 resource(s) failed, 1 skipped") {
		t.Errorf("error %q disagrees with the result %+v", err, r.Summary)
	}
	if _, ok := st.intents[armid.Key(idA)]; !ok {
		t.Error("the interrupted write's intent was dropped; the next run could not settle it")
	}
	if n := len(a.Calls("PUT " + child)); n != 0 {
		t.Errorf("a write started after the interrupt")
	}
}

// TestPlanReleasesUnwrittenBodies: once decided, a resource the plan will
// not write and nothing else reads gives up its bodies, so a large plan
// does not hold every resource it read; one that is read by another
// (a dependency) or will be written keeps them, and executing the plan
// still writes exactly what it planned.
func TestPlanReleasesUnwrittenBodies(t *testing.T) {
	a := newFakeARM()
	a.seed(rg1, body())
	a.seed(idA, body("a", "1"))
	a.seed(idB, body("b", "1"))
	a.seed(vnet, body())
	st := newMemStore(recordOf(rg1, body(), DefaultSet), recordOf(idA, body("a", "1"), DefaultSet),
		recordOf(idB, body("b", "1"), DefaultSet), recordOf(vnet, body(), DefaultSet))
	e := newEngine(a, st, DefaultOptions())
	set := &manifest.Set{Resources: []*manifest.Resource{
		res(rg1, body()),
		res(idA, body("a", "1"), rg1), // unchanged, nothing reads it
		res(idB, body("b", "2"), rg1), // changed: written
		res(vnet, body(), rg1),        // unchanged but a dependency
		res(snet1, map[string]any{"properties": map[string]any{}}, vnet), // new
	}}
	p, err := e.Plan(context.Background(), set)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*item{}
	for _, it := range p.items {
		byID[it.key] = it
	}
	for _, tc := range []struct {
		id       string
		released bool
	}{{idA, true}, {idB, false}, {vnet, false}, {rg1, false}} {
		it := byID[armid.Key(tc.id)]
		gone := it.record.LastApplied == nil && it.record.Baseline == nil && len(it.live) == 0 && it.input == nil && it.result == nil
		if gone != tc.released {
			t.Errorf("%s: released = %v, want %v (action %s)", tc.id, gone, tc.released, it.planned.Action)
		}
	}
	if got := actions(p.Plan); got[armid.Key(idA)] != plan.ActionNoOp || got[armid.Key(idB)] != plan.ActionUpdate || got[armid.Key(snet1)] != plan.ActionCreate {
		t.Fatalf("actions = %v", got)
	}
	if _, err := e.Execute(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if n := len(a.Calls("PUT")) + len(a.Calls("PATCH")); n != 2 {
		t.Errorf("writes = %d (%v), want 2: the update of b and the create of the subnet", n, a.calls)
	}
	if r, err := st.Get(context.Background(), idA); err != nil || r.LastApplied == nil {
		t.Errorf("the store's record of an unchanged resource must keep its bodies: %+v, %v", r, err)
	}
}

// TestPlanWithRecordHeads plans against the local file store, which lists
// records without their bodies and loads them a chunk at a time: every
// chunk's decisions must see L and B. A tag removed from the manifest is
// only noticed through L (it stays in live), so each chunk's removal
// proves its bodies were loaded; the unchanged resources stay no-ops.
func TestPlanWithRecordHeads(t *testing.T) {
	ctx := context.Background()
	st, err := state.Open(ctx, filepath.Join(t.TempDir(), "state.json"), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, ok := st.(state.BodyLoader); !ok {
		t.Fatal("the local store should list heads")
	}
	unlock, err := st.Lock(ctx, "", 0) // one file write for all the Puts
	if err != nil {
		t.Fatal(err)
	}
	a := newFakeARM()
	set := &manifest.Set{}
	const n = 2*planChunkSize + 10
	removed := map[string]bool{}
	for i := range n {
		g := fmt.Sprintf("rg%d", i%3)
		id := idOf(g, "Microsoft.ManagedIdentity/userAssignedIdentities", fmt.Sprintf("id%04d", i))
		was := body("keep", "1", "drop", "x")
		a.seed(id, was)
		if err := st.Put(ctx, recordOf(id, was, DefaultSet)); err != nil {
			t.Fatal(err)
		}
		want := was
		if i%500 == 7 { // a few in every chunk
			want = body("keep", "1")
			removed[armid.Key(id)] = true
		}
		set.Resources = append(set.Resources, res(id, want))
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	p, err := newEngine(a, st, DefaultOptions()).Plan(ctx, set)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(planChunks(p.items)); got < 2 {
		t.Fatalf("%d chunks: the test needs several", got)
	}
	for k, act := range actions(p.Plan) {
		if want := map[bool]plan.Action{true: plan.ActionUpdate, false: plan.ActionNoOp}[removed[k]]; act != want {
			t.Errorf("%s: %s, want %s", k, act, want)
		}
	}
}
