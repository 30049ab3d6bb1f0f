package secret

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestScrubHidesFragments: ARM quotes only the start of a long value (a
// tag value over 256 characters is quoted to its 40th, then "…"), so a
// stretch of a registered secret of minFragment bytes or more is hidden
// too, plain or JSON-escaped; shorter stretches and ordinary words stay.
func TestScrubHidesFragments(t *testing.T) {
	long := "Kx9TOPSECRET" + strings.Repeat("k", 300)
	conn := "DefaultEndpointsProtocol=https;AccountName=st1;AccountKey=" + long
	odd := `pw"with/quote\and-more-stuff-0123456789`
	tmpl := "Server=tcp:sql1;Password=" + long // a valueFrom.template result
	quote := func(v string) string { return "Following tag value '" + v[:40] + "…' exceeded the maximum length." }
	cases := []struct {
		name    string
		in      string
		hidden  []string
		visible []string
	}{
		{"start of a long secret", quote(long), []string{"Kx9TOPSECRETk"}, []string{"Following tag value '", "…' exceeded"}},
		{"start of a template's result", quote(tmpl), []string{"Password=Kx9", "Server=tcp:sql1;Pa"}, []string{"Following tag value '"}},
		{"JSON-escaped twice", mustQuote(mustQuote(quote(long))), []string{"Kx9TOPSECRETk"}, []string{"Following tag value"}},
		{"a stretch inside the secret", "value ..." + long[5:60] + "... refused", []string{"SECRETkkkkkkkk"}, []string{"value ...", "... refused"}},
		{"escapes inside the stretch", mustQuote(mustQuote("bad '" + odd[:30] + "…'")), []string{"pw", "with", "quote", "and-more"}, []string{"bad '"}},
		{"a credential name after the stretch stays", "DefaultEndpointsProtocol=https;AccountName=st1;AccountKey=b3RoZXIta2V5", []string{"AccountName=st1"}, []string{"AccountKey=b3RoZXIta2V5"}},
		{"too short to tell", "id Kx9TOPSECR here", nil, []string{"Kx9TOPSECR"}},
		{"ordinary words", "the Server is ready", nil, []string{"Server is ready"}},
	}
	r := NewRegistry()
	r.Register(long, tmpl, odd, conn)
	for _, tt := range cases {
		got := r.Scrub(tt.in)
		for _, h := range tt.hidden {
			if strings.Contains(got, h) {
				t.Errorf("%s: shows %q: %s", tt.name, h, got)
			}
		}
		for _, v := range tt.visible {
			if !strings.Contains(got, v) {
				t.Errorf("%s: lost %q: %s", tt.name, v, got)
			}
		}
		if len(tt.hidden) > 0 && !strings.Contains(got, Placeholder) {
			t.Errorf("%s: no placeholder: %s", tt.name, got)
		}
	}
}

func mustQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// BenchmarkScrub measures scrubbing an ordinary log line (no secret in
// it) and one quoting the start of a secret, with a run's worth of
// registered values.
func BenchmarkScrub(b *testing.B) {
	r := NewRegistry()
	for i := 0; i < 20; i++ {
		r.Register(fmt.Sprintf("registered-secret-value-%02d-%s", i, strings.Repeat("z", 40+i)))
	}
	long := "Kx9TOPSECRET" + strings.Repeat("k", 300)
	r.Register(long)
	line := `PUT https://management.azure.com/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg1/providers/Microsoft.Storage/storageAccounts/st1?api-version=2023-05-01 200 OK 120ms
  request body: {"location":"westeurope","properties":{"minimumTlsVersion":"TLS1_2","supportsHttpsTrafficOnly":true},"sku":{"name":"Standard_LRS"},"tags":{"env":"prod","owner":"team-a"}}
`
	escaped := mustQuote(line)
	leak := "Following tag value '" + long[:40] + "…' exceeded the maximum length."
	for _, bc := range []struct{ name, s string }{{"clean", line}, {"escaped", escaped}, {"fragment", leak}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.s)))
			for i := 0; i < b.N; i++ {
				r.Scrub(bc.s)
			}
		})
	}
	// The two passes apart: whole values, then stretches (see minFragment).
	ls, ss, frag := r.entries()
	b.Run("whole-only", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		for i := 0; i < b.N; i++ {
			scrubWhole(line, ls, ss)
		}
	})
	b.Run("stretches-only", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		for i := 0; i < b.N; i++ {
			frag.scrub(line)
		}
	})
}

// FuzzScrubFragments: whatever the text, scrubbing does not panic and
// leaves no plain stretch of minFragment bytes of a registered value.
func FuzzScrubFragments(f *testing.F) {
	vals := []string{`pw"with/quote\and-more-stuff-0123456789`, "Kx9TOPSECRET" + strings.Repeat("k", 40), "DefaultEndpointsProtocol=https;AccountName=st1;AccountKey=QUJD"}
	for _, v := range vals {
		f.Add("x '" + v[:20] + "…'")
		f.Add(mustQuote(v[3:]))
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := NewRegistry()
		r.Register(vals...)
		got := r.Scrub(s)
		for _, v := range vals {
			for i := 0; i+minFragment <= len(v); i++ {
				// A stretch ending in ";name=" leaves the name (keepLabel).
				if w := v[i : i+minFragment]; strings.Contains(got, w) && !strings.ContainsAny(w, ";=") {
					t.Fatalf("%q shows %q: %q", s, w, got)
				}
			}
		}
	})
}

// TestLayeredRegistriesHideFragments: a child registry hides stretches of
// its parents' values, including one registered after it was first used.
func TestLayeredRegistriesHideFragments(t *testing.T) {
	parent := NewRegistry()
	child := NewRegistry(parent)
	child.Register("child-only-secret-value-77")
	first := "parentFirstSecretValue-0123456789"
	parent.Register(first)
	if got := child.Scrub("a '" + first[:20] + "…'"); strings.Contains(got, "parentFirst") {
		t.Errorf("the child shows its parent's secret: %s", got)
	}
	later := "parentLaterSecretValue-9876543210"
	parent.Register(later)
	if got := child.Scrub("b '" + later[:20] + "…'"); strings.Contains(got, "parentLater") {
		t.Errorf("the child shows a value its parent registered later: %s", got)
	}
	if got := parent.Scrub("c child-only-secret-v"); !strings.Contains(got, "child-only") {
		t.Errorf("the parent hides its child's value: %s", got)
	}
}
