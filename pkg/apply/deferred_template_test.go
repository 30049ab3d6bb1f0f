package apply

import (
	"context"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

var templateDocs = appWithSetting("STORAGE", `{valueFrom: {template: "AccountName=${ref:stdemo001.name};AccountKey=${secret:key}", secrets: {key: {action: {resource: stdemo001, name: listKeys, path: "keys[0].value"}}}}}`)

// TestTemplateWithActionResolvedAtApply: a valueFrom.template whose secret
// comes from listKeys is unknown in the plan (shown as sensitive), filled at
// apply time by calling the action, kept out of output and stored hashed.
func TestTemplateWithActionResolvedAtApply(t *testing.T) {
	a := listKeysARM("tmpl-key-from-action-77")
	echoNames(a)
	st := newMemStore()
	e := newEngine(a, st, DefaultOptions())
	p, err := e.Plan(context.Background(), loadDocs(t, refDocs+templateDocs))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(a.Calls("POST")); n != 0 {
		t.Fatalf("the plan called %d actions; secrets are read at apply time only", n)
	}
	for _, r := range p.Plan.Resources {
		for _, c := range r.Changes {
			if strings.HasSuffix(c.Path, "appSettings[STORAGE].value") && !c.Sensitive {
				t.Errorf("plan change %s is not sensitive: %+v", c.Path, c)
			}
		}
	}
	if r, err := e.Execute(context.Background(), p); err != nil {
		t.Fatalf("%v: %+v", err, r.Results)
	}
	if v := writtenAppSetting(a); v != "AccountName=stdemo001;AccountKey=tmpl-key-from-action-77" {
		t.Errorf("written value = %v", v)
	}
	checkSecretHidden(t, e, st, "AccountName=stdemo001;AccountKey=tmpl-key-from-action-77", "tmpl-key-from-action-77", "the template's secret")
	// Next plan: the key did not change, so nothing is written.
	p2, err := e.Plan(context.Background(), loadDocs(t, refDocs+templateDocs))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range p2.Plan.Resources {
		if strings.Contains(r.ID, "sites/app") && r.Action != plan.ActionNoOp {
			t.Errorf("second plan: %s %s %+v", r.Action, r.ID, r.Changes)
		}
	}
}

// TestActionValueQuietUntilRotated: a valueFrom.action value (listKeys) is
// read at plan time once its resource exists, so an unchanged key plans
// nothing, and a key rotated outside plans an update that shows no secret.
func TestActionValueQuietUntilRotated(t *testing.T) {
	for _, tc := range []struct{ name, docs, path string }{
		{"action", actionDocs, "appSettings[KEY].value"},
		{"template", templateDocs, "appSettings[STORAGE].value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := listKeysARM("first-key-" + tc.name)
			echoNames(a)
			st := newMemStore()
			e := newEngine(a, st, DefaultOptions())
			p, err := e.Plan(context.Background(), loadDocs(t, refDocs+tc.docs))
			if err != nil {
				t.Fatal(err)
			}
			if r, err := e.Execute(context.Background(), p); err != nil {
				t.Fatalf("%v: %+v", err, r.Results)
			}
			appPlan := func() plan.Resource {
				t.Helper()
				p, err := e.Plan(context.Background(), loadDocs(t, refDocs+tc.docs))
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range p.Plan.Resources {
					if strings.HasSuffix(r.ID, "/sites/app") {
						return r
					}
				}
				t.Fatal("no app in the plan")
				return plan.Resource{}
			}
			if r := appPlan(); r.Action != plan.ActionNoOp {
				t.Fatalf("unchanged key: %s %+v", r.Action, r.Changes)
			}
			setListKey(a, "rotated-key-"+tc.name)
			r := appPlan()
			if r.Action != plan.ActionUpdate || len(r.Changes) != 1 || !strings.HasSuffix(r.Changes[0].Path, tc.path) || !r.Changes[0].Sensitive {
				t.Fatalf("rotated key: %s %+v", r.Action, r.Changes)
			}
			if s := fmtJSON(t, r); strings.Contains(s, "-key-"+tc.name) {
				t.Errorf("the plan shows a key: %s", s)
			}
		})
	}
}
