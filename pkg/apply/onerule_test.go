package apply

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// planned plans the one resource of the set and returns its entry.
func planned(t *testing.T, e *Engine, id string, p *Prepared) plan.Resource {
	t.Helper()
	for _, r := range p.Plan.Resources {
		if armid.Equal(r.ID, id) {
			return r
		}
	}
	t.Fatalf("%s not planned", id)
	return plan.Resource{}
}

// A whole value the plan carries (a site's siteConfig, unverifiable when
// adopted) hides what the resource's rule calls secret inside it: the
// type's app-setting values and a connection string, as the record hashes
// them. Before, apply hid only valueFrom paths there, and the plan printed
// the app settings in clear.
func TestPlanHidesTheRulesSecretsInsideAWholeValue(t *testing.T) {
	site := idOf("rg1", "Microsoft.Web/sites", "app")
	a := newFakeARM()
	a.seed(rg1, body())
	a.seed(site, map[string]any{"location": "westeurope", "properties": map[string]any{}})
	e := newEngine(a, newMemStore(recordOf(rg1, body(), DefaultSet)), DefaultOptions())
	desired := map[string]any{"location": "westeurope", "properties": map[string]any{"siteConfig": map[string]any{
		"appSettings":       []any{map[string]any{"name": "DB_HOST", "value": "SECRET-SETTING"}},
		"connectionStrings": []any{map[string]any{"name": "db", "connectionString": "Server=SECRET-CONN", "type": "SQLAzure"}},
	}}}
	r := planned(t, e, site, mustPlan(t, e, res(rg1, body()), res(site, desired, rg1)))
	out, _ := json.Marshal(r.Changes)
	if strings.Contains(string(out), "SECRET-") {
		t.Fatalf("a secret inside a whole value is shown: %s", out)
	}
	for _, plain := range []string{`"DB_HOST"`, `"SQLAzure"`} {
		if !strings.Contains(string(out), plain) {
			t.Errorf("plain %s hidden along with the secrets: %s", plain, out)
		}
	}
}

// A valueFrom path in position form below a change in keyed form (the
// fileUris of a new extension chosen by name) hides that place in the
// array and keeps the rest: the rule matches an index and a key as the
// same item. Before, apply could not follow the two spellings and hid the
// whole change.
func TestPlanHidesAValueFromPlaceInAKeyedItem(t *testing.T) {
	vmss := idOf("rg1", "Microsoft.Compute/virtualMachineScaleSets", "ss")
	other := map[string]any{"name": "other", "properties": map[string]any{"type": "A"}}
	live := map[string]any{"location": "westeurope", "properties": map[string]any{"extensions": []any{other}}}
	a := newFakeARM()
	a.seed(rg1, body())
	a.seed(vmss, live)
	e := newEngine(a, newMemStore(recordOf(rg1, body(), DefaultSet), recordOf(vmss, live, DefaultSet)), DefaultOptions())
	lap := map[string]any{"name": "lap", "properties": map[string]any{"type": "B", "settings": map[string]any{"fileUris": []any{"https://x/a.sh?sig=SECRET-SAS"}}}}
	m := res(vmss, map[string]any{"location": "westeurope", "properties": map[string]any{"extensions": []any{other, lap}}}, rg1)
	m.SecretPaths = []string{"properties.extensions[1].properties.settings.fileUris[0]"}
	r := planned(t, e, vmss, mustPlan(t, e, res(rg1, body()), m))
	out, _ := json.Marshal(r.Changes)
	if strings.Contains(string(out), "SECRET-SAS") {
		t.Fatalf("the valueFrom value is shown: %s", out)
	}
	for _, c := range r.Changes {
		if c.Path != "properties.extensions[lap].properties.settings.fileUris" {
			continue
		}
		if c.Sensitive || !reflect.DeepEqual(c.After, []any{plan.Sensitive{}}) {
			t.Errorf("fileUris: %+v, want the array with its one secret item hidden", c)
		}
		return
	}
	t.Fatalf("no fileUris change: %s", out)
}

// A value the record holds as a secret's hash stays secret after the
// manifest stops declaring it, whatever its name: removing it shows live's
// value hidden.
func TestRecordedSecretStaysSecret(t *testing.T) {
	h := secret.Hash([]byte("k"), "properties.note", "RECORDED-SECRET")
	rec := map[string]any{"location": "westeurope", "properties": map[string]any{"note": h, "size": "S"}}
	live := map[string]any{"location": "westeurope", "properties": map[string]any{"note": "RECORDED-SECRET", "size": "S"}}
	a := newFakeARM()
	a.seed(rg1, body())
	a.seed(idA, live)
	e := newEngine(a, newMemStore(recordOf(rg1, body(), DefaultSet), recordOf(idA, rec, DefaultSet)), DefaultOptions())
	r := planned(t, e, idA, mustPlan(t, e, res(rg1, body()), res(idA, map[string]any{"location": "westeurope", "properties": map[string]any{"size": "S"}}, rg1)))
	out, _ := json.Marshal(r.Changes)
	if strings.Contains(string(out), "RECORDED-SECRET") || len(r.Changes) != 1 || !r.Changes[0].Sensitive {
		t.Fatalf("removal of a recorded secret: %s", out)
	}
}

// The note that Azure kept a removed value never shows a secret inside it.
func TestKeptNoteHidesASecretInside(t *testing.T) {
	os := func() map[string]any {
		return map[string]any{"linuxConfiguration": map[string]any{"ssh": map[string]any{"publicKeys": []any{map[string]any{"keyData": "ssh-rsa SECRETKEY"}}}}}
	}
	a := newFakeARM()
	a.generate = func(id string, b map[string]any) {
		if props, _ := b["properties"].(map[string]any); props != nil {
			props["osProfile"] = os() // the service keeps it when omitted
		}
	}
	h := secret.Hash([]byte("k"), "x", "ssh-rsa SECRETKEY")
	rec := map[string]any{"location": "westeurope", "tags": map[string]any{"a": "1"}, "properties": map[string]any{"other": "x",
		"osProfile": map[string]any{"linuxConfiguration": map[string]any{"ssh": map[string]any{"publicKeys": []any{map[string]any{"keyData": h}}}}}}}
	a.seed(rg1, body())
	a.seed(idA, map[string]any{"location": "westeurope", "tags": map[string]any{"a": "1"}, "properties": map[string]any{"other": "x", "osProfile": os()}})
	e := newEngine(a, newMemStore(recordOf(rg1, body(), DefaultSet), recordOf(idA, rec, DefaultSet)), DefaultOptions())
	p := mustPlan(t, e, res(idA, map[string]any{"location": "westeurope", "tags": map[string]any{"a": "2"}, "properties": map[string]any{"other": "x"}}))
	out, _ := json.Marshal(p.Plan)
	if strings.Contains(string(out), "SECRETKEY") {
		t.Fatalf("plan shows the key: %s", out)
	}
	r, err := e.Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, x := range r.Results {
		notes = append(notes, x.Notes...)
	}
	joined := strings.Join(notes, "\n")
	if strings.Contains(joined, "SECRETKEY") || !strings.Contains(joined, "properties.osProfile") {
		t.Fatalf("notes: %q", notes)
	}
}
