package arm

import (
	"net/http"
	"strings"
	"testing"
)

// A 409 names its way out: a soft-deleted name is recovered or purged
// (waiting does not free it), a globally unique name is chosen again, and
// only a busy resource is waited for.
func TestConflictHints(t *testing.T) {
	for _, tc := range []struct {
		code, message, want, not string
	}{
		{"ConflictError", "A vault with the same name already exists in deleted state. You need to either recover or purge existing key vault.", "recover it", "wait"},
		{"FlagMustBeSetForRestore", "An existing resource with ID '/x' has been soft-deleted. To restore the resource, you must specify 'restore' to be 'true' in the property.", "purge it", "wait"},
		{"VaultAlreadyExists", "The vault name 'kv1' is already in use.", "choose another name", "wait"},
		{"StorageAccountAlreadyTaken", "The storage account named st1 is already taken.", "choose another name", "wait"},
		{"AnotherOperationInProgress", "Another operation on this or dependent resource is in progress.", "wait and re-run", "purge"},
	} {
		e := &Error{Method: "PUT", StatusCode: http.StatusConflict, Code: tc.code, Message: tc.message}
		h := e.hint()
		if !strings.Contains(h, tc.want) || strings.Contains(h, tc.not) {
			t.Errorf("%s: hint %q, want it to say %q and not %q", tc.code, h, tc.want, tc.not)
		}
	}
}
