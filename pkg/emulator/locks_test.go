package emulator

import (
	"net/http"
	"strings"
	"testing"
)

// Management locks as ARM enforces them (source in locks.go): CanNotDelete
// refuses deletes of the scope, its children and its parents; ReadOnly
// refuses writes and POST actions too; the lock itself can be removed.
func TestManagementLocks(t *testing.T) {
	s := startTest(t, func(o *Options) { o.LRODuration = 0 })
	u := s.URL()
	rg := "/subscriptions/" + testSub + "/resourceGroups/locked"
	sa := rg + "/providers/Microsoft.Storage/storageAccounts/lockedsa1"
	const (
		rgV   = "?api-version=2021-04-01"
		saV   = "?api-version=2023-01-01"
		lockV = "?api-version=2020-05-01"
	)
	mustStatus := func(r resp, want int, what string) {
		t.Helper()
		if r.Status != want {
			t.Fatalf("%s: %d %s, want %d", what, r.Status, r.Raw, want)
		}
	}
	mustLocked := func(r resp, verb, scope, what string) {
		t.Helper()
		if r.Status != http.StatusConflict || errCode(r) != "ScopeLocked" {
			t.Fatalf("%s: %d %s, want 409 ScopeLocked", what, r.Status, r.Raw)
		}
		msg := str(r.Body, "error", "message")
		if !strings.Contains(msg, "cannot perform "+verb+" operation because following scope(s) are locked: '"+scope+"'") {
			t.Errorf("%s: message %q lacks ARM's shape for %s on %s", what, msg, verb, scope)
		}
	}
	mustStatus(do(t, http.MethodPut, u+rg+rgV, map[string]any{"location": "westeurope"}), 201, "create group")
	if r := do(t, http.MethodPut, u+sa+saV, map[string]any{"location": "westeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}}); r.Status != 200 && r.Status != 202 {
		t.Fatalf("create account: %d %s", r.Status, r.Raw)
	}

	// CanNotDelete on the account.
	lock := sa + "/providers/Microsoft.Authorization/locks/nodelete"
	if r := do(t, http.MethodPut, u+lock+lockV, map[string]any{"properties": map[string]any{"level": "CanNotDelete"}}); r.Status != 200 && r.Status != 201 {
		t.Fatalf("create lock: %d %s", r.Status, r.Raw)
	}
	mustLocked(do(t, http.MethodDelete, u+sa+saV, nil), "delete", sa, "delete locked account")
	mustLocked(do(t, http.MethodDelete, u+rg+rgV, nil), "delete", sa, "delete the group of a locked account")
	mustLocked(do(t, http.MethodDelete, u+sa+"/blobServices/default/containers/c"+saV, nil), "delete", sa, "delete under a locked account")
	// Writes and actions are fine under CanNotDelete.
	mustStatus(do(t, http.MethodPatch, u+sa+saV, map[string]any{"tags": map[string]any{"a": "b"}}), 200, "patch under CanNotDelete")
	mustStatus(do(t, http.MethodPost, u+sa+"/listKeys"+saV, nil), 200, "listKeys under CanNotDelete")

	// ReadOnly on the group: writes and POST actions below it are refused.
	ro := rg + "/providers/Microsoft.Authorization/locks/readonly"
	if r := do(t, http.MethodPut, u+ro+lockV, map[string]any{"properties": map[string]any{"level": "ReadOnly", "notes": "freeze"}}); r.Status != 200 && r.Status != 201 {
		t.Fatalf("create read-only lock: %d %s", r.Status, r.Raw)
	}
	mustLocked(do(t, http.MethodPatch, u+sa+saV, map[string]any{"tags": map[string]any{"a": "c"}}), "write", rg, "patch under ReadOnly")
	mustLocked(do(t, http.MethodPut, u+rg+"/providers/Microsoft.Storage/storageAccounts/lockedsa2"+saV, map[string]any{"location": "westeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}}), "write", rg, "create under ReadOnly")
	mustLocked(do(t, http.MethodPost, u+sa+"/listKeys"+saV, nil), "write", rg, "listKeys under ReadOnly")
	mustLocked(do(t, http.MethodPatch, u+rg+rgV, map[string]any{"tags": map[string]any{"a": "b"}}), "write", rg, "patch of the locked group")
	// Reads still work.
	mustStatus(do(t, http.MethodGet, u+sa+saV, nil), 200, "GET under ReadOnly")

	// Removing the locks is always allowed, and then everything works.
	mustStatus(do(t, http.MethodDelete, u+ro+lockV, nil), 200, "delete read-only lock")
	mustStatus(do(t, http.MethodPost, u+sa+"/listKeys"+saV, nil), 200, "listKeys after unlock")
	mustStatus(do(t, http.MethodDelete, u+lock+lockV, nil), 200, "delete lock")
	if r := do(t, http.MethodDelete, u+sa+saV, nil); r.Status != 200 && r.Status != 204 && r.Status != 202 {
		t.Fatalf("delete after unlock: %d %s", r.Status, r.Raw)
	}
}

// A lock seeded through the admin API binds like one written by a client.
func TestSeededLockBinds(t *testing.T) {
	s := startTest(t, func(o *Options) { o.LRODuration = 0 })
	sub := "/subscriptions/" + testSub
	if err := s.Seed(sub+"/resourceGroups/g/providers/Microsoft.Authorization/locks/l", "2020-05-01",
		map[string]any{"properties": map[string]any{"level": "CanNotDelete"}}); err != nil {
		t.Fatal(err)
	}
	r := do(t, http.MethodDelete, s.URL()+sub+"/resourceGroups/g?api-version=2021-04-01", nil)
	if r.Status != http.StatusConflict || errCode(r) != "ScopeLocked" {
		t.Fatalf("delete of a group with a seeded lock: %d %s", r.Status, r.Raw)
	}
}
