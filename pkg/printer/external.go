package printer

import (
	"crypto/sha256"
	"encoding/hex"
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
// resource with something to do, named GROUP_TYPE_NAME.yaml (TYPE_NAME.yaml
// outside a resource group), holding each changed
// path and its value, in liveDir as Azure (or state) has it and in
// mergedDir as the apply would leave it. A created resource has no live
// file and a deleted one no merged file. Values go through the same
// sanitising as every other format, so secrets show as (sensitive);
// secrets is the run's registry.
func WriteDiffTrees(liveDir, mergedDir string, p *plan.Plan, secrets *secret.Registry) error {
	safe := sanitize(p, Options{Output: OutputYAML, Secrets: secrets})
	names := diffNames{}
	for _, r := range safe.Resources {
		if isNoOp(r.Action) && len(r.Changes) == 0 {
			continue
		}
		name := names.take(secrets, r.ID, r.Type)
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

// diffNames hands out one distinct file name per resource. Names are
// compared case-insensitively, as macOS and Windows file systems compare
// them: two resources must never share a file, or one change would never
// reach the reviewer.
type diffNames map[string]bool

func (n diffNames) take(secrets *secret.Registry, id, typ string) string {
	base := diffFileName(secrets, DisplayName(id, typ))
	if g := groupOf(id); g != "" && !strings.EqualFold(typ, "Microsoft.Resources/resourceGroups") {
		base = diffFileName(secrets, g) + "_" + base
	}
	name := base
	if n[strings.ToLower(name)] {
		// The same group, type and name in another subscription, or names
		// that differ only in case or in characters the file name drops.
		sum := sha256.Sum256([]byte(strings.ToLower(id)))
		base += "_" + hex.EncodeToString(sum[:4])
		name = base
		for i := 2; n[strings.ToLower(name)]; i++ {
			name = fmt.Sprintf("%s_%d", base, i)
		}
	}
	n[strings.ToLower(name)] = true
	return name
}

// groupOf is the resource group an ARM ID lies in, or "".
func groupOf(id string) string {
	segs := strings.Split(strings.Trim(id, "/"), "/")
	for i := 0; i+1 < len(segs); i++ {
		if strings.EqualFold(segs[i], "resourceGroups") {
			return segs[i+1]
		}
	}
	return ""
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
