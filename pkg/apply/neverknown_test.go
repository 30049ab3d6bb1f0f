package apply

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// A reference whose path the referenced resource's live body lacks, when
// that resource exists and this plan does not write it, can never resolve:
// the plan fails as invalid input naming the manifest field and line, and
// suggests the nearest existing path, before anything is written.
func TestReferenceToAMissingPathFailsThePlan(t *testing.T) {
	a, _, e := appliedRefDocs(t)
	typo := strings.ReplaceAll(refDocs, "id-app.properties.principalId", "id-app.properties.principalld")
	puts := len(a.Calls("PUT"))
	_, err := e.Plan(context.Background(), loadDocs(t, typo))
	var ve *manifest.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("plan error = %v, want a validation error", err)
	}
	var body *manifest.Problem
	for i, p := range ve.Problems {
		if p.Path == "spec.body.properties.principalId" {
			body = &ve.Problems[i]
		}
	}
	if body == nil {
		t.Fatalf("no problem names spec.body.properties.principalId: %v", err)
	}
	if !strings.HasSuffix(body.File, "m.yaml") || body.Index != 2 || body.Line != 26 {
		t.Errorf("problem at %s#%d line %d, want m.yaml#2 line 26", body.File, body.Index, body.Line)
	}
	for _, want := range []string{"properties.principalld", "did you mean properties.principalId?"} {
		if !strings.Contains(body.Message, want) {
			t.Errorf("message %q lacks %q", body.Message, want)
		}
	}
	t.Log(err)
	if n := len(a.Calls("PUT")); n != puts {
		t.Errorf("the plan wrote %d times", n-puts)
	}
}

// When the referenced resource is written by this plan, a value absent now
// may be filled by Azure after that write: it stays known after apply.
func TestReferenceToAMissingPathOfAWrittenResourceWaits(t *testing.T) {
	_, _, e := appliedRefDocs(t)
	typo := strings.ReplaceAll(refDocs, "id-app.properties.principalId", "id-app.properties.clientId")
	typo = strings.Replace(typo, "body: {location: westeurope}\n---", "body: {location: westeurope, tags: {a: b}}\n---", 2)
	if _, err := e.Plan(context.Background(), loadDocs(t, typo)); err != nil {
		t.Fatalf("plan failed though the identity is written first: %v", err)
	}
}

// A reference to a value GET withholds (a Key Vault secret's value) of a
// resource this plan does not write fails the plan, saying why.
func TestReferenceToAWithheldValueOfAnUnwrittenResourceFailsThePlan(t *testing.T) {
	a := secretsWithheldARM()
	a.seed(rgID("rg1"), body())
	vault := vaultWithSecretDocs
	e := newEngine(a, newMemStore(), DefaultOptions())
	e.Schemas = schema.Default()
	p, err := e.Plan(context.Background(), loadDocs(t, vault))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Execute(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	_, err = e.Plan(context.Background(), loadDocs(t, vault+idCopyingTheSecretDoc))
	var ve *manifest.ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 1 {
		t.Fatalf("plan error = %v, want one validation problem", err)
	}
	if p := ve.Problems[0]; p.Path != "spec.body.tags.copy" || !strings.Contains(p.Message, "write-only") {
		t.Errorf("problem = %+v, want spec.body.tags.copy named write-only", p)
	}
}

// A reference to a resource -l leaves out reads that resource's live body:
// this run never writes it, so its value now is the value apply will use
// (and a path it lacks fails the plan).
func TestReferenceToAnUnselectedResourceIsRead(t *testing.T) {
	a := newFakeARM()
	principals(a, "11111111-2222-3333-4444-555555555555")
	st := newMemStore()
	e := newEngine(a, st, DefaultOptions())
	labelled := strings.Replace(refDocs, "metadata:\n  name: ${guid:", "metadata:\n  labels: {part: ra}\n  name: ${guid:", 1)
	// Apply the group and the identity only.
	p, err := e.Plan(context.Background(), loadSelected(t, labelled, "part!=ra"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Execute(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	// Now the role assignment alone: its name and principal come from the
	// identity it does not select.
	p, err = e.Plan(context.Background(), loadSelected(t, labelled, "part=ra"))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Plan.Resources) != 1 || p.Plan.Resources[0].NameKnownAfterApply {
		t.Fatalf("plan %+v, want the role assignment with its name known", p.Plan.Resources)
	}
	if _, err := e.Execute(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	typo := strings.ReplaceAll(labelled, "id-app.properties.principalId", "id-app.properties.principalld")
	_, err = e.Plan(context.Background(), loadSelected(t, typo, "part=ra"))
	var ve *manifest.ValidationError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "did you mean properties.principalId?") {
		t.Fatalf("plan error = %v, want a validation error suggesting properties.principalId", err)
	}
}

// A reference to a resource -l leaves out that does not exist can never
// resolve in this run: the plan fails.
func TestReferenceToAnUnselectedAbsentResourceFailsThePlan(t *testing.T) {
	a := newFakeARM()
	a.seed(rgID("rg1"), body())
	e := newEngine(a, newMemStore(), DefaultOptions())
	labelled := strings.Replace(refDocs, "metadata:\n  name: ${guid:", "metadata:\n  labels: {part: ra}\n  name: ${guid:", 1)
	_, err := e.Plan(context.Background(), loadSelected(t, labelled, "part=ra"))
	var ve *manifest.ValidationError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "left out by -l and does not exist") {
		t.Fatalf("plan error = %v, want a validation error saying id-app is left out and absent", err)
	}
}

// needSpy records the reads a plan asks for.
type needSpy struct {
	Client
	reqs []ReadRequest
}

func (s *needSpy) ReadMany(ctx context.Context, reqs []ReadRequest, o ReadOptions) []ReadResult {
	s.reqs = append(s.reqs, reqs...)
	return s.Client.ReadMany(ctx, reqs, o)
}

// A path other resources read from a resource is needed in its read, as
// an owned path is: a collection item lacking it is read with a GET, so a
// plan never judges a reference by a reduced list item.
func TestReferencedPathsAreNeededInReads(t *testing.T) {
	_, _, e := appliedRefDocs(t)
	spy := &needSpy{Client: e.Client}
	e.Client = spy
	if _, err := e.Plan(context.Background(), loadDocs(t, refDocs)); err != nil {
		t.Fatal(err)
	}
	for _, r := range spy.reqs {
		if strings.HasSuffix(r.ID, "/id-app") {
			if !slices.Contains(r.Need, "properties.principalId") {
				t.Errorf("the identity is read needing %v, want properties.principalId among them", r.Need)
			}
			return
		}
	}
	t.Fatalf("the identity was not read: %+v", spy.reqs)
}
