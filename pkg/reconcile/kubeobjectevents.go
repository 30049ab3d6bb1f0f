package reconcile

import (
	"context"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// ObjectEvents returns an Events sink that posts each Event on the
// Resource object of src whose manifest is the resource, so `kubectl
// describe resource NAME` shows its drift and failed writes. An Event of a
// resource no object holds is dropped; report receives posting errors.
func ObjectEvents(cs kubernetes.Interface, src *KubeSource, ctl *Controller, reg *secret.Registry, instance string, report func(error)) func(Event) {
	return func(e Event) {
		obj := objectOf(src, ctl, e.ID)
		if obj == nil {
			return
		}
		msg := e.Message
		if reg != nil {
			msg = reg.Scrub(msg)
		}
		if len(msg) > maxEventMessage {
			msg = msg[:maxEventMessage-3] + "..."
		}
		typ := corev1.EventTypeNormal
		if e.Warning {
			typ = corev1.EventTypeWarning
		}
		now := metav1.NewTime(time.Now())
		ev := &corev1.Event{
			ObjectMeta: metav1.ObjectMeta{GenerateName: obj.GetName() + ".", Namespace: obj.GetNamespace()},
			InvolvedObject: corev1.ObjectReference{APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(), Namespace: obj.GetNamespace(),
				Name: obj.GetName(), UID: obj.GetUID(), ResourceVersion: obj.GetResourceVersion()},
			Reason: e.Reason, Message: msg, Type: typ,
			Source:         corev1.EventSource{Component: eventComponent},
			FirstTimestamp: now, LastTimestamp: now, Count: 1,
			ReportingController: eventComponent, ReportingInstance: instance,
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := cs.CoreV1().Events(obj.GetNamespace()).Create(ctx, ev, metav1.CreateOptions{}); err != nil && report != nil {
			report(err)
		}
	}
}

// objectOf is the object of src whose manifest has the ARM ID id.
func objectOf(src *KubeSource, ctl *Controller, id string) *unstructured.Unstructured {
	set, _, _ := ctl.Reflector.Current()
	if set == nil {
		return nil
	}
	prefix := src.Origin("")
	for _, r := range set.Resources {
		if !strings.EqualFold(r.ID, id) || !strings.HasPrefix(r.Origin.File, prefix) {
			continue
		}
		objs, err := src.Objects()
		if err != nil {
			return nil
		}
		name := strings.TrimPrefix(r.Origin.File, prefix)
		for _, o := range objs {
			if o.GetName() == name {
				return o
			}
		}
	}
	return nil
}
