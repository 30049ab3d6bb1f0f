package reconcile

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// Event is one thing that happened to a resource.
type Event struct {
	Reason  string // EventDriftDetected, ...
	ID      string
	Message string
	Warning bool
}

// Reasons of Events.
const (
	EventDriftDetected  = "DriftDetected"
	EventDriftCorrected = "DriftCorrected"
	EventDriftContested = "DriftContested"
	EventUnconvergeable = "Unconvergeable"
	EventWriteFailed    = "WriteFailed"
)

func (c *Controller) event(reason, id, msg string, warning bool) {
	if c.Events != nil {
		go c.Events(Event{Reason: reason, ID: id, Message: msg, Warning: warning})
	}
}

// eventComponent names the loop as the source of its Events.
const eventComponent = "kubectl-azure-controller"

// maxEventMessage is the API server's limit on an Event's message.
const maxEventMessage = 1024

// KubeEvents returns an Events sink that posts Kubernetes Events on the
// state ConfigMap of each resource (set in namespace ns of the Kubernetes
// state backend), so `kubectl describe configmap` and event exporters
// show drift where the resource's state lives. report receives the
// errors of posting (nil: ignored).
func KubeEvents(cs kubernetes.Interface, ns, set, instance string, report func(error)) func(Event) {
	return func(e Event) {
		now := metav1.NewTime(time.Now())
		typ := corev1.EventTypeNormal
		if e.Warning {
			typ = corev1.EventTypeWarning
		}
		msg := e.Message
		if len(msg) > maxEventMessage {
			msg = msg[:maxEventMessage-3] + "..."
		}
		ev := &corev1.Event{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "kubectl-azure-", Namespace: ns},
			InvolvedObject: corev1.ObjectReference{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns,
				Name: state.ConfigMapName(set, e.ID)},
			Reason: e.Reason, Message: e.ID + ": " + msg, Type: typ,
			Source:         corev1.EventSource{Component: eventComponent},
			FirstTimestamp: now, LastTimestamp: now, Count: 1,
			ReportingController: eventComponent, ReportingInstance: instance,
		}
		if len(ev.Message) > maxEventMessage {
			ev.Message = ev.Message[:maxEventMessage-3] + "..."
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := cs.CoreV1().Events(ns).Create(ctx, ev, metav1.CreateOptions{}); err != nil && report != nil {
			report(err)
		}
	}
}
