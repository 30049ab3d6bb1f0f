package apply

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"

	"github.com/kubectl-azure/kubectl-azure/internal/safefile"
	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// Source records how a saved plan's manifests were loaded, so `apply
// plan.json` can load them again: secret values are never written into a
// plan file, they are resolved again from their env or Secret sources.
type Source struct {
	Filenames    []string `json:"filenames,omitempty"`
	Recursive    bool     `json:"recursive,omitempty"`
	Kustomize    string   `json:"kustomize,omitempty"`
	Selector     string   `json:"selector,omitempty"`
	Subscription string   `json:"subscription,omitempty"`
	State        string   `json:"state,omitempty"`
	Prune        bool     `json:"prune,omitempty"`
	AllowReplace bool     `json:"allowReplace,omitempty"`
	// Replace holds the IDs --replace named when the plan was made.
	Replace []string `json:"replace,omitempty"`
	Adopt   bool     `json:"adopt,omitempty"`
}

// SavedPlan is the file `diff --out` writes: the JSON plan (docs/plan-format.md)
// plus its source.
type SavedPlan struct {
	plan.Plan
	Source Source `json:"source"`
}

// WriteSaved writes a saved plan with mode 0600 (it names resources and values).
func WriteSaved(path string, p *plan.Plan, src Source) error {
	data, err := json.MarshalIndent(SavedPlan{Plan: *p, Source: src}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o600)
}

// maxSavedPlanBytes bounds what ReadSaved reads: a plan of 10,000
// resources is a few tens of MB.
const maxSavedPlanBytes = 1 << 30

// ReadSaved reads a saved plan. Numbers stay exact (json.Number): a value
// the plan shows is the value compared and written, never a float64
// rounding of it.
func ReadSaved(path string) (*SavedPlan, error) {
	fh, err := safefile.Open(path) // a FIFO or device would block or never end
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxSavedPlanBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxSavedPlanBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes: it is not a saved plan", path, maxSavedPlanBytes)
	}
	var sp SavedPlan
	if err := decodeExact(data, &sp); err != nil {
		return nil, fmt.Errorf("%s is not a saved plan: %w", path, err)
	}
	if sp.FormatVersion != plan.FormatVersion {
		return nil, fmt.Errorf("%s has plan format %q; this kubectl-azure reads %q: make the plan again with this version", path, sp.FormatVersion, plan.FormatVersion)
	}
	return &sp, nil
}

// Matches reports how a fresh plan differs from a saved one: every resource
// must have the same action, method, changes and pinned live state. An empty
// result means applying fresh applies exactly the saved plan.
func Matches(saved, fresh *plan.Plan) []string {
	var diffs []string
	fr := map[string]plan.Resource{}
	for _, r := range fresh.Resources {
		fr[armid.Key(r.ID)] = r
	}
	seen := map[string]bool{}
	for _, s := range saved.Resources {
		k := armid.Key(s.ID)
		seen[k] = true
		f, ok := fr[k]
		if !ok {
			diffs = append(diffs, s.ID+": no longer in the manifests")
			continue
		}
		switch {
		case s.Action != f.Action:
			diffs = append(diffs, fmt.Sprintf("%s: action is now %s, was %s", s.ID, f.Action, s.Action))
		case s.Method != f.Method:
			diffs = append(diffs, fmt.Sprintf("%s: method is now %s, was %s", s.ID, f.Method, s.Method))
		case s.Action != plan.ActionNoOp && (s.LiveHash != f.LiveHash || s.LiveEtag != f.LiveEtag):
			// Pinned for what the plan writes: a resource left alone may
			// be read another way (a list's envelope) the second time.
			diffs = append(diffs, s.ID+": changed in Azure since the plan was made")
		case !sameChanges(s.Changes, f.Changes):
			diffs = append(diffs, s.ID+": the changes differ from the saved plan")
		}
	}
	for _, r := range fresh.Resources {
		if !seen[armid.Key(r.ID)] {
			diffs = append(diffs, r.ID+": not in the saved plan")
		}
	}
	return diffs
}

// sameChanges compares through JSON text, numbers exact: a saved
// 12345678901234567000 never equals a fresh 12345678901234567999, as
// float64 would have it.
func sameChanges(a, b []plan.Change) bool {
	ja, erra := json.Marshal(a)
	jb, errb := json.Marshal(b)
	if erra != nil || errb != nil {
		return false
	}
	var x, y any
	if decodeExact(ja, &x) != nil || decodeExact(jb, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// decodeExact is json.Unmarshal with numbers kept as json.Number.
func decodeExact(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("trailing data after the plan")
	}
	return nil
}
