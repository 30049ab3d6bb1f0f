package cli_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// Resources whose manifests own only envelope members (location, tags)
// are read from ARM's generic resource list once no write of theirs is
// recent. Such a read only ever confirms that nothing changed: drift is
// judged again on the whole resource, and a write starts from it.
func TestEnvelopeReadsConfirmOrReadAgain(t *testing.T) {
	e := newEnv(t, nil)
	const n = 150 // two pages of the route tables' own list, one of the generic list
	const api = "2023-09-01"
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata: {name: rg-env}\nspec:\n  type: Microsoft.Resources/resourceGroups@2021-04-01\n  body: {location: westeurope}\n")
	for i := range n {
		fmt.Fprintf(&b, "---\napiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata: {name: rt-%03d}\nspec:\n  type: Microsoft.Network/routeTables@%s\n  resourceGroup: rg-env\n  body: {location: westeurope, tags: {team: net, n: \"%d\"}}\n", i, api, i)
	}
	dir := manifestDir(t, filepath.Join(t.TempDir(), "rt"), "rt.yaml", b.String())
	e.mustRun(0, "apply", "-f", dir, "--yes")

	gets := func() int64 { return e.srv.Stats().Requests["GET"] }
	diff := func(want int, args ...string) (string, int64) {
		t.Helper()
		before := gets()
		out := e.mustRun(want, append([]string{"diff", "-f", dir}, args...)...)
		return out, gets() - before
	}
	// Just written: ARM's cache may not show those writes yet, so the
	// route tables' own list (2 pages) is read, plus the group.
	if _, reads := diff(0); reads != 3 {
		t.Fatalf("plan right after apply: %d reads, want 3 (the group, 2 pages of the type's list)", reads)
	}
	// An endpoint whose generic list never lags: one page serves all.
	if _, reads := diff(0, "--cache-lag", "0"); reads != 2 {
		t.Fatalf("plan with --cache-lag 0: %d reads, want 2 (the group, 1 page of the generic list)", reads)
	}

	rt := func(i int) string {
		return fmt.Sprintf("%s/providers/Microsoft.Network/routeTables/rt-%03d", rg("rg-env"), i)
	}
	write := func(method, id, body string) {
		t.Helper()
		if r, err := httpWrite(method, e.srv.URL()+id+"?api-version="+api, body); err != nil || r.code >= 300 {
			t.Fatalf("%s %s: %v %d %s", method, id, err, r.code, r.body)
		}
	}
	// Outside changes: a tag the manifest owns, and a property it does not.
	write(http.MethodPatch, rt(7), `{"tags": {"team": "other", "n": "7"}}`)
	write(http.MethodPut, rt(8), `{"location": "westeurope", "tags": {"team": "net", "n": "8"}, "properties": {"disableBgpRoutePropagation": true}}`)

	out, _ := diff(1, "--cache-lag", "0")
	if !strings.Contains(out, "rt-007") || !strings.Contains(out, "tags.team") || strings.Contains(out, "rt-008") {
		t.Fatalf("plan after outside changes: want rt-007's tag only:\n%s", out)
	}
	// The drifted one was read again whole: its write is pinned to the
	// etag a full read returns (If-Match), which an envelope lacks.
	js, _ := diff(1, "--cache-lag", "0", "-o", "json")
	var p struct {
		Resources []struct {
			ID, Action, LiveEtag string
		}
	}
	if err := json.Unmarshal([]byte(js), &p); err != nil {
		t.Fatal(err)
	}
	for _, r := range p.Resources {
		if strings.HasSuffix(r.ID, "/rt-007") && (r.Action != "update" || r.LiveEtag == "") {
			t.Fatalf("rt-007 planned %q with live etag %q: want an update read in full", r.Action, r.LiveEtag)
		}
	}
	writesBefore := e.writes()
	e.mustRun(0, "apply", "-f", dir, "--yes", "--cache-lag", "0")
	if w := e.writes() - writesBefore; w != 1 {
		t.Fatalf("apply wrote %d times, want 1 (rt-007's tag)", w)
	}
	live, _ := e.live(rt(7), api)
	if got := dig(live, "tags", "team"); got != "net" {
		t.Fatalf("rt-007's tag after apply: %v, want net", got)
	}
	live, _ = e.live(rt(8), api)
	if got := dig(live, "properties", "disableBgpRoutePropagation"); got != true {
		t.Fatalf("rt-008's property the manifest does not own: %v after apply, want it kept (true)", got)
	}
	if out, _ := diff(0, "--cache-lag", "0"); !strings.Contains(out, "No changes") {
		t.Fatalf("plan after apply:\n%s", out)
	}
}
