package apiversion

import "testing"

func TestNearest(t *testing.T) {
	known := []string{"2021-01-01", "2021-01-05", "2022-01-01", "2023-01-01", "2023-06-01-preview"}
	for _, c := range []struct {
		known     []string
		want, got string
	}{
		{known, "2022-01-01", "2022-01-01"},
		{known, "2023-06-01-PREVIEW", "2023-06-01-preview"}, // exact, in any case
		{known, "2022-07-03", "2023-01-01"},                 // closer to 2023
		{known, "2022-07-02", "2022-01-01"},                 // 182 days back beats 183 ahead
		{known, "2021-01-03", "2021-01-05"},                 // a tie goes to the newer
		{known, "2030-01-01", "2023-06-01-preview"},
		{known, "garbage", "2023-06-01-preview"}, // no date: the last
		{known, "", "2023-06-01-preview"},
		{[]string{"v1", "v2"}, "2022-01-01", "v2"},
		{nil, "2022-01-01", ""},
	} {
		if got := Nearest(c.known, c.want); got != c.got {
			t.Errorf("Nearest(%q, %q) = %q, want %q", c.known, c.want, got, c.got)
		}
	}
}

func TestDate(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{
		{"2021-06-01-preview", true},
		{"2021-06-01", true},
		{"2021-13-01", false},
		{"2021-06", false},
		{"latest", false},
	} {
		d, ok := Date(c.in)
		if ok != c.ok || (ok && d.Format("2006-01-02") != c.in[:10]) {
			t.Errorf("Date(%q) = %v %v, want ok %v", c.in, d, ok, c.ok)
		}
	}
}
