package diff

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func change(t *testing.T, r Result, path string) plan.Change {
	t.Helper()
	for _, c := range r.Changes {
		if c.Path == path {
			return c
		}
	}
	t.Fatalf("no change at %s; changes: %v", path, paths(r.Changes))
	return plan.Change{}
}

func TestCreateWhenLiveAbsent(t *testing.T) {
	d := obj(t, `{"location":"westus","properties":{"a":1,"password":"p"}}`)
	r := Compute(Input{Desired: d})
	if r.Action != ActionCreate {
		t.Fatalf("action = %s", r.Action)
	}
	if got := paths(r.Changes); !reflect.DeepEqual(got, []string{"location", "properties.a", "properties.password"}) {
		t.Fatalf("changes = %v", got)
	}
	if c := change(t, r, "properties.password"); !c.Sensitive || c.After != (plan.Sensitive{}) {
		t.Errorf("secret not withheld: %+v", c)
	}
}

func TestNoDesiredIsNoOp(t *testing.T) {
	r := Compute(Input{Live: obj(t, `{"a":1}`)})
	if r.Action != ActionNoOp || len(r.Changes) != 0 {
		t.Fatalf("got %s %v", r.Action, paths(r.Changes))
	}
}

func TestEnvelopeAndReadonlyNeverOwned(t *testing.T) {
	d := obj(t, `{"id":"/x","name":"n","type":"t","etag":"e","systemData":{},"properties":{"state":"Succeeded","level":"a","provisioningState":"Succeeded"}}`)
	s := obj(t, `{"id":"/y","name":"m","type":"u","etag":"f","properties":{"state":"Failed","level":"a"}}`)
	sch := &schema.Type{Properties: map[string]*schema.Property{
		"properties.state":             {Type: schema.TypeString, ReadOnly: true},
		"properties.level":             {Type: schema.TypeString},
		"properties.provisioningState": {Type: schema.TypeString, ReadOnly: true},
	}}
	r := Compute(Input{Desired: d, Live: s, Schema: sch})
	if r.Action != ActionNoOp {
		t.Fatalf("action = %s %v", r.Action, paths(r.Changes))
	}
	if !reflect.DeepEqual(r.Owned, []string{"properties.level"}) {
		t.Errorf("owned = %v", r.Owned)
	}
	if len(r.Warnings) != 2 || !strings.Contains(strings.Join(r.Warnings, "\n"), "properties.state is readonly") {
		t.Errorf("warnings = %v", r.Warnings)
	}
}

func TestUserChangeAgainstLastApplied(t *testing.T) {
	l := obj(t, `{"properties":{"a":"old","b":"same"}}`)
	d := obj(t, `{"properties":{"a":"new","b":"same"}}`)
	s := obj(t, `{"properties":{"a":"old","b":"same","server":"x"}}`)
	b := Project(s, Owned(l, nil))
	r := Compute(Input{Desired: d, LastApplied: l, Baseline: b, Live: s})
	if r.Action != ActionUpdate {
		t.Fatalf("action = %s", r.Action)
	}
	c := change(t, r, "properties.a")
	if c.Before != "old" || c.After != "new" || c.Kind != plan.KindChange || c.IsDrift() || c.Reason != reasonUserChange {
		t.Errorf("change = %+v", c)
	}
	if len(r.Changes) != 1 {
		t.Errorf("changes = %v", paths(r.Changes))
	}
}

func TestUserChangeAlreadyLiveIsQuiet(t *testing.T) {
	l := obj(t, `{"properties":{"a":"old"}}`)
	d := obj(t, `{"properties":{"a":"new"}}`)
	s := obj(t, `{"properties":{"a":"NEW"}}`)
	r := Compute(Input{Desired: d, LastApplied: l, Baseline: obj(t, `{"properties":{"a":"old"}}`), Live: s, Explain: true})
	if r.Action != ActionNoOp {
		t.Fatalf("got %v", paths(r.Changes))
	}
	if ruleFor(r, "properties.a") != RuleLiveMatches {
		t.Errorf("equal = %v", r.Equal)
	}
}

func TestZeroMeansUnsetOnlyWithoutState(t *testing.T) {
	// With state, the user explicitly moving 1 -> 0 is a change even though
	// a state-less comparison treats 0 as "server decides".
	l := obj(t, `{"properties":{"minReplicas":1}}`)
	d := obj(t, `{"properties":{"minReplicas":0}}`)
	s := obj(t, `{"properties":{"minReplicas":1}}`)
	r := Compute(Input{Desired: d, LastApplied: l, Baseline: s, Live: s})
	if got := paths(r.Changes); !reflect.DeepEqual(got, []string{"properties.minReplicas"}) {
		t.Fatalf("changes = %v", got)
	}
}

func TestDrift(t *testing.T) {
	d := obj(t, `{"location":"westus","properties":{"a":"v1","b":"keep"}}`)
	b := obj(t, `{"location":"westus","properties":{"a":"v1","b":"keep"}}`)
	s := obj(t, `{"location":"westus","properties":{"a":"v2","b":"keep"}}`)
	r := Compute(Input{Desired: d, LastApplied: d, Baseline: b, Live: s})
	c := change(t, r, "properties.a")
	if !c.IsDrift() || c.Before != "v2" || c.After != "v1" || c.Reason != reasonDrift {
		t.Errorf("drift change = %+v", c)
	}
	if len(r.Changes) != 1 || r.Action != ActionUpdate {
		t.Errorf("changes = %v action %s", paths(r.Changes), r.Action)
	}
	// Drift of a path removed from live entirely.
	s2 := obj(t, `{"location":"westus","properties":{"a":"v1"}}`)
	r = Compute(Input{Desired: d, LastApplied: d, Baseline: b, Live: s2})
	if c := change(t, r, "properties.b"); !c.IsDrift() || c.After != "keep" || c.Kind != plan.KindAdd {
		t.Errorf("drift (gone) = %+v", c)
	}
}

func TestRemovalNested(t *testing.T) {
	l := obj(t, `{"properties":{"net":{"acl":{"bypass":"AzureServices","mode":"Deny"}}}}`)
	d := obj(t, `{"properties":{"net":{"acl":{"mode":"Deny"}}}}`)
	s := obj(t, `{"properties":{"net":{"acl":{"bypass":"AzureServices","mode":"Deny"},"other":1}}}`)
	in := Input{Desired: d, LastApplied: l, Baseline: Project(s, Owned(d, l)), Live: s}
	r := Compute(in)
	// No default known: the property is no longer managed and the service
	// decides; the plan says so instead of promising a removal.
	c := change(t, r, "properties.net.acl.bypass")
	if c.Kind != plan.KindRemove || c.Before != "AzureServices" || c.After != nil || c.Reason != reasonStopManage || c.Cause != plan.CauseRemoval {
		t.Errorf("removal = %+v", c)
	}
	if len(r.Removed) != 1 || r.Removed[0].Path != "properties.net.acl.bypass" || r.Removed[0].Default {
		t.Errorf("removed = %+v", r.Removed)
	}
	// A PATCH does not name it; a PUT, which replaces the body, keeps
	// live's value (leaving it out would reset it: that is not "not
	// written").
	if got := mustJSON(t, Patch(in, r)); got != `{}` {
		t.Errorf("patch = %s", got)
	}
	body := PutBody(in, r)
	if got := mustJSON(t, body); got != `{"properties":{"net":{"acl":{"bypass":"AzureServices","mode":"Deny"},"other":1}}}` {
		t.Errorf("put body = %s", got)
	}
	// Read back: Azure kept the value, and the note names it.
	notes := KeptAfterWrite(r, s)
	if len(notes) != 1 || notes[0] != `Azure kept properties.net.acl.bypass = "AzureServices"; it is no longer managed` {
		t.Errorf("notes = %q", notes)
	}
	if notes := KeptAfterWrite(r, obj(t, `{"properties":{"net":{"acl":{"mode":"Deny"}}}}`)); len(notes) != 0 {
		t.Errorf("notes after a real removal = %q", notes)
	}
}

func TestRemovalInsideKeyedArray(t *testing.T) {
	l := obj(t, `{"properties":{"subnets":[{"name":"a","properties":{"prefix":"10.0.0.0/24","nsg":{"id":"/subscriptions/0/x"}}},{"name":"b","properties":{"prefix":"10.0.1.0/24"}}]}}`)
	d := obj(t, `{"properties":{"subnets":[{"name":"a","properties":{"prefix":"10.0.0.0/24"}}]}}`)
	s := obj(t, `{"properties":{"subnets":[
		{"name":"a","id":"/s/a","properties":{"prefix":"10.0.0.0/24","nsg":{"id":"/subscriptions/0/x"},"provisioningState":"Succeeded"}},
		{"name":"b","id":"/s/b","properties":{"prefix":"10.0.1.0/24"}},
		{"name":"c","id":"/s/c","properties":{"prefix":"10.0.2.0/24"}}]}}`)
	in := Input{Desired: d, LastApplied: l, Baseline: Project(s, Owned(d, l)), Live: s}
	r := Compute(in)
	if got := paths(r.Changes); !reflect.DeepEqual(got, []string{"properties.subnets[a].properties.nsg", "properties.subnets[b]"}) {
		t.Fatalf("changes = %v", got)
	}
	for _, c := range r.Changes {
		if c.Kind != plan.KindRemove {
			t.Errorf("%s: kind %s", c.Path, c.Kind)
		}
	}
	// A merge patch cannot address array items: the whole array is sent,
	// with the removed item gone, the unowned item c kept, and the member
	// no longer managed (nsg, no default) kept at live's value: the plan
	// says it is not written, so the write must not clear it.
	p := Patch(in, r)
	want := `{"properties":{"subnets":[{"id":"/s/a","name":"a","properties":{"nsg":{"id":"/subscriptions/0/x"},"prefix":"10.0.0.0/24"}},{"id":"/s/c","name":"c","properties":{"prefix":"10.0.2.0/24"}}]}}`
	if got := mustJSON(t, p); got != want {
		t.Errorf("patch =\n%s\nwant\n%s", got, want)
	}
	if got := mustJSON(t, PutBody(in, r)); got != want {
		t.Errorf("put body =\n%s\nwant\n%s", got, want)
	}
}

func TestMergeCollectionRemovalWarns(t *testing.T) {
	l := obj(t, `{"properties":{"rules":[{"name":"a","v":1},{"name":"b","v":2}]}}`)
	d := obj(t, `{"properties":{"rules":[{"name":"a","v":1}]}}`)
	p := &Funcs{R: Rules{MergeCollections: []schema.Path{"properties.rules"}}}
	r := Compute(Input{Desired: d, LastApplied: l, Baseline: l, Live: l, Plugin: p})
	if got := paths(r.Changes); !reflect.DeepEqual(got, []string{"properties.rules[b]"}) || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "DELETE") {
		t.Fatalf("changes %v warnings %v", got, r.Warnings)
	}
}

func TestRemovalAlreadyAbsent(t *testing.T) {
	l := obj(t, `{"properties":{"a":1,"b":2}}`)
	d := obj(t, `{"properties":{"a":1}}`)
	s := obj(t, `{"properties":{"a":1}}`)
	r := Compute(Input{Desired: d, LastApplied: l, Baseline: s, Live: s, Explain: true})
	if r.Action != ActionNoOp || ruleFor(r, "properties.b") != RuleAlreadyAbsent {
		t.Fatalf("got %s %v %v", r.Action, paths(r.Changes), r.Equal)
	}
}

func TestReplaceOnCreateOnlyChange(t *testing.T) {
	d := obj(t, `{"properties":{"zone":"2"}}`)
	s := obj(t, `{"properties":{"zone":"1"}}`)
	r := Compute(Input{Desired: d, Live: s, Schema: testSchema})
	if r.Action != ActionReplace || !change(t, r, "properties.zone").CreateOnly {
		t.Fatalf("got %s %+v", r.Action, r.Changes)
	}
	p := &Funcs{R: Rules{CreateOnly: []schema.Path{"properties.level"}}}
	r = Compute(Input{Desired: obj(t, `{"properties":{"level":"a"}}`), Live: obj(t, `{"properties":{"level":"b x"}}`), Plugin: p})
	if r.Action != ActionReplace {
		t.Fatalf("plugin create-only: %s", r.Action)
	}
}

func TestSecretsHashedAndCompared(t *testing.T) {
	key := []byte("salt-1")
	d := obj(t, `{"properties":{"password":"hunter2","level":"a","nested":{"adminPassword":"x"}}}`)
	l := HashSecrets(d, testSchema, key)
	ls := mustJSON(t, l)
	if strings.Contains(ls, "hunter2") || !strings.Contains(ls, secret.HashPrefix) || strings.Contains(ls, `"x"`) {
		t.Fatalf("L keeps a secret in clear: %s", ls)
	}
	if d["properties"].(map[string]any)["password"] != "hunter2" {
		t.Fatal("HashSecrets modified its input")
	}
	if HashSecrets(d, testSchema, []byte("salt-2"))["properties"].(map[string]any)["password"] == l["properties"].(map[string]any)["password"] {
		t.Error("hash does not depend on the salt")
	}
	s := obj(t, `{"properties":{"level":"a","nested":{}}}`) // GET never returns them
	b := Project(s, Owned(d, nil))
	r := Compute(Input{Desired: d, LastApplied: l, Baseline: b, Live: s, SecretKey: key, Explain: true})
	if r.Action != ActionNoOp {
		t.Fatalf("unchanged secret reported: %v", r.Changes)
	}
	if ruleFor(r, "properties.password") != RuleSecretHash {
		t.Errorf("equal = %v", r.Equal)
	}
	if !reflect.DeepEqual(r.Unverifiable, []string{"properties.nested.adminPassword", "properties.password"}) {
		t.Errorf("unverifiable = %v", r.Unverifiable)
	}
	d2 := obj(t, `{"properties":{"password":"hunter3","level":"a","nested":{"adminPassword":"x"}}}`)
	r = Compute(Input{Desired: d2, LastApplied: l, Baseline: b, Live: s, SecretKey: key})
	c := change(t, r, "properties.password")
	if !c.Sensitive || c.After != (plan.Sensitive{}) || c.Reason != reasonSecret {
		t.Errorf("secret change = %+v", c)
	}
	if out := mustJSON(t, r.Changes); strings.Contains(out, "hunter") {
		t.Errorf("secret leaked into changes: %s", out)
	}
	// The write carries the real value.
	if got := Patch(Input{Desired: d2, LastApplied: l, Baseline: b, Live: s, SecretKey: key}, r); mustJSON(t, got) != `{"properties":{"password":"hunter3"}}` {
		t.Errorf("patch = %s", mustJSON(t, got))
	}
}

func TestSecretContainersHashed(t *testing.T) {
	key := []byte("k")
	d := obj(t, `{"properties":{"protectedSettings":{"commandToExecute":"echo s3cr3t","n":1},"configuration":{"secrets":[{"name":"db","value":"pw1"}]},"parameters":{"adminPassword":{"value":"pw2"}},"plain":"visible"}}`)
	l := HashSecrets(d, nil, key)
	ls := mustJSON(t, l)
	for _, clear := range []string{"s3cr3t", "pw1", "pw2"} {
		if strings.Contains(ls, clear) {
			t.Errorf("L keeps %q in clear: %s", clear, ls)
		}
	}
	if !strings.Contains(ls, `"name":"db"`) || !strings.Contains(ls, `"plain":"visible"`) {
		t.Errorf("non-secrets hashed: %s", ls)
	}
	s := obj(t, `{"properties":{"configuration":{"secrets":[{"name":"db"}]},"plain":"visible"}}`)
	r := Compute(Input{Desired: d, LastApplied: l, Baseline: Project(s, Owned(d, nil)), Live: s, SecretKey: key})
	if r.Action != ActionNoOp {
		t.Fatalf("unchanged secrets reported: %v", paths(r.Changes))
	}
	d2 := obj(t, `{"properties":{"protectedSettings":{"commandToExecute":"echo other","n":1},"configuration":{"secrets":[{"name":"db","value":"pw1"}]},"parameters":{"adminPassword":{"value":"pw2"}},"plain":"visible"}}`)
	r = Compute(Input{Desired: d2, LastApplied: l, Baseline: Project(s, Owned(d, nil)), Live: s, SecretKey: key})
	if got := paths(r.Changes); !reflect.DeepEqual(got, []string{"properties.protectedSettings.commandToExecute"}) || !r.Changes[0].Sensitive {
		t.Fatalf("changed protected setting: %v %+v", got, r.Changes)
	}
	if strings.Contains(mustJSON(t, r.Changes), "echo") {
		t.Error("secret value in the plan")
	}
}

func TestUnverifiableWriteOnly(t *testing.T) {
	d := obj(t, `{"properties":{"token":"abc","level":"a"}}`)
	s := obj(t, `{"properties":{"level":"a"}}`)
	r := Compute(Input{Desired: d, Live: s, Schema: testSchema})
	// A first plan cannot verify it: it says so and writes it once.
	if r.Action != ActionUpdate || !reflect.DeepEqual(r.Unverifiable, []string{"properties.token"}) ||
		len(r.Changes) != 1 || r.Changes[0].Cause != CauseUnverifiable || r.Changes[0].Reason != reasonUnverifiable {
		t.Fatalf("got %s %+v %v", r.Action, r.Changes, r.Unverifiable)
	}
	if p := Patch(Input{Desired: d, Live: s, Schema: testSchema}, r); !reflect.DeepEqual(p, obj(t, `{"properties":{"token":"abc"}}`)) {
		t.Errorf("patch = %v", p)
	}
	// After that write (L = D, B = the live body read back, which still
	// lacks it) the path is never planned again.
	if r := Compute(Input{Desired: d, LastApplied: d, Baseline: s, Live: s, Schema: testSchema}); r.Action != ActionNoOp {
		t.Fatalf("after the write: %s %v", r.Action, paths(r.Changes))
	}
	// A changed manifest value is written again, as the user's change.
	d2 := obj(t, `{"properties":{"token":"def","level":"a"}}`)
	if r := Compute(Input{Desired: d2, LastApplied: d, Baseline: s, Live: s, Schema: testSchema}); len(r.Changes) != 1 || r.Changes[0].Cause != plan.CauseUser {
		t.Fatalf("changed write-only value: %+v", r.Changes)
	}
	// Masked by the server: unverifiable and sensitive.
	r = Compute(Input{Desired: obj(t, `{"properties":{"secrets":{"x":"y"}}}`), Live: obj(t, `{"properties":{"secrets":{"x":"***"}}}`)})
	if len(r.Unverifiable) != 1 || len(r.Changes) != 1 || !r.Changes[0].Sensitive || r.Changes[0].Cause != CauseUnverifiable {
		t.Fatalf("masked: %s %+v %v", r.Action, r.Changes, r.Unverifiable)
	}
}

func TestPutBodyKeepsUnownedAndStripsReadonly(t *testing.T) {
	d := obj(t, `{"location":"westus","properties":{"addressSpace":{"addressPrefixes":["10.0.0.0/16","10.1.0.0/16"]}}}`)
	s := obj(t, `{"id":"/v","name":"v","type":"t","etag":"e","location":"westus","properties":{"provisioningState":"Succeeded","state":"x",
		"addressSpace":{"addressPrefixes":["10.0.0.0/16"]},
		"subnets":[{"name":"s1","id":"/v/subnets/s1","properties":{"addressPrefix":"10.0.0.0/24","provisioningState":"Succeeded"}}]}}`)
	in := Input{Desired: d, Live: s, Schema: testSchema}
	r := Compute(in)
	if got := paths(r.Changes); !reflect.DeepEqual(got, []string{"properties.addressSpace.addressPrefixes"}) {
		t.Fatalf("changes = %v", got)
	}
	body := PutBody(in, r)
	want := `{"location":"westus","properties":{"addressSpace":{"addressPrefixes":["10.0.0.0/16","10.1.0.0/16"]},"subnets":[{"id":"/v/subnets/s1","name":"s1","properties":{"addressPrefix":"10.0.0.0/24"}}]}}`
	if got := mustJSON(t, body); got != want {
		t.Errorf("put body =\n%s\nwant\n%s", got, want)
	}
	if _, ok := s["properties"].(map[string]any)["provisioningState"]; !ok {
		t.Error("PutBody modified live")
	}
	// Create: the desired body minus readonly.
	body = PutBody(Input{Desired: obj(t, `{"name":"x","properties":{"state":"y","level":"a"}}`), Schema: testSchema}, Result{})
	if got := mustJSON(t, body); got != `{"properties":{"level":"a"}}` {
		t.Errorf("create body = %s", got)
	}
}

func TestProjectAndOwnedForm(t *testing.T) {
	d := obj(t, `{"tags":{"a.b":"1"},"properties":{"subnets":[{"name":"web","properties":{"prefix":"p"}}],"list":["x"]}}`)
	owned := Owned(d, nil)
	want := []string{`properties.list`, `properties.subnets[*]`, `properties.subnets[name=web].name`, `properties.subnets[name=web].properties.prefix`, `tags."a.b"`, `tags.*`}
	if !reflect.DeepEqual(owned, want) {
		t.Fatalf("owned = %v", owned)
	}
	s := obj(t, `{"tags":{"a.b":"1","other":"2"},"properties":{"subnets":[{"name":"db","properties":{"prefix":"q"}},{"name":"WEB","id":"/i","properties":{"prefix":"p","extra":1}}],"list":["x","y"],"srv":1}}`)
	b := Project(s, owned)
	// B also records every item key of the declared collections.
	if got := mustJSON(t, b); got != `{"$collections":{"properties.subnets[*]":{"ids":["name"],"keys":["db","web"]},"tags.*":{"keys":["a.b","other"]}},"properties":{"list":["x","y"],"subnets":[{"name":"WEB","properties":{"prefix":"p"}}]},"tags":{"a.b":"1"}}` {
		t.Errorf("project = %s", got)
	}
	for _, o := range owned {
		if strings.HasSuffix(o, "[*]") || strings.HasSuffix(o, ".*") {
			continue
		}
		p, err := parseOwned(o)
		if err != nil || p.String() != o {
			t.Errorf("round trip %q -> %v %q", o, err, p.String())
		}
	}
}

func TestPathRoundTrip(t *testing.T) {
	for _, s := range []string{`a.b.c`, `a[0].b`, `a[name=x].b`, `a[k1=1,k2="x,y"].c`, `tags."hidden-link:/x.y"`, `a."we ird".b`, `a[name="x.y"].b`} {
		p, err := parseOwned(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if got := p.String(); got != s {
			t.Errorf("round trip %q -> %q", s, got)
		}
	}
}

func TestPluginHooksAndRules(t *testing.T) {
	calls := []string{}
	p := &Funcs{
		AfterGetFn: func(live map[string]any) map[string]any {
			calls = append(calls, "AfterGet")
			delete(live, "noise")
			return live
		},
		BeforeCompareFn: func(d, l map[string]any) (map[string]any, map[string]any) {
			calls = append(calls, "BeforeCompare")
			return d, l
		},
		BeforeWriteFn: func(b map[string]any) map[string]any {
			calls = append(calls, "BeforeWrite")
			b["written"] = true
			return b
		},
		R: Rules{
			ReadOnly:    []schema.Path{"properties.computed"},
			Defaults:    map[schema.Path]any{"properties.tier": "Basic"},
			Normalizers: map[schema.Path]Normalizer{"properties.path": func(v any) any { s, _ := v.(string); return strings.TrimPrefix(s, "/") }},
			Ordered:     []schema.Path{"properties.order"},
		},
	}
	d := obj(t, `{"noise":1,"properties":{"computed":"x","tier":"Basic","path":"/api","order":["a","b"]}}`)
	s := obj(t, `{"noise":2,"properties":{"computed":"y","path":"api","order":["a","b"]}}`)
	in := Input{Desired: d, Live: s, Plugin: p, Explain: true}
	r := Compute(in)
	// AfterGet dropped live's "noise": desired's is unverifiable.
	if len(r.Changes) != 1 || r.Changes[0].Path != "noise" || r.Changes[0].Cause != CauseUnverifiable {
		t.Fatalf("changes = %+v", r.Changes)
	}
	if ruleFor(r, "properties.tier") != RulePluginDefault || ruleFor(r, "properties.path") != RuleNormalizer {
		t.Errorf("equal = %v", r.Equal)
	}
	if _, ok := s["noise"]; !ok {
		t.Error("AfterGet modified the caller's live body")
	}
	s["properties"].(map[string]any)["order"] = []any{"b", "a"}
	r = Compute(in)
	if got := paths(r.Changes); !reflect.DeepEqual(got, []string{"noise", "properties.order"}) || r.Changes[1].Cause != plan.CauseUser {
		t.Errorf("ordered array: %v", got)
	}
	body := PutBody(in, r)
	if body["written"] != true || calls[len(calls)-1] != "BeforeWrite" {
		t.Errorf("BeforeWrite not applied: %v", calls)
	}
	if _, ok := body["properties"].(map[string]any)["computed"]; ok {
		t.Error("plugin readonly path written")
	}
}

func TestWriteMethod(t *testing.T) {
	sch := &schema.Type{PatchSupported: true, PatchPaths: []string{"tags", "tags.*", "properties.level"}, Properties: testSchema.Properties}
	s := obj(t, `{"tags":{"a":"1"},"properties":{"level":"x","mode":"Enabled"}}`)
	for _, c := range []struct {
		d      string
		plugin Plugin
		want   plan.Method
	}{
		{`{"tags":{"a":"1"}}`, nil, ""},
		{`{"tags":{"a":"2"}}`, nil, "PATCH"},
		{`{"properties":{"level":"y"}}`, nil, "PATCH"},
		{`{"properties":{"mode":"Disabled"}}`, nil, "PUT"},
		{`{"properties":{"level":"y"}}`, &Funcs{R: Rules{TagsOnlyPatch: true}}, "PUT"},
		{`{"tags":{"a":"2"}}`, &Funcs{R: Rules{TagsOnlyPatch: true}}, "PATCH"},
	} {
		in := Input{Desired: obj(t, c.d), Live: s, Schema: sch, Plugin: c.plugin}
		if got := WriteMethod(in, Compute(in)); got != c.want {
			t.Errorf("%s: method %q, want %q", c.d, got, c.want)
		}
	}
}

func TestResultIsDeterministic(t *testing.T) {
	d := obj(t, `{"properties":{"a":1,"b":2,"c":3,"d":{"e":4,"f":5}}}`)
	s := obj(t, `{"properties":{"a":0,"b":0,"c":0,"d":{"e":0,"f":0}}}`)
	first := mustJSON(t, Compute(Input{Desired: d, Live: s, Explain: true}).Changes)
	for i := 0; i < 20; i++ {
		if got := mustJSON(t, Compute(Input{Desired: d, Live: s, Explain: true}).Changes); got != first {
			t.Fatalf("order differs:\n%s\n%s", got, first)
		}
	}
}

func TestNullInManifestClearsWithState(t *testing.T) {
	// State-less, null means "not specified"; with state, moving a value to
	// null is the user clearing it and is written (null in the patch).
	l := obj(t, `{"properties":{"a":"x"}}`)
	d := obj(t, `{"properties":{"a":null}}`)
	s := obj(t, `{"properties":{"a":"x"}}`)
	in := Input{Desired: d, LastApplied: l, Baseline: s, Live: s}
	r := Compute(in)
	if got := paths(r.Changes); !reflect.DeepEqual(got, []string{"properties.a"}) {
		t.Fatalf("changes = %v", got)
	}
	if got := mustJSON(t, Patch(in, r)); got != `{"properties":{"a":null}}` {
		t.Errorf("patch = %s", got)
	}
	if r := Compute(Input{Desired: d, Live: s}); r.Action != ActionNoOp {
		t.Errorf("state-less null: %v", paths(r.Changes))
	}
}

func TestDriftInUnkeyedArrayStillSeen(t *testing.T) {
	sch := &schema.Type{Properties: map[string]*schema.Property{
		"properties.coll":   {Type: schema.TypeArray, Positional: true},
		"properties.coll[]": {Type: schema.TypeObject},
	}}
	d := obj(t, `{"properties":{"coll":[{"name":"x","v":1}]}}`)
	s := obj(t, `{"properties":{"coll":[{"name":"y","v":9},{"name":"x","v":1,"srv":true}]}}`)
	// Owned(D, nil) keys items by name; the spec says positional: B is a
	// subset projection and must still compare quietly...
	b := Project(s, Owned(d, nil))
	if r := Compute(Input{Desired: d, LastApplied: d, Baseline: b, Live: s, Schema: sch}); r.Action != ActionNoOp {
		t.Fatalf("quiet after apply: %v", paths(r.Changes))
	}
	// ...and a real drift of the owned item is reported.
	s2 := obj(t, `{"properties":{"coll":[{"name":"y","v":9},{"name":"x","v":2,"srv":true}]}}`)
	if r := Compute(Input{Desired: d, LastApplied: d, Baseline: b, Live: s2, Schema: sch}); r.Action != ActionUpdate || !r.Changes[0].IsDrift() {
		t.Fatalf("drift not seen: %s %+v", r.Action, r.Changes)
	}
}

func TestPutBodyMergesMembersCaseInsensitively(t *testing.T) {
	d := obj(t, `{"tags":{"Env":"prod"},"properties":{"Mode":"a"}}`)
	s := obj(t, `{"tags":{"env":"dev","other":"x"},"properties":{"mode":"b","srv":1}}`)
	in := Input{Desired: d, Live: s}
	got := mustJSON(t, PutBody(in, Compute(in)))
	if got != `{"properties":{"Mode":"a","srv":1},"tags":{"Env":"prod","other":"x"}}` {
		t.Errorf("put body = %s", got)
	}
}
