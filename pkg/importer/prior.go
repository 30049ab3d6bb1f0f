package importer

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// A resource already recorded in state may hold values its manifest read
// from valueFrom (a tag from the environment, a template): the record keeps
// them hashed, and nothing else says they are secret. Import must not undo
// that by printing them or recording them in clear, so every path the old
// record hashes stays secret in the new manifest and record.

// priorSecrets fills each resource's prior secret patterns from the
// record im.State holds for it, if any.
func (im *Importer) priorSecrets(ctx context.Context, rs []*Resource) error {
	if im.State == nil {
		return nil
	}
	for _, r := range rs {
		rec, err := im.State.Get(ctx, r.ID)
		if errors.Is(err, state.ErrNotFound) || rec == nil {
			continue
		}
		if err != nil {
			return fmt.Errorf("reading the state record of %s (to keep its secrets secret): %w; check the state backend, or pass --no-state", r.ID, err)
		}
		r.prior = hashedPatterns(rec)
	}
	return nil
}

// hashedPatterns lists, as secret.Rule patterns, the paths where a record's
// L or B holds a hashed secret. Array positions become [*]: ARM may return
// the items in another order, and hiding a value too many is safe where one
// too few is not.
func hashedPatterns(rec *state.Record) []string {
	seen := map[string]bool{}
	for _, body := range []map[string]any{rec.LastApplied, rec.Baseline} {
		for k, v := range body {
			if k == diff.WholeCollectionsKey {
				continue // B's bookkeeping, not a body member
			}
			bodypath.Leaves(v, func(p bodypath.Path, v any) {
				if !secret.IsHash(v) {
					return
				}
				pat := make(bodypath.Path, 0, len(p)+1)
				pat = append(pat, bodypath.Field(k))
				for _, s := range p {
					if s.IsItem() {
						s = bodypath.Seg{Kind: bodypath.AnyItem}
					}
					pat = append(pat, s)
				}
				seen[pat.String()] = true
			})
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// clearAt lists the concrete paths of body's values that patterns cover:
// the values a manifest holds in clear although state hashed them.
func clearAt(body map[string]any, patterns []string) []string {
	if len(patterns) == 0 {
		return nil
	}
	rule := secret.For("", "", nil, patterns...)
	var out []string
	bodypath.Leaves(body, func(p bodypath.Path, v any) {
		if v != nil && !secret.IsHash(v) && rule.Covered(p) {
			out = append(out, p.String())
		}
	})
	sort.Strings(out)
	return out
}

// without returns the patterns of all that are not in known.
func without(all, known []string) []string {
	k := make(map[string]bool, len(known))
	for _, p := range known {
		k[p] = true
	}
	var out []string
	for _, p := range all {
		if !k[p] {
			out = append(out, p)
		}
	}
	return out
}
