package apply

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// writeLog records the If-Match header and the answer of every PATCH
// and PUT a client sends.
type writeLog struct {
	mu   sync.Mutex
	sent []string // "PATCH 412 if-match=..."
}

func (l *writeLog) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && (r.Method == http.MethodPatch || r.Method == http.MethodPut) {
		l.mu.Lock()
		l.sent = append(l.sent, r.Method+" "+http.StatusText(resp.StatusCode)+" if-match="+r.Header.Get("If-Match"))
		l.mu.Unlock()
	}
	return resp, err
}

// TestPatchSendsIfMatch (issue 30): a PATCH carries the etag the plan
// read, like a PUT; when somebody wrote the resource after the plan read
// it, ARM answers 412, and the resource is read and planned again once
// (their change is drift, shown and corrected) instead of being
// overwritten blindly.
func TestPatchSendsIfMatch(t *testing.T) {
	ctx := context.Background()
	log := &writeLog{}
	_, c := emulatedVia(t, log)
	nsg := idOf("rg1", "Microsoft.Network/networkSecurityGroups", "nsg1")
	docs := func(tag string) *manifest.Set {
		return loadDocs(t, rgDoc+`---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: nsg1}
spec:
  type: Microsoft.Network/networkSecurityGroups@2023-09-01
  resourceGroup: rg1
  body: {location: westeurope, tags: {owner: `+tag+`}}
`)
	}
	st := newMemStore()
	e := &Engine{Client: FromARM(c), Store: st, Schemas: schema.Default(), Options: DefaultOptions()}
	p, err := e.Plan(ctx, docs("a"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Execute(ctx, p); err != nil {
		t.Fatal(err)
	}

	e = &Engine{Client: FromARM(c), Store: st, Schemas: schema.Default(), Options: DefaultOptions()}
	p, err = e.Plan(ctx, docs("b"))
	if err != nil {
		t.Fatal(err)
	}
	var planned plan.Resource
	for _, r := range p.Plan.Resources {
		if strings.EqualFold(r.ID, nsg) {
			planned = r
		}
	}
	if planned.Method != "PATCH" || planned.LiveEtag == "" {
		t.Fatalf("the tag change is planned as %q with etag %q; the test needs a PATCH of a resource with an etag", planned.Method, planned.LiveEtag)
	}
	// Somebody else writes the resource between plan and apply.
	if _, err := c.Patch(ctx, nsg, "2023-09-01", map[string]any{"tags": map[string]any{"owner": "a", "team": "theirs"}}, nil); err != nil {
		t.Fatal(err)
	}
	log.mu.Lock()
	log.sent = nil
	log.mu.Unlock()
	var warn strings.Builder
	e.Warn = &warn
	if _, err := e.Execute(ctx, p); err != nil {
		t.Fatal(err)
	}
	log.mu.Lock()
	sent := append([]string(nil), log.sent...)
	log.mu.Unlock()
	want := []string{"PATCH Precondition Failed if-match=" + planned.LiveEtag}
	if len(sent) != 2 || sent[0] != want[0] || !strings.HasPrefix(sent[1], "PATCH OK if-match=") || sent[1] == "PATCH OK if-match=" || strings.HasSuffix(sent[1], planned.LiveEtag) {
		t.Fatalf("writes sent %q, want a PATCH with the planned etag answered 412, then one PATCH with the fresh etag", sent)
	}
	if !strings.Contains(warn.String(), "etag mismatch") {
		t.Errorf("no warning about the 412: %q", warn.String())
	}
	resp, err := c.Get(ctx, nsg, "2023-09-01")
	if err != nil {
		t.Fatal(err)
	}
	tags, _ := resp.Body["tags"].(map[string]any)
	if tags["owner"] != "b" {
		t.Errorf("tags after apply = %v, want owner=b", tags)
	}
}
