package reconcile

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
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

// TestGoodGenerationOfTheSetBeforeStands: Load returns a new set before
// the reflector publishes it; until then the set before is the current
// one and its objects keep their generations (a status pass in that gap
// once marked every object of the set "Loading").
func TestGoodGenerationOfTheSetBeforeStands(t *testing.T) {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	put := func(name string, gen int64) {
		o := &unstructured.Unstructured{}
		o.SetAPIVersion(ResourceGVR.GroupVersion().String())
		o.SetKind("Resource")
		o.SetNamespace("ns")
		o.SetName(name)
		o.SetGeneration(gen)
		if err := idx.Update(o); err != nil {
			t.Fatal(err)
		}
	}
	put("a", 1)
	put("b", 1)
	k := &KubeSource{Namespace: "ns", Dir: t.TempDir(), lister: cache.NewGenericLister(idx, ResourceGVR.GroupResource()).ByNamespace("ns"),
		LoadDir: func(context.Context, string) (*manifest.Set, error) { return &manifest.Set{}, nil }}
	first, err := k.Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	put("a", 2)
	second, err := k.Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		set  *manifest.Set
		name string
		want int64
	}{{first, "a", 1}, {first, "b", 1}, {second, "a", 2}, {second, "b", 1}} {
		if g, ok := k.GoodGeneration(c.set, c.name); !ok || g != c.want {
			t.Errorf("GoodGeneration(%p, %s) = %d, %v; want %d", c.set, c.name, g, ok, c.want)
		}
	}
	if _, err := k.Load(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, ok := k.GoodGeneration(first, "a"); ok {
		t.Error("a set two loads old still answers")
	}
	if _, ok := k.GoodGeneration(nil, "a"); ok {
		t.Error("no set answers")
	}
}

// A resource whose body matches is Ready only once its provider says its
// provisioning succeeded: kubectl wait must not return while Azure is
// still creating it, and a failed provisioning is not Ready.
func TestReadyWaitsForProvisioning(t *testing.T) {
	v := verdict{gen: 1, now: "2026-01-01T00:00:00Z"}
	for _, c := range []struct{ state, ready, reconciling, reason string }{
		{"", "True", "False", ReasonInSync},
		{"Succeeded", "True", "False", ReasonInSync},
		{"Updating", "False", "True", ReasonProvisioning},
		{"Creating", "False", "True", ReasonProvisioning},
		{"Failed", "False", "False", ReasonProvisionFailed},
	} {
		cs := v.readyWhenProvisioned(c.state)
		got := map[string]Condition{}
		for _, x := range cs {
			got[x.Type] = x
		}
		if got[ConditionReady].Status != c.ready || got[ConditionReconciling].Status != c.reconciling || got[ConditionReady].Reason != c.reason {
			t.Errorf("provisioningState %q: %+v", c.state, cs)
		}
	}
}

// TestStatusPatchNamesRemovedFieldsNull: a merge patch leaves alone what
// it does not name, so what the new status no longer has is sent as null.
func TestStatusPatchNamesRemovedFieldsNull(t *testing.T) {
	for _, tc := range []struct {
		name string
		old  map[string]any
		st   ObjectStatus
		want string
	}{
		{"first status", nil, ObjectStatus{State: StateInSync}, `{"status":{"state":"in-sync"}}`},
		{"ended verdict", map[string]any{"state": StateUnconvergeable, "history": map[string]any{"corrections": int64(1), "unconvergeable": map[string]any{"manifest": "ab"}}},
			ObjectStatus{State: StateInSync, History: &ObjectHistory{Corrections: 1}},
			`{"status":{"history":{"corrections":1,"unconvergeable":null},"state":"in-sync"}}`},
		{"no history left", map[string]any{"state": StateContested, "history": map[string]any{"contested": int64(1)}, "outputs": map[string]any{"a": "b"}},
			ObjectStatus{State: StateInSync}, `{"status":{"history":null,"outputs":null,"state":"in-sync"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &unstructured.Unstructured{Object: map[string]any{}}
			if tc.old != nil {
				o.Object["status"] = tc.old
			}
			got, err := statusPatch(o, tc.st)
			if err != nil || string(got) != tc.want {
				t.Errorf("got %s (%v), want %s", got, err, tc.want)
			}
		})
	}
}

// TestManifestDigestLeavesSecretsOut: the digest an object's status keeps
// does not depend on a secret value (it could be recovered by hashing
// guesses), and does on everything else.
func TestManifestDigestLeavesSecretsOut(t *testing.T) {
	res := func(pw, tag string) *manifest.Resource {
		return &manifest.Resource{ID: "/subscriptions/s/resourceGroups/g/providers/P.X/y/n", Type: "P.X/y", APIVersion: "2024-01-01",
			Body: map[string]any{"tags": map[string]any{"env": tag}, "properties": map[string]any{"password": pw}}}
	}
	regA, regB := secret.NewRegistry(), secret.NewRegistry()
	regA.Register("Secret-Value-A-1234")
	regB.Register("Secret-Value-B-5678")
	a := manifestDigest(res("Secret-Value-A-1234", "prod"), regA)
	if b := manifestDigest(res("Secret-Value-B-5678", "prod"), regB); a != b {
		t.Errorf("the digest depends on the secret value: %s vs %s", a, b)
	}
	if c := manifestDigest(res("Secret-Value-A-1234", "dev"), regA); a == c {
		t.Errorf("a changed tag kept the digest %s", a)
	}
}
