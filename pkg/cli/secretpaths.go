package cli

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// runSecretPaths answers a one-shot command's ARM client SensitivePaths:
// per type, the body paths set's manifests fill from valueFrom (or from a
// secret elsewhere), and the paths the schema marks secret or write-only
// at the request's api-version. A value Azure holds there now (changed in
// Azure since) was never registered as secret, so only its path can hide
// it in a -v 8 body log. Paths of every resource of a type count for all
// of them: a log errs on the side of hiding. set may be nil.
func runSecretPaths(reg *schema.Registry, set *manifest.Set) func(typ, apiVersion string) []string {
	byType := map[string][]string{}
	if set != nil {
		for _, r := range set.Resources {
			t := strings.ToLower(r.Type)
			byType[t] = append(byType[t], apply.SecretPaths(r)...)
		}
	}
	return func(typ, apiVersion string) []string {
		own := byType[strings.ToLower(typ)]
		return append(append([]string(nil), own...), schemaSecretPaths(reg, typ, apiVersion)...)
	}
}

// schemaSecretPaths lists the schema's secret and write-only properties of
// a type as body-path patterns ("properties.secrets[*].value", "tags.*").
func schemaSecretPaths(reg *schema.Registry, typ, apiVersion string) []string {
	if reg == nil {
		return nil
	}
	t, _ := reg.Lookup(typ, apiVersion)
	if t == nil {
		return nil
	}
	var out []string
	for p, prop := range t.Properties {
		if prop != nil && (prop.Secret || prop.WriteOnly) {
			// Schema paths write "every item" as [], patterns as [*].
			out = append(out, strings.ReplaceAll(p, "[]", "[*]"))
		}
	}
	return out
}

// stateSecretRule gives the store the rule a record is hashed by, built
// from the schema of its type and api-version as the plan's. The registry
// is opened on the first record stored; a bad --schema-dir fails the
// command elsewhere, and the store then keeps its rule without a schema.
func stateSecretRule(schemas func() (*schema.Registry, error)) func(r *state.Record) *secret.Rule {
	return func(r *state.Record) *secret.Rule {
		reg, err := schemas()
		if err != nil {
			return nil
		}
		t, _ := reg.Lookup(r.Type, r.APIVersion)
		return diff.SecretRule(r.ID, t)
	}
}
