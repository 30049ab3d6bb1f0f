package importer_test

import (
	"context"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
	"github.com/kubectl-azure/kubectl-azure/pkg/importer"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

const timingRG = "rg-timing"

// seedGroup fills a resource group with n resources of five kinds that
// reference each other (NICs name a subnet, an NSG and a public IP), with
// the readonly fields and envelope ARM returns.
func seedGroup(t testing.TB, srv *emulator.Server, n int) []string {
	t.Helper()
	rg := "/subscriptions/" + testSub + "/resourceGroups/" + timingRG
	var ids []string
	seed := func(id, ver string, body map[string]any) {
		body["id"], body["etag"] = id, `W/"`+fmt.Sprint(len(ids))+`"`
		if err := srv.Seed(id, ver, body); err != nil {
			t.Fatalf("seed %s: %v", id, err)
		}
		ids = append(ids, id)
	}
	net := rg + "/providers/Microsoft.Network/"
	for i := 0; len(ids) < n; i++ {
		vnet := fmt.Sprintf("%svirtualNetworks/vnet-%03d", net, i)
		nsg := fmt.Sprintf("%snetworkSecurityGroups/nsg-%03d", net, i)
		pip := fmt.Sprintf("%spublicIPAddresses/pip-%03d", net, i)
		nic := fmt.Sprintf("%snetworkInterfaces/nic-%03d", net, i)
		sa := fmt.Sprintf("%s/providers/Microsoft.Storage/storageAccounts/st%06d", rg, i)
		seed(vnet, "2023-09-01", map[string]any{"name": fmt.Sprintf("vnet-%03d", i), "type": "Microsoft.Network/virtualNetworks", "location": "westeurope",
			"properties": map[string]any{"provisioningState": "Succeeded", "resourceGuid": "g",
				"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}},
				"subnets": []any{map[string]any{"name": "default", "id": vnet + "/subnets/default", "etag": "x",
					"properties": map[string]any{"addressPrefix": "10.0.0.0/24", "provisioningState": "Succeeded"}}}}})
		seed(nsg, "2023-09-01", map[string]any{"name": fmt.Sprintf("nsg-%03d", i), "type": "Microsoft.Network/networkSecurityGroups", "location": "westeurope",
			"properties": map[string]any{"provisioningState": "Succeeded", "securityRules": []any{}}})
		seed(pip, "2023-09-01", map[string]any{"name": fmt.Sprintf("pip-%03d", i), "type": "Microsoft.Network/publicIPAddresses", "location": "westeurope",
			"sku":        map[string]any{"name": "Standard", "tier": "Regional"},
			"properties": map[string]any{"provisioningState": "Succeeded", "publicIPAllocationMethod": "Static", "ipAddress": "20.0.0.1", "idleTimeoutInMinutes": 4.0}})
		seed(nic, "2023-09-01", map[string]any{"name": fmt.Sprintf("nic-%03d", i), "type": "Microsoft.Network/networkInterfaces", "location": "westeurope",
			"properties": map[string]any{"provisioningState": "Succeeded", "macAddress": "00-11",
				"networkSecurityGroup": map[string]any{"id": nsg},
				"ipConfigurations": []any{map[string]any{"name": "ipconfig1", "id": nic + "/ipConfigurations/ipconfig1",
					"properties": map[string]any{"privateIPAllocationMethod": "Dynamic", "subnet": map[string]any{"id": vnet + "/subnets/default"},
						"publicIPAddress": map[string]any{"id": pip}}}}}})
		seed(sa, "2023-05-01", map[string]any{"name": fmt.Sprintf("st%06d", i), "type": "Microsoft.Storage/storageAccounts", "location": "westeurope",
			"kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS", "tier": "Standard"},
			"properties": map[string]any{"provisioningState": "Succeeded", "minimumTlsVersion": "TLS1_2",
				"primaryEndpoints": map[string]any{"blob": "https://x.blob.core.windows.net/"}, "creationTime": "2024-01-01T00:00:00Z"}})
	}
	return ids[:n]
}

// timeGETs measures the reads an import of the group needs, issued as
// fast as the client allows: the list, then one GET per resource.
func timeGETs(t testing.TB, c *arm.Client, ids []string, versions map[string]string) time.Duration {
	t.Helper()
	ctx := context.Background()
	start := time.Now()
	if _, err := c.ListResourceGroup(ctx, testSub, timingRG); err != nil {
		t.Fatal(err)
	}
	sem := make(chan struct{}, arm.DefaultConcurrency)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for _, id := range ids {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if _, err := c.Get(ctx, id, versions[arm.ResourceTypeOf(id)]); err != nil {
				mu.Lock()
				first = err
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if first != nil {
		t.Fatal(first)
	}
	return time.Since(start)
}

// TestImportTiming500 imports a resource group of 500 resources under the
// emulator's default throttling (reads 250 + 25/s) and compares the time
// with that of the GETs the import needs, each run against a fresh
// emulator so both start with a full token bucket. Target: at most 1.5x.
func TestImportTiming500(t *testing.T) {
	const n = 500
	// Baseline: the bare reads.
	base := startEmulator(t, true)
	ids := seedGroup(t, base, n)
	versions := map[string]string{}
	for _, id := range ids {
		typ := arm.ResourceTypeOf(id)
		versions[typ] = importer.NewestStable(schema.Default(), typ)
	}
	getTime := timeGETs(t, armClient(t, base.URL(), true), ids, versions)

	// The import: list, GETs, minimise, references, render, load, record.
	srv := startEmulator(t, true)
	seedGroup(t, srv, n)
	o := importer.DefaultOptions()
	o.ResourceGroup, o.Subscription = timingRG, testSub
	im := newImporter(armClient(t, srv.URL(), true), o)
	st := openStore(t)
	start := time.Now()
	res, err := im.Read(context.Background())
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	if err := res.WriteYAML(io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := im.Record(context.Background(), st, res, 0); err != nil {
		t.Fatal(err)
	}
	importTime := time.Since(start)
	if len(res.Resources) != n+1 || len(res.Failed) != 0 {
		t.Fatalf("imported %d resources (%d failed), want the group and %d", len(res.Resources), len(res.Failed), n)
	}
	stats := srv.Stats()
	ratio := float64(importTime) / float64(getTime)
	t.Logf("500-resource group: GETs alone %s, import %s, ratio %.2fx (import sent %d GETs, %d throttled)",
		getTime.Round(time.Millisecond), importTime.Round(time.Millisecond), ratio, stats.Requests["GET"], stats.Throttled)
	// One per resource, the group, and the list (its pages hold at least
	// 100 items each).
	if got := stats.Requests["GET"]; got < n+2 || got > n+1+(n+99)/100 {
		t.Errorf("import sent %d GETs, want %d to %d (the list's pages, the group, one per resource)", got, n+2, n+1+(n+99)/100)
	}
	if ratio > 1.5 {
		t.Errorf("import took %.2fx the time of its GETs, want <= 1.5x", ratio)
	}
}
