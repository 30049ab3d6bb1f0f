package printer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// WriteDiffTrees writes the plan as two directories for an external diff
// program (KUBECTL_EXTERNAL_DIFF, as kubectl diff does): one YAML file per
// resource with something to do, named TYPE_NAME.yaml, holding each changed
// path and its value, in liveDir as Azure (or state) has it and in
// mergedDir as the apply would leave it. A created resource has no live
// file and a deleted one no merged file. Values go through the same
// sanitising as every other format, so secrets show as (sensitive);
// secrets is the run's registry.
func WriteDiffTrees(liveDir, mergedDir string, p *plan.Plan, secrets *secret.Registry) error {
	safe := sanitize(p, Options{Output: OutputYAML, Secrets: secrets})
	seen := map[string]int{}
	for _, r := range safe.Resources {
		if isNoOp(r.Action) && len(r.Changes) == 0 {
			continue
		}
		name := diffFileName(secrets, DisplayName(r.ID, r.Type))
		if n := seen[name]; n > 0 {
			name = fmt.Sprintf("%s_%d", name, n+1)
		}
		seen[name]++
		live, merged := map[string]any{}, map[string]any{}
		for _, c := range r.Changes {
			key := c.Path
			if key == "" {
				key = "(resource)"
			}
			if c.Kind != plan.KindAdd && r.Action != plan.ActionCreate {
				live[key] = c.Before
			}
			if c.Kind != plan.KindRemove && r.Action != plan.ActionDelete {
				merged[key] = c.After
			}
		}
		head := map[string]any{"id": r.ID, "type": r.Type, "apiVersion": r.APIVersion, "action": string(r.Action)}
		if r.Action != plan.ActionCreate {
			if err := writeDiffFile(filepath.Join(liveDir, name+".yaml"), head, live); err != nil {
				return err
			}
		}
		if r.Action != plan.ActionDelete {
			if err := writeDiffFile(filepath.Join(mergedDir, name+".yaml"), head, merged); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeDiffFile(path string, head, values map[string]any) error {
	doc := map[string]any{}
	for k, v := range head {
		doc[k] = v
	}
	doc["values"] = values
	b, err := yaml.Marshal(doc)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", filepath.Base(path), err)
	}
	return os.WriteFile(path, b, 0o600)
}

// diffFileName turns TYPE/NAME into one safe file name.
func diffFileName(secrets *secret.Registry, s string) string {
	s = CleanLine(secrets, s)
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			return r
		}
		return '_'
	}, s)
}
