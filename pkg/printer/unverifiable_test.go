package printer

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// In -o json a value the service does not return has before: null, secret
// or not; a sensitive change with a real before still shows the mask.
func TestUnverifiableBeforeIsNullInJSON(t *testing.T) {
	p := samplePlan()
	p.Resources[2].Changes = append(p.Resources[2].Changes,
		plan.Change{Path: "properties.adminPassword", After: "s3cret-value", Kind: plan.KindChange, Cause: plan.CauseUnverifiable, Sensitive: true},
		plan.Change{Path: "properties.createMode", After: "Restore", Kind: plan.KindAdd, Cause: plan.CauseUnverifiable},
		plan.Change{Path: "properties.DB_PASSWORD2", Before: "old", After: "new", Kind: plan.KindChange, Cause: plan.CauseUser, Sensitive: true},
	)
	var buf bytes.Buffer
	if err := Print(&buf, p, Options{Output: OutputJSON}); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Resources []struct {
			Changes []map[string]any
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]any{}
	for _, c := range out.Resources[2].Changes {
		got[c["path"].(string)] = c
	}
	for path, want := range map[string]any{"properties.adminPassword": nil, "properties.createMode": nil, "properties.DB_PASSWORD2": plan.SensitiveText} {
		c, ok := got[path]
		if !ok {
			t.Fatalf("no change %s in %s", path, buf.String())
		}
		if b, has := c["before"]; !has || b != want {
			t.Errorf("%s: before = %v (present %v), want %v", path, b, has, want)
		}
	}
	if bytes.Contains(buf.Bytes(), []byte("s3cret-value")) {
		t.Error("the secret is in the plan")
	}
}
