package apply

import (
	"context"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

const templateDocs = `
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: stdemo001}
spec:
  type: Microsoft.Storage/storageAccounts@2023-05-01
  resourceGroup: rg1
  body: {location: westeurope, kind: StorageV2, sku: {name: Standard_LRS}}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: app}
spec:
  type: Microsoft.Web/sites@2023-12-01
  resourceGroup: rg1
  body:
    location: westeurope
    properties:
      siteConfig:
        appSettings:
        - name: STORAGE
          value: {valueFrom: {template: "AccountName=${ref:stdemo001.name};AccountKey=${secret:key}", secrets: {key: {action: {resource: stdemo001, name: listKeys, path: "keys[0].value"}}}}}
`

// TestTemplateWithActionResolvedAtApply: a valueFrom.template whose secret
// comes from listKeys is unknown in the plan (shown as sensitive), filled at
// apply time by calling the action, kept out of output and stored hashed.
func TestTemplateWithActionResolvedAtApply(t *testing.T) {
	a := newFakeARM()
	principals(a, "11111111-2222-3333-4444-555555555555")
	identities := a.generate
	a.generate = func(id string, b map[string]any) { // ARM echoes the name
		identities(id, b)
		b["name"] = id[strings.LastIndex(id, "/")+1:]
	}
	stID := rgID("rg1") + "/providers/Microsoft.Storage/storageAccounts/stdemo001"
	a.actions[armid.Key(stID+"/listKeys")] = map[string]any{"keys": []any{map[string]any{"value": "tmpl-key-from-action-77"}}}
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
	appID := rgID("rg1") + "/providers/Microsoft.Web/sites/app"
	a.mu.Lock()
	written := a.res[armid.Key(appID)]
	a.mu.Unlock()
	settings := written["properties"].(map[string]any)["siteConfig"].(map[string]any)["appSettings"].([]any)
	if v := settings[0].(map[string]any)["value"]; v != "AccountName=stdemo001;AccountKey=tmpl-key-from-action-77" {
		t.Errorf("written value = %v", v)
	}
	if strings.Contains(e.Secrets.Scrub("x AccountName=stdemo001;AccountKey=tmpl-key-from-action-77 y"), "tmpl-key-from-action-77") {
		t.Error("the template's value is not registered for scrubbing")
	}
	rec, err := st.Get(context.Background(), appID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(fmtJSON(t, rec), "tmpl-key-from-action-77") {
		t.Error("state holds the template's secret in clear")
	}
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
			a := newFakeARM()
			principals(a, "11111111-2222-3333-4444-555555555555")
			identities := a.generate
			a.generate = func(id string, b map[string]any) {
				identities(id, b)
				b["name"] = id[strings.LastIndex(id, "/")+1:]
			}
			stID := rgID("rg1") + "/providers/Microsoft.Storage/storageAccounts/stdemo001"
			a.actions[armid.Key(stID+"/listKeys")] = map[string]any{"keys": []any{map[string]any{"value": "first-key-" + tc.name}}}
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
			a.actions[armid.Key(stID+"/listKeys")] = map[string]any{"keys": []any{map[string]any{"value": "rotated-key-" + tc.name}}}
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
