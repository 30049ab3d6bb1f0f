package apply

import (
	"context"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// softVault seeds a resource group rg1 holding the Key Vault kv-soft and
// returns the emulator, a client, the vault's ID and body, and its record.
func softVault(t *testing.T) (*emulator.Server, *arm.Client, string, map[string]any, *state.Record) {
	t.Helper()
	vault := idOf("rg1", "Microsoft.KeyVault/vaults", "kv-soft")
	vb := map[string]any{"location": "westeurope", "properties": map[string]any{"tenantId": "00000000-0000-0000-0000-0000000000aa", "sku": map[string]any{"family": "A", "name": "standard"}, "enableRbacAuthorization": true}}
	srv, c := emulated(t)
	if err := srv.Seed(rg1, "2021-04-01", map[string]any{"id": rg1, "name": "rg1", "location": "westeurope"}); err != nil {
		t.Fatal(err)
	}
	b := map[string]any{"id": vault, "name": "kv-soft", "type": "Microsoft.KeyVault/vaults"}
	for k, v := range vb {
		b[k] = v
	}
	if err := srv.Seed(vault, "2023-07-01", b); err != nil {
		t.Fatal(err)
	}
	vr := recordOf(vault, vb, DefaultSet)
	vr.APIVersion = "2023-07-01"
	return srv, c, vault, vb, vr
}

// Deleting a Key Vault leaves it soft-deleted, holding its name: the plan
// warns, and the result notes it, so a later create of the same name is no
// surprise. Deleting the group that holds one says the same.
func TestDeletingASoftDeleteTypeSaysTheNameStaysReserved(t *testing.T) {
	for _, tc := range []struct {
		name  string
		vault bool
	}{{"the vault", true}, {"its resource group", false}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			_, c, vault, vb, vr := softVault(t)
			target := rg1
			if tc.vault {
				target = vault
			}
			rr := recordOf(rg1, body(), DefaultSet)
			rr.APIVersion = "2021-04-01"
			r := res(target, body())
			r.APIVersion = "2021-04-01"
			if tc.vault {
				r = res(vault, vb)
				r.APIVersion = "2023-07-01"
			}
			o := DefaultOptions()
			o.Mode = plan.ModeDelete
			e := &Engine{Client: FromARM(c), Store: newMemStore(vr, rr), Schemas: schema.Default(), Options: o}
			p, err := e.Plan(ctx, &manifest.Set{Resources: []*manifest.Resource{r}})
			if err != nil {
				t.Fatal(err)
			}
			var warned string
			for _, w := range p.Plan.Warnings {
				if strings.Contains(w, "kv-soft") {
					warned = w
				}
			}
			for _, want := range []string{"soft-deleted", "name stays reserved", "recover", "purge"} {
				if !strings.Contains(warned, want) {
					t.Errorf("plan warning %q lacks %q (warnings %q)", warned, want, p.Plan.Warnings)
				}
			}
			result, err := e.Execute(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			// A result's notes are printed under its resource: the
			// vault's own note need not name it, the group's does.
			noted := false
			for _, rr := range result.Results {
				for _, n := range rr.Notes {
					noted = noted || (strings.HasSuffix(rr.ID, "/kv-soft") || strings.Contains(n, "kv-soft")) && strings.Contains(n, "name stays reserved")
				}
			}
			if !noted {
				t.Errorf("no result note says kv-soft's name stays reserved: %+v", result.Results)
			}
		})
	}
}

// Replacing a Key Vault would delete it and then fail to create it again
// (the deleted vault holds the name): the plan is refused whatever the
// consent, and nothing is written.
func TestReplacingASoftDeleteTypeIsRefused(t *testing.T) {
	ctx := context.Background()
	srv, c, vault, vb, vr := softVault(t)
	r := res(vault, vb)
	r.APIVersion = "2023-07-01"
	o := DefaultOptions()
	o.AllowReplace = true
	o.Replace = []string{vault}
	e := &Engine{Client: FromARM(c), Store: newMemStore(vr), Schemas: schema.Default(), Options: o}
	p, err := e.Plan(ctx, &manifest.Set{Resources: []*manifest.Resource{r}})
	if err != nil {
		t.Fatal(err)
	}
	before := srv.Stats().Requests
	err = e.Check(p)
	if err == nil || !strings.Contains(err.Error(), "kv-soft") || !strings.Contains(err.Error(), "name reserved") || !strings.Contains(err.Error(), "purge") {
		t.Fatalf("Check: %v, want a refusal naming kv-soft, its reserved name and the way out", err)
	}
	after := srv.Stats().Requests
	if after["DELETE"] != before["DELETE"] || after["PUT"] != before["PUT"] {
		t.Fatalf("a refused plan wrote: %v -> %v", before, after)
	}
}

// Deleting a vault together with its group names the vault in both
// deletes; the plan warns of it once.
func TestSoftDeleteWarningOncePerResource(t *testing.T) {
	ctx := context.Background()
	_, c, vault, vb, vr := softVault(t)
	rr := recordOf(rg1, body(), DefaultSet)
	rr.APIVersion = "2021-04-01"
	g := res(rg1, body())
	g.APIVersion = "2021-04-01"
	v := res(vault, vb)
	v.APIVersion = "2023-07-01"
	o := DefaultOptions()
	o.Mode = plan.ModeDelete
	e := &Engine{Client: FromARM(c), Store: newMemStore(vr, rr), Schemas: schema.Default(), Options: o}
	p, err := e.Plan(ctx, &manifest.Set{Resources: []*manifest.Resource{g, v}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, w := range p.Plan.Warnings {
		if strings.Contains(w, "kv-soft") && strings.Contains(w, "name stays reserved") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d warnings name kv-soft's reserved name, want 1: %q", n, p.Plan.Warnings)
	}
}
