package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator/emulatortest"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
)

// computedNameManifests: id-src is managed, and the ARM name of id-dst is
// read from a tag of id-src that the manifests leave to others.
var computedNameManifests = emulatortest.Manifests(
	emulatortest.Group("rg-loop"),
	emulatortest.Identity("id-src", "rg-loop"),
	emulatortest.Doc{Name: "id-dst", Type: "Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31", Place: "resourceGroup: rg-loop\n  name: \"${ref:id-src.tags.next}\"",
		Body: []string{"location: westeurope"}},
)

// computedNameEnv applies id-src, then lets someone set its tag "next"
// (nobody owns it, so it is no drift) to next.
func computedNameEnv(t *testing.T, next string) *loopEnv {
	t.Helper()
	e := newLoopEnv(t)
	e.write("infra.yaml", emulatortest.Manifests(emulatortest.Group("rg-loop"), emulatortest.Identity("id-src", "rg-loop")))
	e.cli(0, "apply", "-f", e.dir, "--yes")
	e.setTag(identityID("id-src"), "next", next)
	e.write("infra.yaml", computedNameManifests)
	return e
}

// badComputedNames would each address another resource than the one a
// reviewer sees: a child type, a parent, a query.
var badComputedNames = []string{"id-x/federatedIdentityCredentials/fic", "..", "id?x=1", "id-x."}

// TestComputedNameIsValidatedAtPlan: a name computed from a live value is
// held to the segment rules a literal name is, the moment the plan learns
// it. Before, "a/b" planned and wrote a resource of another type.
func TestComputedNameIsValidatedAtPlan(t *testing.T) {
	for _, bad := range badComputedNames {
		t.Run(bad, func(t *testing.T) {
			e := computedNameEnv(t, bad)
			before := e.writes("cli")
			out := e.cliOut(ExitValidation, "apply", "-f", e.dir, "--yes")
			for _, want := range []string{filepath.Join(e.dir, "infra.yaml"), "#2", "spec.name", "not a valid ARM resource name"} {
				if !strings.Contains(out, want) {
					t.Errorf("the error does not name %q:\n%s", want, out)
				}
			}
			if w := e.writes("cli"); w != before {
				t.Errorf("%d write(s) for an invalid computed name", w-before)
			}
			e.cliOut(ExitValidation, "diff", "-f", e.dir)
		})
	}
}

// TestLoopRefusesAnInvalidComputedName: the loop writes nothing for it,
// and says so with the place in the manifests.
func TestLoopRefusesAnInvalidComputedName(t *testing.T) {
	e := computedNameEnv(t, "id-x/federatedIdentityCredentials/fic")
	_, log := e.loop(t.Context(), "--drift-policy", "correct")
	st := e.waitFor("the invalid name is reported", 20*time.Second, log, func(st *reconcile.Status) bool {
		return strings.Contains(st.Source.Error, "spec.name")
	})
	if len(st.Source.Problems) == 0 || !strings.HasSuffix(st.Source.Problems[0].File, "infra.yaml") || st.Source.Problems[0].Path != "spec.name" {
		t.Fatalf("the problem does not name the file and field: %+v", st.Source)
	}
	mark := time.Now()
	e.waitFor("a later sweep", 10*time.Second, log, func(st *reconcile.Status) bool { return st.ObservedAt.After(mark) })
	if w := e.writes("loop"); w != 0 {
		t.Fatalf("the loop wrote %d times for an invalid computed name", w)
	}
}

// TestComputedNameIsValidatedAtExecute: a name known only once its source
// is created is checked when it becomes known, before anything is written
// under it, and the run ends as bad input (exit 2), naming file, document,
// line and field. Before, it ended as a runtime failure (exit 3).
func TestComputedNameIsValidatedAtExecute(t *testing.T) {
	e := newLoopEnv(t)
	e.write("infra.yaml", emulatortest.Manifests(
		emulatortest.Group("rg-loop"),
		emulatortest.Identity("id-src", "rg-loop", "tags: {next: id-x/federatedIdentityCredentials/fic}"),
		emulatortest.Doc{Name: "id-dst", Type: "Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31", Place: "resourceGroup: rg-loop\n  name: \"${ref:id-src.tags.next}\"",
			Body: []string{"location: westeurope"}}))
	out := e.cliOut(ExitValidation, "apply", "-f", e.dir, "--yes")
	for _, want := range []string{"infra.yaml#2", "(line ", "spec.name", "not a valid ARM resource name", "nothing was written"} {
		if !strings.Contains(out, want) {
			t.Errorf("the error does not name %q:\n%s", want, out)
		}
	}
	if n := e.front.WritesOf(identityID("id-x") + "/federatedIdentityCredentials/fic"); n != 0 {
		t.Errorf("%d write(s) under the invalid computed name", n)
	}
	if w := e.writes("cli"); w != 2 {
		t.Errorf("%d writes, want the group and id-src only", w)
	}
}
