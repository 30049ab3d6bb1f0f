package reconcile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/kubectl-azure/kubectl-azure/internal/safefile"
	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// Status is the status file: what the loop last saw of every resource.
// Outside checks read observedAt and resources[].{id,state,lastObserved,
// changes}; the other fields may grow.
type Status struct {
	ObservedAt time.Time        `json:"observedAt"`
	Policy     string           `json:"policy"`
	Set        string           `json:"set,omitempty"`
	Source     SourceStatus     `json:"source"`
	Resources  []ResourceStatus `json:"resources"`
	Leader     *bool            `json:"leader,omitempty"`
}

// InSync reports whether every observed resource is in sync: what
// `controller status` exits 0 on.
func (s *Status) InSync() bool {
	for _, r := range s.Resources {
		if r.State != StateInSync {
			return false
		}
	}
	return true
}

// SourceStatus says which manifest set is observed and why a newer one
// was refused.
type SourceStatus struct {
	// LoadedAt is when the set being observed was read.
	LoadedAt time.Time `json:"loadedAt"`
	// Resources counts the resources of that set.
	Resources int `json:"resources"`
	// Error is set while the source holds a set that was refused (invalid
	// or empty): the last good one is still observed.
	Error    string    `json:"error,omitempty"`
	Problems []Problem `json:"problems,omitempty"`
}

// Problem is one manifest problem with its place.
type Problem struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

// ResourceStatus is one resource's line in the status file.
type ResourceStatus struct {
	ID           string        `json:"id"`
	State        string        `json:"state"`
	LastObserved time.Time     `json:"lastObserved"`
	Changes      []plan.Change `json:"changes"`
	Policy       string        `json:"policy,omitempty"`
	Message      string        `json:"message,omitempty"`
	// Corrections counts writes that undid drift of this resource.
	Corrections int `json:"corrections,omitempty"`
	// Until is when a contested resource is looked at again.
	Until *time.Time `json:"until,omitempty"`
	// Contest is what contest counting knows of the resource, kept here so
	// a restarted loop of the same set goes on counting instead of
	// correcting a contested path afresh.
	Contest *ContestRecord `json:"contest,omitempty"`
	// StuckManifest is, for an unconvergeable resource, the fingerprint
	// of the manifest the verdict was reached under (secret values left
	// out): a restarted loop leaves the resource alone until it changes.
	StuckManifest string `json:"stuckManifest,omitempty"`
}

// ContestRecord is the recent corrections of a resource and how often it
// was contested.
type ContestRecord struct {
	Corrections []CorrectionRecord `json:"corrections,omitempty"`
	Contested   int                `json:"contested,omitempty"`
}

// CorrectionRecord is one write that undid drift at Paths.
type CorrectionRecord struct {
	At    time.Time `json:"at"`
	Paths []string  `json:"paths"`
}

// WriteStatus replaces path atomically (write a sibling, then rename), so
// a reader never sees half a document.
func WriteStatus(path string, st *Status) error {
	sort.Slice(st.Resources, func(i, j int) bool { return st.Resources[i].ID < st.Resources[j].ID })
	for i := range st.Resources {
		if st.Resources[i].Changes == nil {
			st.Resources[i].Changes = []plan.Change{}
		}
	}
	if st.Resources == nil {
		st.Resources = []ResourceStatus{}
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(path, append(data, '\n'), 0o600) // private, like state
}

// writeAtomic replaces path with data: written beside it, then renamed.
func writeAtomic(path string, data []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err = f.Write(data); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, mode)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// WritePlan saves the plan of a sweep that found drift as a saved plan
// (the format of `diff --out`): `kubectl azure apply PATH` applies it
// only while Azure still holds what the sweep saw.
func WritePlan(path string, p *plan.Plan, src apply.Source) error {
	data, err := json.MarshalIndent(apply.SavedPlan{Plan: *p, Source: src}, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(path, append(data, '\n'), 0o600)
}

// ReadStatus reads a status file (kubectl azure status, tests).
func ReadStatus(path string) (*Status, error) {
	data, err := safefile.ReadFile(path, 1<<30) // never a FIFO or device, never unbounded
	if err != nil {
		return nil, err
	}
	var st Status
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, err
	}
	return &st, nil
}
