package apply

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// noListing is a Client that cannot list child collections: only the
// methods of Client, whatever the client it wraps can do.
type noListing struct{ Client }

// TestDeleteEngineNeedsChildListing: an engine that may delete, prune or
// replace is refused at construction when its client cannot list child
// resources or its schema source cannot name child types, saying which;
// before, the cascade check then listed nothing and passed.
func TestDeleteEngineNeedsChildListing(t *testing.T) {
	full := FromARM(newFakeARM())
	if _, ok := full.(Lister); !ok {
		t.Fatal("the fake client should list children")
	}
	for _, tc := range []struct {
		name    string
		opts    func(*Options)
		client  Client
		schemas SchemaSource
		missing []string
	}{
		{"delete without listing", func(o *Options) { o.Mode = plan.ModeDelete }, noListing{full}, schema.Default(), []string{"cannot list child resources", "apply.Lister"}},
		{"prune without listing", func(o *Options) { o.Prune = true }, noListing{full}, schema.Default(), []string{"apply.Lister"}},
		{"replace without listing", func(o *Options) { o.Replace = []string{rgID("rg-a")} }, noListing{full}, schema.Default(), []string{"apply.Lister"}},
		{"delete without child types", func(o *Options) { o.Mode = plan.ModeDelete }, full, lookupOnly{}, []string{"cannot name child types", "apply.ChildTypeSource"}},
		{"delete without a schema", func(o *Options) { o.Mode = plan.ModeDelete }, full, nil, []string{"apply.ChildTypeSource"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			tc.opts(&o)
			e, err := New(tc.client, newMemStore(), tc.schemas, o)
			var ce *CapabilityError
			if e != nil || !errors.As(err, &ce) {
				t.Fatalf("New = %v, %v; want a *CapabilityError", e, err)
			}
			for _, want := range tc.missing {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the error does not say %q: %v", want, err)
				}
			}
		})
	}
	if _, err := New(noListing{full}, newMemStore(), nil, DefaultOptions()); err != nil {
		t.Fatalf("an engine that never destroys needs no listing: %v", err)
	}
	if _, err := New(full, newMemStore(), schema.Default(), func() Options { o := DefaultOptions(); o.Mode = plan.ModeDelete; return o }()); err != nil {
		t.Fatalf("a complete delete engine is refused: %v", err)
	}
}

// TestDeletePlanRefusedWithoutChildListing: an engine built without New
// (a struct literal, a wrapper that hides List) refuses to plan a delete
// rather than pass the cascade check with nothing listed.
func TestDeletePlanRefusedWithoutChildListing(t *testing.T) {
	a := newFakeARM()
	a.seed(rgID("rg-a"), map[string]any{"location": "westeurope"})
	o := DefaultOptions()
	o.Mode = plan.ModeDelete
	e := &Engine{Client: noListing{FromARM(a)}, Store: newMemStore(), Schemas: schema.Default(), Options: o}
	r := &manifest.Resource{ID: rgID("rg-a"), Type: "Microsoft.Resources/resourceGroups", APIVersion: "2021-04-01", Name: "rg-a",
		Body: map[string]any{"location": "westeurope"}}
	_, err := e.Plan(context.Background(), &manifest.Set{Resources: []*manifest.Resource{r}})
	var ce *CapabilityError
	if !errors.As(err, &ce) {
		t.Fatalf("Plan = %v; want a *CapabilityError", err)
	}
	if n := len(a.Calls("DELETE")); n != 0 {
		t.Fatalf("%d DELETE(s) sent", n)
	}
}

// lookupOnly is a schema source that knows no child types.
type lookupOnly struct{}

func (lookupOnly) Lookup(string, string) (*schema.Type, schema.Resolution) {
	return nil, schema.Resolution{}
}
