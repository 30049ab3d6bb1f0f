package arm_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
)

const (
	emuSub   = "00000000-0000-0000-0000-0000000000e1"
	rgAPI    = "2021-04-01"
	stAPI    = "2023-05-01"
	stType   = "Microsoft.Storage/storageAccounts"
	siteType = "Microsoft.Web/sites"
)

var (
	emuRG = "/subscriptions/" + emuSub + "/resourceGroups/rg-arm"
	emuST = emuRG + "/providers/" + stType + "/starmtest"
)

func startEmulator(t *testing.T, mut func(*emulator.Options)) *emulator.Server {
	t.Helper()
	srv := newEmulator(t, mut)
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// newEmulator starts an emulator without quirks (mut adjusts its options);
// the caller closes it.
func newEmulator(tb testing.TB, mut func(*emulator.Options)) *emulator.Server {
	tb.Helper()
	o := emulator.DefaultOptions()
	o.Quirks = emulator.QuirksNone
	if mut != nil {
		mut(&o)
	}
	srv, err := emulator.Start(o)
	if err != nil {
		tb.Fatal(err)
	}
	return srv
}

func emuClient(t *testing.T, url string, mut func(*arm.Options)) *arm.Client {
	t.Helper()
	o := arm.DefaultOptions()
	o.Endpoint = url
	o.PollInterval = 50 * time.Millisecond
	if mut != nil {
		mut(&o)
	}
	c, err := arm.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func createRG(t *testing.T, c *arm.Client) {
	t.Helper()
	if _, err := c.Put(context.Background(), emuRG, rgAPI, map[string]any{"location": "westeurope"}, nil); err != nil {
		t.Fatal(err)
	}
}

func TestEmulatorLROCreateGetDelete(t *testing.T) {
	srv := startEmulator(t, func(o *emulator.Options) {
		o.LROByType = map[string]time.Duration{stType: 300 * time.Millisecond}
	})
	c := emuClient(t, srv.URL(), nil)
	createRG(t, c)
	ctx := context.Background()

	body := map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Standard_LRS"}, "kind": "StorageV2"}
	start := time.Now()
	resp, err := c.Put(ctx, emuST, stAPI, body, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.LRO || !resp.ReadBack {
		t.Fatalf("create was not followed as an LRO ending in a read-back: %+v", resp)
	}
	if time.Since(start) < 250*time.Millisecond {
		t.Fatalf("returned after %v, before the 300 ms operation ended", time.Since(start))
	}
	props, _ := resp.Body["properties"].(map[string]any)
	if props["provisioningState"] != "Succeeded" {
		t.Fatalf("final body %v", resp.Body)
	}
	if srv.Stats().Requests["POLL"] == 0 {
		t.Fatalf("no polls counted by the emulator: %+v", srv.Stats())
	}

	got, err := c.Get(ctx, emuST, stAPI)
	if err != nil {
		t.Fatal(err)
	}
	if got.Body["location"] != "westeurope" {
		t.Fatalf("GET %v", got.Body)
	}

	if _, err := c.Delete(ctx, emuST, stAPI, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, emuST, stAPI); !arm.IsNotFound(err) {
		t.Fatalf("after delete: %v", err)
	}
	items, err := c.ListResourceGroup(ctx, emuSub, "rg-arm")
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 0 {
		t.Fatalf("resource group still lists %v", items)
	}
}

func TestEmulatorPatch405RememberedAndIfMatch412(t *testing.T) {
	srv := startEmulator(t, func(o *emulator.Options) {
		o.PatchModes = map[string]emulator.PatchMode{siteType: emulator.PatchAbsent}
		o.LRODuration = 100 * time.Millisecond
	})
	c := emuClient(t, srv.URL(), nil)
	createRG(t, c)
	ctx := context.Background()
	site := emuRG + "/providers/" + siteType + "/app1"
	put, err := c.Put(ctx, site, "2023-01-01", map[string]any{"location": "westeurope", "properties": map[string]any{"httpsOnly": true}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Patch(ctx, site, "2023-01-01", map[string]any{"tags": map[string]any{"a": "b"}}, nil)
	if !arm.IsMethodNotAllowed(err) {
		t.Fatalf("want 405, got %v", err)
	}
	if !c.PatchUnsupported(siteType) {
		t.Fatal("405 not remembered")
	}
	if put.ETag == "" {
		t.Fatalf("no etag from the emulator's PUT: %+v", put)
	}
	if _, err := c.Put(ctx, site, "2023-01-01", map[string]any{"location": "westeurope"}, &arm.RequestOptions{IfMatch: `"stale"`}); !arm.IsPreconditionFailed(err) {
		t.Fatalf("stale If-Match: %v", err)
	}
	if _, err := c.Put(ctx, site, "2023-01-01", map[string]any{"location": "westeurope"}, &arm.RequestOptions{IfMatch: put.ETag}); err != nil {
		t.Fatalf("current If-Match: %v", err)
	}
}

// The emulator's default buckets (ARM's: reads 250 + 25/s) and a run of
// 300 reads: the pacer must absorb the 50 beyond the burst without a 429.
func TestEmulatorDefaultBucketsNoThrottling(t *testing.T) {
	srv := startEmulator(t, nil)
	c := emuClient(t, srv.URL(), func(o *arm.Options) {
		if os.Getenv("ARM_DEBUG_LOG") != "" {
			o.Verbosity, o.Log = 6, os.Stderr
		}
	})
	createRG(t, c)
	ctx := context.Background()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(arm.DefaultConcurrency)
	for i := 0; i < 300; i++ {
		g.Go(func() error {
			_, err := c.Get(gctx, emuRG, rgAPI)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if s := srv.Stats(); s.Throttled != 0 {
		t.Fatalf("emulator throttled %d requests", s.Throttled)
	}
	s := c.Stats()
	if s.Throttled != 0 || s.PacingWaits == 0 {
		t.Fatalf("client stats %+v: want no 429 and some pacing", s)
	}
}

// Injected 503s and connection resets: every write still lands.
func TestEmulatorFaultsConverge(t *testing.T) {
	srv := startEmulator(t, func(o *emulator.Options) {
		o.Faults = emulator.FaultOptions{Status: map[int]float64{503: 0.1}, Reset: 0.05}
		o.LRODuration = 100 * time.Millisecond
		o.Seed = 7
	})
	c := emuClient(t, srv.URL(), func(o *arm.Options) { o.RetryDelay = 10 * time.Millisecond; o.MaxRetries = 10 })
	createRG(t, c)
	ctx := context.Background()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for i := 0; i < 20; i++ {
		id := fmt.Sprintf("%s/providers/Microsoft.Network/networkSecurityGroups/nsg%d", emuRG, i)
		g.Go(func() error {
			_, err := c.Put(gctx, id, "2023-09-01", map[string]any{"location": "westeurope"}, nil)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if srv.Stats().Faults == 0 || c.Stats().Retries == 0 {
		t.Fatalf("no faults injected/retried: emulator %+v client %+v", srv.Stats(), c.Stats())
	}
	items, err := c.ListResourceGroup(ctx, emuSub, "rg-arm")
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 20 {
		t.Fatalf("%d resources listed, want 20", len(items))
	}
}

// recordingTransport notes the path and Authorization of every request.
type recordingTransport struct {
	base http.RoundTripper
	mu   sync.Mutex
	seen []string
}

func (r *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.seen = append(r.seen, req.Method+" "+req.URL.Path+" auth="+req.Header.Get("Authorization"))
	r.mu.Unlock()
	return r.base.RoundTrip(req)
}

// The client-secret credential through azidentity against the emulator's
// TLS token endpoint, then ARM over TLS with the issued token.
func TestEmulatorClientSecretOverTLS(t *testing.T) {
	dir := t.TempDir()
	srv := startEmulator(t, func(o *emulator.Options) { o.TLSCertDir = dir })
	if !strings.HasPrefix(srv.URL(), "https://") {
		t.Fatalf("emulator URL %s", srv.URL())
	}
	pem, err := os.ReadFile(filepath.Join(dir, emulator.CertFile))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatal("bad certificate")
	}
	rt := &recordingTransport{base: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	c := emuClient(t, srv.URL(), func(o *arm.Options) {
		o.HTTPClient = &http.Client{Transport: rt}
		o.Auth = arm.AuthClientSecret
		o.TenantID, o.ClientID, o.ClientSecret = "72f988bf-0000-0000-0000-000000000000", "app-1", "not-a-real-secret"
		o.AuthorityHost = srv.URL() + "/"
	})
	if !c.Authenticated() {
		t.Fatal("https endpoint but no credential")
	}
	createRG(t, c)
	if _, err := c.Get(context.Background(), emuRG, rgAPI); err != nil {
		t.Fatal(err)
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	var token, armCalls int
	for _, s := range rt.seen {
		if strings.Contains(s, "/oauth2/v2.0/token") {
			token++
		}
		if strings.Contains(s, "/subscriptions/") {
			armCalls++
			if !strings.Contains(s, "auth=Bearer ey") {
				t.Errorf("ARM call without the issued token: %s", s)
			}
		}
	}
	if token != 1 || armCalls != 2 {
		t.Fatalf("token calls %d, ARM calls %d: %v", token, armCalls, rt.seen)
	}
}

// RequestOptions.IfMatch goes out on PATCH and DELETE exactly as on PUT:
// a stale etag is refused with 412 and changes nothing, the current one
// is accepted.
func TestEmulatorIfMatchOnPatchAndDelete(t *testing.T) {
	srv := startEmulator(t, nil)
	c := emuClient(t, srv.URL(), nil)
	createRG(t, c)
	ctx := context.Background()
	const idType, idAPI = "Microsoft.ManagedIdentity/userAssignedIdentities", "2023-01-31"
	id := emuRG + "/providers/" + idType + "/id-ifmatch"
	put, err := c.Put(ctx, id, idAPI, map[string]any{"location": "westeurope", "tags": map[string]any{"v": "1"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if put.ETag == "" {
		t.Skip("the emulator gives this type no etag")
	}
	stale := &arm.RequestOptions{IfMatch: `"stale"`}
	if _, err := c.Patch(ctx, id, idAPI, map[string]any{"tags": map[string]any{"v": "2"}}, stale); !arm.IsPreconditionFailed(err) {
		t.Fatalf("PATCH with a stale If-Match: %v, want 412", err)
	}
	if _, err := c.Delete(ctx, id, idAPI, stale); !arm.IsPreconditionFailed(err) {
		t.Fatalf("DELETE with a stale If-Match: %v, want 412", err)
	}
	got, err := c.Get(ctx, id, idAPI)
	if err != nil {
		t.Fatal(err)
	}
	if tags, _ := got.Body["tags"].(map[string]any); tags["v"] != "1" {
		t.Fatalf("a refused PATCH changed the resource: %v", got.Body["tags"])
	}
	patched, err := c.Patch(ctx, id, idAPI, map[string]any{"tags": map[string]any{"v": "2"}}, &arm.RequestOptions{IfMatch: got.ETag})
	if err != nil {
		t.Fatalf("PATCH with the current If-Match: %v", err)
	}
	etag := patched.ETag
	if etag == "" {
		now, err := c.Get(ctx, id, idAPI)
		if err != nil {
			t.Fatal(err)
		}
		etag = now.ETag
	}
	if etag == got.ETag {
		t.Fatalf("the etag did not change with the PATCH (%s)", etag)
	}
	if _, err := c.Delete(ctx, id, idAPI, &arm.RequestOptions{IfMatch: got.ETag}); !arm.IsPreconditionFailed(err) {
		t.Fatalf("DELETE with the etag from before the PATCH: %v, want 412", err)
	}
	if _, err := c.Delete(ctx, id, idAPI, &arm.RequestOptions{IfMatch: etag}); err != nil {
		t.Fatalf("DELETE with the current If-Match: %v", err)
	}
	if _, err := c.Get(ctx, id, idAPI); !arm.IsNotFound(err) {
		t.Fatalf("after delete: %v", err)
	}
}
