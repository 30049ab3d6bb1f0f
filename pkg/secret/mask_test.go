package secret

import "testing"

func TestMasked(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"", false}, // nothing is hidden
		{"*", true},
		{"*****", true},
		{"**a**", false},
		{"secret", false},
		{" ***", false},
	}
	for _, tt := range tests {
		if got := Masked(tt.s); got != tt.want {
			t.Errorf("Masked(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}
