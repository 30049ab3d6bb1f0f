package reconcile

import (
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// TestObjectStatusMessagesAreScrubbed: a secret value the loop knows never
// reaches an object's status, which anyone who reads the object reads.
func TestObjectStatusMessagesAreScrubbed(t *testing.T) {
	const value = "Sup3r-Secret-Value-77"
	reg := secret.NewRegistry()
	reg.Register(value)
	v := verdict{gen: 1, now: "2026-01-01T00:00:00Z"}
	st := ObjectStatus{Conditions: v.reconcilingDrift(ReasonRetrying, "PUT failed: property adminPassword="+value+" is too short", false)}
	scrubStatus(&st, reg)
	for _, c := range st.Conditions {
		if strings.Contains(c.Message, value) {
			t.Fatalf("condition %s holds the secret: %q", c.Type, c.Message)
		}
	}
	if !strings.Contains(st.Conditions[0].Message, "PUT failed") {
		t.Fatalf("the message lost its text: %q", st.Conditions[0].Message)
	}
}

// TestStatusHashIgnoresLastObserved: a sweep alone (a newer lastObserved)
// is no change worth a write; any other field is.
func TestStatusHashIgnoresLastObserved(t *testing.T) {
	v := verdict{gen: 3, now: "2026-01-01T00:00:00Z"}
	a := ObjectStatus{ObservedGeneration: 3, ID: "/x", State: StateInSync, LastObserved: "2026-01-01T00:00:00Z", Conditions: v.ready()}
	b := a
	b.LastObserved = "2026-01-01T00:05:00Z"
	if statusHash(a) != statusHash(b) {
		t.Fatal("lastObserved alone changed the hash")
	}
	c := a
	c.ObservedGeneration = 4
	if statusHash(a) == statusHash(c) {
		t.Fatal("a new observedGeneration did not change the hash")
	}
}
