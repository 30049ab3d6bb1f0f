package reconcile

// The finalizer of Resource objects: added to every object the status
// pass sees, removed once the object's deletion policy is carried out
// (deletion.go). A refusal keeps it, says why in the status (Stalled) and
// in an Event, and is tried again when the object changes, or after a
// back-off.

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

// Reasons of a deleted object's conditions and Events.
const (
	ReasonDeleting        = "Deleting"
	ReasonDeletionRefused = "DeletionRefused"
	EventDeleted          = "Deleted"
	EventOrphaned         = "Orphaned"
	// deletionRetry bounds the back-off of a refused or failed deletion
	// of an object that does not change.
	deletionRetryBase = 10 * time.Second
	deletionRetryMax  = 5 * time.Minute
)

// deletionTry is what the pass remembers of one object's deletion.
type deletionTry struct {
	rv      string // the object's resourceVersion at the last try
	next    time.Time
	backoff time.Duration
	verdict string // reason and message last reported
}

// due: try again now (the object changed, or the back-off is over).
func (d *deletionTry) due(rv string, now time.Time) bool {
	return d.rv != rv || !now.Before(d.next)
}

// failed spaces the next try of an object that does not change.
func (d *deletionTry) failed(rv string, now time.Time) {
	d.rv = rv
	d.backoff = min(max(2*d.backoff, deletionRetryBase), deletionRetryMax)
	d.next = now.Add(d.backoff)
}

func hasFinalizer(o *unstructured.Unstructured) bool {
	return slices.Contains(o.GetFinalizers(), Finalizer)
}

// ensureFinalizer adds the finalizer to o: from now on deleting o waits
// for its deletion policy.
func (k *KubeStatus) ensureFinalizer(ctx context.Context, o *unstructured.Unstructured) error {
	if hasFinalizer(o) {
		return nil
	}
	return k.setFinalizers(ctx, o, append(slices.Clone(o.GetFinalizers()), Finalizer))
}

// setFinalizers replaces o's finalizers, if o has not changed since it was
// read (resourceVersion): another controller's finalizer is never lost.
func (k *KubeStatus) setFinalizers(ctx context.Context, o *unstructured.Unstructured, fs []string) error {
	var list any = fs
	if len(fs) == 0 {
		list = nil
	}
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"finalizers": list, "resourceVersion": o.GetResourceVersion()}})
	if err != nil {
		return err
	}
	_, err = k.Client.Resource(ResourceGVR).Namespace(o.GetNamespace()).Patch(ctx, o.GetName(), types.MergePatchType, body, metaPatchOptions)
	return err
}

// finalize carries out the deletion policy of o, deleted and waiting for
// this controller's finalizer.
func (k *KubeStatus) finalize(ctx context.Context, o *unstructured.Unstructured) error {
	if !k.Controller.running() {
		return nil
	}
	name, rv, now := o.GetName(), o.GetResourceVersion(), k.now()
	k.mu.Lock()
	if k.deletions == nil {
		k.deletions = map[string]*deletionTry{}
	}
	try := k.deletions[name]
	if try == nil {
		try = &deletionTry{}
		k.deletions[name] = try
	}
	k.mu.Unlock()
	if !try.due(rv, now) {
		return nil
	}
	leftOut, id, loadErr := k.Source.Deletable(name)
	if id == "" {
		id = currentStatus(o).ID
	}
	policy := o.GetAnnotations()[AnnotationDeletionPolicy]
	switch {
	case ValidateDeletionPolicy(policy) != nil:
		try.failed(rv, now)
		return k.deletionVerdict(ctx, o, try, ReasonInvalid, "metadata.annotations."+AnnotationDeletionPolicy+": "+ValidateDeletionPolicy(policy).Error()+"; nothing was deleted or forgotten", true)
	case !leftOut:
		return k.deletionVerdict(ctx, o, try, ReasonDeleting, "waiting for the manifests to be read without this object", false)
	case policy != DeletionDelete:
		if id != "" {
			if err := k.Controller.Forget(ctx, id); err != nil {
				try.failed(rv, now)
				return k.deletionVerdict(ctx, o, try, ReasonRetrying, "forgetting "+id+" from state failed (retrying): "+oneLine(err), false)
			}
		}
		k.objectEvent(ctx, o, EventOrphaned, "deleted with deletion policy orphan: "+orText(id, "its resource")+" is forgotten from state and left in Azure as it is", false)
		return k.finalized(ctx, o)
	case loadErr != nil:
		try.failed(rv, now)
		return k.deletionVerdict(ctx, o, try, ReasonWaitingForSet, "not deleted yet: the other manifests do not load without this object: "+oneLine(loadErr), false)
	case id == "":
		k.objectEvent(ctx, o, EventDeleted, "nothing to delete: the controller never applied this object's resource", false)
		return k.finalized(ctx, o)
	}
	deleted, err := k.Controller.Destroy(ctx, id, o.GetAnnotations()[manifest.AnnotationPreventDestroy] == "true")
	var refused *RefusedError
	switch {
	case errors.As(err, &refused):
		try.failed(rv, now)
		return k.deletionVerdict(ctx, o, try, ReasonDeletionRefused, refused.Reason, true)
	case err != nil:
		try.failed(rv, now)
		return k.deletionVerdict(ctx, o, try, ReasonRetrying, "deleting "+id+" failed (retrying with back-off): "+oneLine(err), false)
	case deleted:
		k.objectEvent(ctx, o, EventDeleted, "deleted "+id+" in Azure (deletion policy delete)", false)
	default:
		k.objectEvent(ctx, o, EventDeleted, id+" was already gone from Azure or never applied by this tool: nothing deleted", false)
	}
	return k.finalized(ctx, o)
}

// finalized removes the finalizer: the object goes.
func (k *KubeStatus) finalized(ctx context.Context, o *unstructured.Unstructured) error {
	rest := slices.DeleteFunc(slices.Clone(o.GetFinalizers()), func(f string) bool { return f == Finalizer })
	if err := k.setFinalizers(ctx, o, rest); err != nil {
		return err
	}
	k.Source.Forgotten(o.GetName())
	k.mu.Lock()
	delete(k.deletions, o.GetName())
	delete(k.written, o.GetName())
	for _, d := range k.deletions {
		// What refused the others (a child, a lock) may have gone with it.
		d.next = time.Time{}
	}
	k.mu.Unlock()
	return nil
}

// deletionVerdict writes the status of a deleted object that stays, and
// posts an Event when the verdict is new (warning: a person must act).
func (k *KubeStatus) deletionVerdict(ctx context.Context, o *unstructured.Unstructured, try *deletionTry, reason, msg string, stalled bool) error {
	if k.Secrets != nil {
		msg = k.Secrets.Scrub(msg)
	}
	prev := currentStatus(o)
	v := verdict{gen: o.GetGeneration(), now: k.now().UTC().Format(time.RFC3339)}
	st := ObjectStatus{ObservedGeneration: o.GetGeneration(), ID: prev.ID, ProvisioningState: prev.ProvisioningState, LastApplied: prev.LastApplied, LastObserved: prev.LastObserved, Outputs: prev.Outputs}
	if stalled {
		st.Conditions = v.stalled(reason, msg)
	} else {
		st.Conditions = v.reconciling(reason, msg)
	}
	keepTransitions(&st, prev)
	if try.verdict != reason+"\x00"+msg && (stalled || reason == ReasonRetrying) {
		k.objectEvent(ctx, o, reason, msg, true)
	}
	try.verdict = reason + "\x00" + msg
	if statusHash(st) == statusHash(prev) {
		return nil
	}
	return k.patchStatus(ctx, o, st, statusHash(st))
}

// eventGVR is core/v1 Events, posted through the dynamic client the
// status pass already has.
var eventGVR = schema.GroupVersionResource{Version: "v1", Resource: "events"}

// objectEvent posts an Event on o; a failure is only reported.
func (k *KubeStatus) objectEvent(ctx context.Context, o *unstructured.Unstructured, reason, msg string, warning bool) {
	if k.Secrets != nil {
		msg = k.Secrets.Scrub(msg)
	}
	if len(msg) > maxEventMessage {
		msg = msg[:maxEventMessage-3] + "..."
	}
	typ := "Normal"
	if warning {
		typ = "Warning"
	}
	now := metav1.NewTime(k.now()).UTC().Format(time.RFC3339)
	ev := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Event",
		"metadata": map[string]any{"generateName": o.GetName() + ".", "namespace": o.GetNamespace()},
		"involvedObject": map[string]any{"apiVersion": o.GetAPIVersion(), "kind": o.GetKind(), "namespace": o.GetNamespace(),
			"name": o.GetName(), "uid": string(o.GetUID()), "resourceVersion": o.GetResourceVersion()},
		"reason": reason, "message": msg, "type": typ,
		"source":         map[string]any{"component": eventComponent},
		"firstTimestamp": now, "lastTimestamp": now, "count": int64(1),
		"reportingComponent": eventComponent, "reportingInstance": orText(k.Instance, eventComponent),
	}}
	if _, err := k.Client.Resource(eventGVR).Namespace(o.GetNamespace()).Create(ctx, ev, metav1.CreateOptions{}); err != nil && k.OnError != nil {
		k.OnError(err)
	}
}
