package plugins

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Support ticket communications: the body is answered wrapped in <pre>,
// the subject truncated with "..." and a " - TrackingID#n" suffix.
// Evidence:
// azure-cli-extensions:src/support/azext_support/tests/latest/recordings/test_support_tickets.yaml#5.
func supportPlugins(b *builder) {
	b.addHooks("Microsoft.Support/supportTickets/communications", &diff.Funcs{BeforeCompareFn: supportSubject, R: diff.Rules{Normalizers: map[schema.Path]diff.Normalizer{
		"properties.body": func(v any) any {
			if s, ok := v.(string); ok {
				return strings.TrimSuffix(strings.TrimPrefix(s, "<pre>"), "</pre>")
			}
			return v
		},
	}}}, "properties.subject")
}

// supportSubject replaces live's decorated subject with the desired one
// when it is exactly the desired subject truncated and tagged.
func supportSubject(d, s map[string]any) (map[string]any, map[string]any) {
	dp, _ := d["properties"].(map[string]any)
	sp, _ := s["properties"].(map[string]any)
	want, _ := dp["subject"].(string)
	got, _ := sp["subject"].(string)
	if want == "" || got == "" {
		return d, s
	}
	if i := strings.Index(got, " - TrackingID#"); i >= 0 {
		got = got[:i]
	}
	if strings.HasSuffix(got, "...") {
		got = strings.TrimSuffix(got, "...")
		if strings.HasPrefix(want, got) {
			got = want
		}
	}
	sp["subject"] = got
	return d, s
}
