package plan

import "testing"

func TestBuiltinRoleName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/subscriptions/s/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7", "Reader"},
		{"B24988AC-6180-42A0-AB88-20F7382DD24C", "Contributor"},
		{"/providers/Microsoft.Authorization/roleDefinitions/7f951dda-4ed3-4680-a7ca-43fe172d538d", "AcrPull"},
		{"/subscriptions/s/providers/Microsoft.Authorization/roleDefinitions/11111111-1111-1111-1111-111111111111", ""},
		{"${ref:custom-role}", ""},
		{"", ""},
	} {
		if got := BuiltinRoleName(tc.in); got != tc.want {
			t.Errorf("BuiltinRoleName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
