package state

import (
	"encoding/json"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// How big a record a backend can keep. The Kubernetes backend keeps one
// record in one ConfigMap, and the API server refuses a ConfigMap whose
// data and binaryData exceed 1 MiB or whose annotations exceed 256 KiB. A
// record found too large only when it is stored, after its write to Azure,
// would leave an intent that no repair could record; so the engine asks
// CheckRecord at plan time, and Put refuses before sending anything.

// Limits the API server enforces on every object (ConfigMap data in
// k8s.io/api/core/v1 validation, annotations in apimachinery's).
const (
	configMapDataMax  = 1 << 20
	annotationsMax    = 256 << 10
	smallRecordMargin = 512 << 10 // raw JSON below this always fits
)

// TooLargeError is a record (or one value of it) the backend cannot store.
// Nothing was written.
type TooLargeError struct {
	ID    string // the resource, when known
	What  string // what is too large: "compressed bodies", "annotations", "JSON in one value"
	Where string // where it would have gone (a ConfigMap), when known
	Size  int    // bytes needed
	Limit int    // bytes allowed
}

func (e *TooLargeError) Error() string {
	s := "state: "
	if e.ID != "" {
		s += "the record of " + armid.Printable(e.ID) + ": "
	}
	s += fmt.Sprintf("it needs %s of %s, more than the %s", kib(e.Size), e.What, kib(e.Limit))
	if e.Where != "" {
		s += " that " + e.Where + " can hold"
	} else {
		s += " allowed"
	}
	return s + "; split the resource's body (e.g. manage large children as their own resources) or keep this set in a local state file"
}

func kib(n int) string { return fmt.Sprintf("%d KiB", (n+1023)>>10) }

// IsTooLarge reports a *TooLargeError.
func IsTooLarge(err error) bool {
	var te *TooLargeError
	return errors.As(err, &te)
}

// RecordChecker is implemented by backends that limit a record's size.
type RecordChecker interface {
	// CheckRecord returns a *TooLargeError when r could not be stored
	// together with an intent to write its LastApplied again (what a
	// resource's ConfigMap holds at most during a run).
	CheckRecord(r *Record) error
}

// CheckFits tells whether st can keep the record a write of desired would
// leave: L is desired, and B, not known before the write, is taken as the
// larger of desired and live projected on desired's paths. Nil when the
// backend has no limit.
func CheckFits(st Store, id string, desired, live map[string]any) error {
	rc, ok := st.(RecordChecker)
	if !ok || desired == nil {
		return nil
	}
	b := desired
	if p := ProjectOwned(live, desired); p != nil && jsonSize(p) > jsonSize(desired) {
		b = p // live holds more on the owned paths (whole arrays, say)
	}
	return rc.CheckRecord(&Record{ID: id, LastApplied: desired, Baseline: b})
}

// CheckRecord encodes r as Put would, with an intent carrying r's
// LastApplied beside it, and measures the ConfigMap.
func (s *kubeStore) CheckRecord(r *Record) error {
	intent := Intent{ID: r.ID, Op: OpPut, Record: &Record{ID: r.ID, LastApplied: r.LastApplied}}
	if jsonSize(r.LastApplied)*2+jsonSize(r.Baseline) < smallRecordMargin {
		return nil // fits whatever compression does: no need to encode
	}
	cm := &corev1.ConfigMap{ObjectMeta: s.objectMeta(ConfigMapName(s.set, r.ID))}
	cm.Annotations = map[string]string{AnnID: r.ID}
	for _, v := range []struct {
		ann string
		val any
	}{{AnnLastApplied, r.LastApplied}, {AnnBaseline, r.Baseline}, {AnnIntent, intent}} {
		if err := s.setValue(cm, v.ann, v.val, false); err != nil {
			if IsTooLarge(err) {
				return withID(err, r.ID)
			}
			return nil // not a question of size: Put reports it
		}
	}
	return withID(checkConfigMap(cm), r.ID)
}

// checkConfigMap refuses a ConfigMap the API server would refuse for its
// size, naming it.
func checkConfigMap(cm *corev1.ConfigMap) error {
	data := 0
	for k, v := range cm.Data {
		data += len(k) + len(v)
	}
	for k, v := range cm.BinaryData {
		data += len(k) + len(v)
	}
	if data > configMapDataMax {
		return &TooLargeError{ID: cm.Annotations[AnnID], What: "compressed bodies", Where: "ConfigMap " + cm.Name, Size: data, Limit: configMapDataMax}
	}
	ann := 0
	for k, v := range cm.Annotations {
		ann += len(k) + len(v)
	}
	if ann > annotationsMax {
		return &TooLargeError{ID: cm.Annotations[AnnID], What: "annotations", Where: "ConfigMap " + cm.Name, Size: ann, Limit: annotationsMax}
	}
	return nil
}

// withID names the resource in a *TooLargeError that lacks it.
func withID(err error, id string) error {
	var te *TooLargeError
	if errors.As(err, &te) && te.ID == "" {
		c := *te
		c.ID = id
		return &c
	}
	return err
}

func jsonSize(v any) int {
	b, _ := json.Marshal(v)
	return len(b)
}
