package apply

import (
	"context"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// emulated serves an in-process emulator and returns a client for it.
func emulated(t *testing.T) (*emulator.Server, *arm.Client) {
	t.Helper()
	return emulatedVia(t, nil)
}

// emulatedVia is emulated with the client's requests sent through rt
// (nil: the default transport).
func emulatedVia(t *testing.T, rt http.RoundTripper) (*emulator.Server, *arm.Client) {
	t.Helper()
	return emulatedWithVia(t, nil, rt)
}

// emulatedWith is emulated with the emulator's options changed by tune.
func emulatedWith(t *testing.T, tune func(*emulator.Options)) (*emulator.Server, *arm.Client) {
	t.Helper()
	return emulatedWithVia(t, tune, nil)
}

func emulatedWithVia(t *testing.T, tune func(*emulator.Options), rt http.RoundTripper) (*emulator.Server, *arm.Client) {
	t.Helper()
	o := emulator.DefaultOptions()
	o.LRODuration = 10 * time.Millisecond
	o.Seed = 1
	if tune != nil {
		tune(&o)
	}
	srv, err := emulator.New(o)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	ao := arm.DefaultOptions()
	ao.Endpoint = hs.URL
	if rt != nil {
		ao.HTTPClient = &http.Client{Transport: rt}
	}
	c, err := arm.New(ao)
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

// TestCascadeFindsChildResources: deleting a DNS zone or a Key Vault
// takes the record sets and secrets inside it, which a resource group's
// /resources listing never shows. Children nobody manages are found by
// listing the schema's child types and refuse the plan (issue 27 item 3).
func TestCascadeFindsChildResources(t *testing.T) {
	zone := idOf("rg1", "Microsoft.Network/dnsZones", "example.com")
	vault := idOf("rg1", "Microsoft.KeyVault/vaults", "kv-cascade")
	for _, tc := range []struct {
		name, parent, parentVer, child string
		parentBody, childBody          map[string]any
	}{
		{"DNS zone and an A record", zone, "2018-05-01", zone + "/A/www",
			map[string]any{"location": "global"},
			map[string]any{"properties": map[string]any{"TTL": 300, "ARecords": []any{map[string]any{"ipv4Address": "10.0.0.1"}}}}},
		{"Key Vault and a secret", vault, "2023-07-01", vault + "/secrets/db-password",
			map[string]any{"location": "westeurope", "properties": map[string]any{"tenantId": "00000000-0000-0000-0000-0000000000aa", "sku": map[string]any{"family": "A", "name": "standard"}, "enableRbacAuthorization": true}},
			map[string]any{"properties": map[string]any{"value": "not-ours"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			srv, c := emulated(t)
			for _, s := range []struct {
				id, ver string
				b       map[string]any
			}{{rg1, "2021-04-01", map[string]any{"location": "westeurope"}}, {tc.parent, tc.parentVer, tc.parentBody}, {tc.child, tc.parentVer, tc.childBody}} {
				// Seeded bodies are stored as given: add the envelope ARM returns.
				b := map[string]any{"id": s.id, "name": lastName(s.id), "type": armTypeOf(s.id)}
				for k, v := range s.b {
					b[k] = v
				}
				if err := srv.Seed(s.id, s.ver, b); err != nil {
					t.Fatalf("seeding %s: %v", s.id, err)
				}
			}
			pr := res(tc.parent, tc.parentBody)
			pr.APIVersion = tc.parentVer
			rec := recordOf(tc.parent, tc.parentBody, DefaultSet)
			rec.APIVersion = tc.parentVer
			o := DefaultOptions()
			o.Mode = plan.ModeDelete
			e := &Engine{Client: FromARM(c), Store: newMemStore(rec), Schemas: schema.Default(), Options: o}
			p, err := e.Plan(ctx, &manifest.Set{Resources: []*manifest.Resource{pr}})
			if err != nil {
				t.Fatal(err)
			}
			err = e.Check(p)
			if err == nil || !strings.Contains(err.Error(), "--allow-cascade") || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tc.child)) {
				t.Fatalf("Check = %v, want a cascade refusal naming %s", err, tc.child)
			}
			if _, err := e.Execute(ctx, p); err == nil {
				t.Fatal("Execute ran a refused plan")
			}
			if _, err := c.Get(ctx, tc.child, tc.parentVer); err != nil {
				t.Fatalf("the child is gone after a refused plan: %v", err)
			}
			// Once it is managed (in state), the same delete goes ahead.
			st := newMemStore(rec, &state.Record{ID: tc.child, Type: "x", APIVersion: tc.parentVer, Set: DefaultSet})
			e = &Engine{Client: FromARM(c), Store: st, Schemas: schema.Default(), Options: o}
			p, err = e.Plan(ctx, &manifest.Set{Resources: []*manifest.Resource{pr}})
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Check(p); err != nil {
				t.Fatalf("a managed child still refuses: %v", err)
			}
		})
	}
}

func armTypeOf(id string) string {
	x, err := armid.Parse(id)
	if err != nil {
		panic(err)
	}
	return x.Type()
}

// getPaths records the path of every GET a client sends.
type getPaths struct {
	mu    sync.Mutex
	paths []string
}

func (l *getPaths) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet {
		l.mu.Lock()
		l.paths = append(l.paths, strings.ToLower(r.URL.Path))
		l.mu.Unlock()
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestCascadeReadsInlineChildren: a child collection the parent's live
// body carries inline (a vnet's subnets) is judged from that body, with
// no listing of its own, and still refuses a delete that would take an
// unmanaged child; a collection the body does not carry is listed.
func TestCascadeReadsInlineChildren(t *testing.T) {
	ctx := context.Background()
	log := &getPaths{}
	_, c := emulatedVia(t, log)
	vnet := idOf("rg1", "Microsoft.Network/virtualNetworks", "vnet1")
	const ver = "2023-09-01"
	body := map[string]any{"location": "westeurope", "properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}}}}
	if _, err := c.Put(ctx, rgID("rg1"), "2021-04-01", map[string]any{"location": "westeurope"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Put(ctx, vnet, ver, body, nil); err != nil {
		t.Fatal(err)
	}
	// Somebody adds a subnet by hand.
	if _, err := c.Put(ctx, vnet+"/subnets/theirs", ver, map[string]any{"properties": map[string]any{"addressPrefix": "10.0.1.0/24"}}, nil); err != nil {
		t.Fatal(err)
	}
	r := res(vnet, body)
	r.APIVersion = ver
	rec := recordOf(vnet, body, DefaultSet)
	rec.APIVersion = ver
	o := DefaultOptions()
	o.Mode = plan.ModeDelete
	log.mu.Lock()
	log.paths = nil
	log.mu.Unlock()
	e := &Engine{Client: FromARM(c), Store: newMemStore(rec), Schemas: schema.Default(), Options: o}
	p, err := e.Plan(ctx, &manifest.Set{Resources: []*manifest.Resource{r}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Check(p); err == nil || !strings.Contains(err.Error(), "subnets/theirs") {
		t.Fatalf("Check = %v, want a cascade refusal naming the hand-made subnet", err)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	listed := map[string]bool{}
	for _, path := range log.paths {
		listed[path[strings.LastIndexByte(path, '/')+1:]] = true
	}
	if listed["subnets"] {
		t.Errorf("the subnets were listed although the vnet's body holds them: %q", log.paths)
	}
}
