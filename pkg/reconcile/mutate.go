package reconcile

// The mutating half of the webhook: a Resource object is stored with the
// controller's finalizer already on it, so the controller's first write of
// a new object is its status. A first sync of 10,000 objects then costs
// the API server one write per object instead of two.

import (
	"encoding/json"
	"net/http"
	"slices"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-azure/kubectl-azure/config/crd"
)

// MutatePath is where the controller serves the finalizer webhook.
const MutatePath = "/mutate-resources"

// FinalizerAdder puts Finalizer on every Resource object created. The
// webhook configuration's namespace selector limits it to the source's
// namespace; the controller still adds the finalizer itself to objects
// stored without it (before the webhook existed, or while it was down).
type FinalizerAdder struct{}

func (FinalizerAdder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	serveReview(w, r, addFinalizer)
}

func addFinalizer(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	allow := &admissionv1.AdmissionResponse{Allowed: true}
	if req.Operation != admissionv1.Create || req.Kind.Group != crd.Group || req.Kind.Kind != "Resource" {
		return allow
	}
	obj, err := decodeObject(req.Object.Raw)
	if err != nil || deleting(obj) || slices.Contains(obj.GetFinalizers(), Finalizer) {
		return allow // the validating webhook judges what does not decode
	}
	patch, _ := json.Marshal(finalizerPatch(obj))
	pt := admissionv1.PatchTypeJSONPatch
	allow.Patch, allow.PatchType = patch, &pt
	return allow
}

func finalizerPatch(obj *unstructured.Unstructured) []map[string]any {
	if _, ok, _ := unstructured.NestedFieldNoCopy(obj.Object, "metadata", "finalizers"); ok && len(obj.GetFinalizers()) > 0 {
		return []map[string]any{{"op": "add", "path": "/metadata/finalizers/-", "value": Finalizer}}
	}
	return []map[string]any{{"op": "add", "path": "/metadata/finalizers", "value": []string{Finalizer}}}
}
