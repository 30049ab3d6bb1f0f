package reconcile

// Admission: a validating webhook for Resource objects that runs the
// checks `kubectl azure diff` runs before it reads anything (the loader:
// envelope, type@version, required and readonly properties, unknown
// properties with "did you mean", annotations, references) on the object
// as part of its namespace's set, and refuses an update that changes a
// create-only property (the loop never replaces). The message is the
// loader's, as diff prints it, with the object named
// kubernetes://NAMESPACE/NAME: a person sees at `kubectl apply` what the
// controller would otherwise report later as Stalled.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// WebhookPath is where the controller serves the webhook.
const WebhookPath = "/validate-resources"

// maxAdmissionBody bounds an AdmissionReview read (the API server's own
// request limit is 3 MiB; two copies of an object fit).
const maxAdmissionBody = 8 << 20

// Admission checks Resource objects as diff checks manifests.
type Admission struct {
	// Source gives the namespace's other objects, so references resolve
	// as the loop resolves them. Only objects of its namespace are judged.
	Source *KubeSource
	// LoadDir reads the manifests under a directory (the loop's loader).
	LoadDir func(ctx context.Context, dir string) (*manifest.Set, error)
	// Schemas is the schema index the create-only check reads.
	Schemas *schema.Registry
}

// Check returns the problems of obj (old: the stored object, nil on
// create), one line each, as diff prints them; none when it is admitted.
func (a *Admission) Check(ctx context.Context, obj, old *unstructured.Unstructured) ([]string, error) {
	if p := a.Source.policyProblem(obj); p != nil {
		p.File = a.Source.Origin(obj.GetName())
		return []string{p.String()}, nil
	}
	dir, err := os.MkdirTemp("", "kubectl-azure-admission-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	objs, err := a.Source.Objects()
	if err != nil {
		return nil, err
	}
	for _, o := range objs {
		if o.GetName() != obj.GetName() && !deleting(o) {
			if err := writeDoc(dir, o); err != nil {
				return nil, err
			}
		}
	}
	if err := writeDoc(dir, obj); err != nil {
		return nil, err
	}
	_, err = a.LoadDir(ctx, dir)
	own := filepath.Join(dir, obj.GetName()+".yaml")
	var ve *manifest.ValidationError
	if errors.As(err, &ve) {
		var out []string
		for _, p := range ve.Problems {
			if p.File == own && p.Severity != manifest.SeverityWarning {
				p.File = a.Source.Origin(obj.GetName())
				out = append(out, p.String())
			}
		}
		if len(out) > 0 {
			return out, nil
		}
		// Another object's problem is not this request's.
	} else if err != nil {
		return nil, err
	}
	if old == nil {
		return nil, nil
	}
	return a.createOnly(obj, old), nil
}

// createOnly lists the create-only properties the update changes, judged
// by the same diff the plan runs (the stored spec as last applied, live
// and baseline; the new one as desired), on the schema of the new
// spec.type.
func (a *Admission) createOnly(obj, old *unstructured.Unstructured) []string {
	oldBody, _, _ := unstructured.NestedMap(old.Object, "spec", "body")
	newBody, _, _ := unstructured.NestedMap(obj.Object, "spec", "body")
	spec, _, _ := unstructured.NestedString(obj.Object, "spec", "type")
	i := strings.LastIndex(spec, "@")
	if a.Schemas == nil || oldBody == nil || i < 0 {
		return nil
	}
	typ, _ := a.Schemas.Lookup(spec[:i], spec[i+1:])
	r := diff.Compute(diff.Input{Desired: newBody, LastApplied: oldBody, Baseline: oldBody, Live: oldBody, Schema: typ})
	var out []string
	for _, c := range r.Changes {
		if c.CreateOnly {
			out = append(out, fmt.Sprintf("%s#0: spec.body.%s: create-only: changing it needs the resource replaced (deleted and created again), which the controller never does; revert the change, or replace it with kubectl azure apply --replace", a.Source.Origin(obj.GetName()), c.Path))
		}
	}
	sort.Strings(out)
	return out
}

func writeDoc(dir string, o *unstructured.Unstructured) error {
	b, err := yaml.Marshal(Document(o))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, o.GetName()+".yaml"), b, 0o600)
}

// ServeHTTP answers an AdmissionReview (admission.k8s.io/v1).
func (a *Admission) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	serveReview(w, r, func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return a.review(r.Context(), req)
	})
}

// serveReview decodes an AdmissionReview, answers it with decide and
// writes the answer back.
func serveReview(w http.ResponseWriter, r *http.Request, decide func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST an AdmissionReview", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxAdmissionBody))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
		http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
		return
	}
	resp := decide(review.Request)
	resp.UID = review.Request.UID
	review.Response, review.Request = resp, nil
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(review)
}

// review decides one request.
func (a *Admission) review(ctx context.Context, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	allow := &admissionv1.AdmissionResponse{Allowed: true}
	if req.Namespace != a.Source.Namespace || (req.Operation != admissionv1.Create && req.Operation != admissionv1.Update) {
		return allow
	}
	obj, err := decodeObject(req.Object.Raw)
	if err != nil {
		return deny(fmt.Sprintf("%s%s/%s: %v", KubeScheme, req.Namespace, req.Name, err))
	}
	if deleting(obj) {
		return allow // a deleted object waits for its finalizer; its manifest no longer counts
	}
	var old *unstructured.Unstructured
	if req.Operation == admissionv1.Update && len(req.OldObject.Raw) > 0 {
		if old, err = decodeObject(req.OldObject.Raw); err != nil {
			old = nil
		}
	}
	if old != nil && sameManifest(obj, old) {
		// Only metadata beside the manifest changed (a finalizer added or
		// removed): nothing to judge, and an object stored before the
		// webhook existed must still be finalized.
		return allow
	}
	problems, err := a.Check(ctx, obj, old)
	if err != nil {
		// The checker itself failed (a full disk): refusing would block
		// every edit for a fault of the controller; the loop still checks.
		return &admissionv1.AdmissionResponse{Allowed: true, Warnings: []string{"kubectl-azure could not check this object: " + oneLine(err)}}
	}
	if len(problems) == 0 {
		return allow
	}
	return deny(strings.Join(problems, "\n"))
}

// sameManifest: the two objects hold the same manifest document and
// deletion policy.
func sameManifest(a, b *unstructured.Unstructured) bool {
	x, err1 := json.Marshal(Document(a))
	y, err2 := json.Marshal(Document(b))
	return err1 == nil && err2 == nil && string(x) == string(y) &&
		a.GetAnnotations()[AnnotationDeletionPolicy] == b.GetAnnotations()[AnnotationDeletionPolicy]
}

func decodeObject(raw []byte) (*unstructured.Unstructured, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: m}, nil
}

func deny(msg string) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Allowed: false, Result: &metav1.Status{Status: metav1.StatusFailure, Message: msg, Reason: metav1.StatusReasonInvalid, Code: http.StatusUnprocessableEntity}}
}
