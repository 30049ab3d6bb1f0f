package importer

import (
	"reflect"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// TestHashedPatterns: every hashed leaf of L or B becomes a pattern; array
// positions become [*] (ARM may reorder items); B's $collections and clear
// values are not patterns.
func TestHashedPatterns(t *testing.T) {
	h := secret.HashPrefix + "AAAA"
	rec := &state.Record{
		LastApplied: map[string]any{
			"tags": map[string]any{"owner": h, "team": "platform", "a.b": h},
			"properties": map[string]any{"rules": []any{
				map[string]any{"name": "r1", "value": "clear"},
				map[string]any{"name": "r2", "value": h},
			}},
		},
		Baseline: map[string]any{
			"$collections": map[string]any{"tags.*": map[string]any{"keys": []any{"owner"}}},
			"tags":         map[string]any{"owner": h},
			"properties":   map[string]any{"x": map[string]any{"y": h}},
		},
	}
	got := hashedPatterns(rec)
	want := []string{"properties.rules[*].value", "properties.x.y", `tags."a.b"`, "tags.owner"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("hashedPatterns = %q, want %q", got, want)
	}
	body := map[string]any{"tags": map[string]any{"owner": "s3cret", "team": "platform"},
		"properties": map[string]any{"rules": []any{map[string]any{"name": "r2", "value": "v"}}}}
	if got, want := clearAt(body, got), []string{"properties.rules[0].value", "tags.owner"}; !reflect.DeepEqual(got, want) {
		t.Errorf("clearAt = %q, want %q", got, want)
	}
}
