package schema

import (
	"strings"
	"testing"
)

func TestSuggestVersions(t *testing.T) {
	known := []string{"2021-04-01", "2022-09-01", "2023-01-01", "2023-05-01", "2024-01-01-preview"}
	for _, tt := range []struct {
		want string
		n    int
		out  string
	}{
		{"2023-05-02", 1, "2023-05-01"},
		{"2023-04-01", 2, "2023-05-01,2023-01-01"},
		{"2023-5-01", 1, "2023-05-01"},
		{"20230501", 1, "2023-05-01"},
		{"latest", 1, "2023-05-01"},
		{"2022", 1, "2022-09-01"},
	} {
		if got := strings.Join(SuggestVersions(known, tt.want, tt.n), ","); got != tt.out {
			t.Errorf("SuggestVersions(%q) = %s, want %s", tt.want, got, tt.out)
		}
	}
}
