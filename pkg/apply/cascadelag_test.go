package apply

import (
	"context"
	"fmt"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// TestGroupDeleteSeesAResourceTheCacheHides: ARM's generic list of a
// resource group lags writes. An identity nobody manages, created just
// before the delete of its group, is absent from it; the delete must
// still find it (through the group's per-type lists, which the provider
// serves) and refuse without --allow-cascade. With everything managed the
// group still goes in one DELETE.
func TestGroupDeleteSeesAResourceTheCacheHides(t *testing.T) {
	ctx := context.Background()
	const (
		rgVer = "2021-04-01"
		idVer = "2023-01-31"
		rtVer = "2023-09-01"
	)
	rg := rgID("rg-lag")
	srv, c := emulatedWith(t, func(o *emulator.Options) { o.CacheLag = 2 * time.Second })
	seed := func(id, ver string) {
		b := map[string]any{"id": id, "name": lastName(id), "type": armTypeOf(id), "location": "westeurope"}
		if err := srv.Seed(id, ver, b); err != nil {
			t.Fatalf("seeding %s: %v", id, err)
		}
	}
	seed(rg, rgVer)
	recs := []*state.Record{recordOf(rg, map[string]any{"location": "westeurope"}, DefaultSet)}
	recs[0].APIVersion = rgVer
	for i := range 6 {
		id, ver := idOf("rg-lag", "Microsoft.ManagedIdentity/userAssignedIdentities", fmt.Sprintf("id-%d", i)), idVer
		if i%2 == 1 {
			id, ver = idOf("rg-lag", "Microsoft.Network/routeTables", fmt.Sprintf("rt-%d", i)), rtVer
		}
		seed(id, ver)
		r := recordOf(id, map[string]any{"location": "westeurope"}, DefaultSet)
		r.APIVersion, r.Type = ver, armTypeOf(id)
		recs = append(recs, r)
	}
	group := res(rg, map[string]any{"location": "westeurope"})
	group.APIVersion = rgVer
	o := DefaultOptions()
	o.Mode = plan.ModeDelete
	plan := func() (*Engine, *Prepared) {
		t.Helper()
		e := &Engine{Client: FromARM(c), Store: newMemStore(recs...), Schemas: schema.Default(), Options: o}
		p, err := e.Plan(ctx, &manifest.Set{Resources: []*manifest.Resource{group}})
		if err != nil {
			t.Fatal(err)
		}
		return e, p
	}

	// Somebody creates an identity the tool does not know, and the delete
	// follows at once: the generic list does not show it yet.
	unmanaged := idOf("rg-lag", "Microsoft.ManagedIdentity/userAssignedIdentities", "id-unmanaged")
	if _, err := c.Put(ctx, unmanaged, idVer, map[string]any{"location": "westeurope"}, nil); err != nil {
		t.Fatal(err)
	}
	e, p := plan()
	err := e.Check(p)
	if err == nil || !strings.Contains(err.Error(), "--allow-cascade") || !strings.Contains(err.Error(), "id-unmanaged") {
		t.Fatalf("Check = %v, want a cascade refusal naming id-unmanaged", err)
	}
	if _, err := e.Execute(ctx, p); err == nil {
		t.Fatal("Execute ran a refused plan")
	}
	if _, err := c.Get(ctx, unmanaged, idVer); err != nil {
		t.Fatalf("the unmanaged identity is gone after a refused plan: %v", err)
	}

	// Once it is gone, everything in the group is managed: one DELETE.
	if _, err := c.Delete(ctx, unmanaged, idVer, nil); err != nil {
		t.Fatal(err)
	}
	e, p = plan()
	if err := e.Check(p); err != nil {
		t.Fatalf("everything managed, yet Check = %v", err)
	}
}
