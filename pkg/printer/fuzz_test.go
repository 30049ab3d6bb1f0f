package printer

import (
	"strings"
	"testing"
	"unicode"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// FuzzCleanText: whatever a name, message or value holds, what reaches the
// terminal has no control or format characters except newlines.
func FuzzCleanText(f *testing.F) {
	for _, s := range []string{"plain", "a\x1b[2Jb", "rtl\u202eexe.txt", "two\nlines\r\n", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range CleanText(nil, s) {
			if r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
				t.Fatalf("CleanText(%q) kept %U", s, r)
			}
		}
	})
}

// FuzzOperations: any change path (they come from manifests) yields either
// no operations or pointers that start at the root, and never panics.
func FuzzOperations(f *testing.F) {
	for _, s := range []string{"tags.env", `tags."a.b"`, "properties.subnets[app].name", "a..b", `"unterminated`, ".", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		ops := operations(plan.Resource{Changes: []plan.Change{{Path: path, Before: "x", After: "y", Kind: plan.KindChange}}})
		for _, op := range ops {
			b := compactJSON(op)
			if !strings.Contains(b, `"path":"/`) {
				t.Fatalf("path %q: operation %s does not start at the root", path, b)
			}
		}
	})
}

// FuzzTruncate: the result never exceeds the width and keeps the end.
func FuzzTruncate(f *testing.F) {
	f.Add("/subscriptions/x/resourceGroups/rg/providers/Microsoft.Network/networkSecurityGroups/nsg", 20)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 1000 || !isPrintableASCII(s) {
			return
		}
		got := truncate(s, n)
		if len([]rune(got)) > len(s) {
			t.Fatalf("truncate grew %q to %q", s, got)
		}
		if len([]rune(got)) > n {
			t.Fatalf("truncate(%q, %d) = %q is wider", s, n, got)
		}
	})
}

func isPrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
