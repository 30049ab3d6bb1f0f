package cli_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// serverCreatedDocs declares parents whose services create children of
// their own: a Service Bus and an Event Hubs namespace
// (RootManageSharedAccessKey), an event hub ($Default), PostgreSQL and
// MySQL flexible servers (system databases, server parameters) and a
// storage account (its default services).
const serverCreatedDocs = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: rg-sc}
spec:
  type: Microsoft.Resources/resourceGroups@2021-04-01
  body: {location: westeurope}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: sb-sc-001}
spec:
  type: Microsoft.ServiceBus/namespaces@2021-11-01
  resourceGroup: rg-sc
  body: {location: westeurope, sku: {name: Standard}}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: eh-sc-001}
spec:
  type: Microsoft.EventHub/namespaces@2024-01-01
  resourceGroup: rg-sc
  body: {location: westeurope, sku: {name: Standard}}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: orders}
spec:
  type: Microsoft.EventHub/namespaces/eventhubs@2024-01-01
  parent: eh-sc-001
  body: {properties: {partitionCount: 2}}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: pg-sc-001}
spec:
  type: Microsoft.DBforPostgreSQL/flexibleServers@2023-06-01-preview
  resourceGroup: rg-sc
  body:
    location: westeurope
    sku: {name: Standard_B1ms, tier: Burstable}
    properties: {version: "16", administratorLogin: pgadmin, administratorLoginPassword: Not-A-Real-Passw0rd}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: mysql-sc-001}
spec:
  type: Microsoft.DBforMySQL/flexibleServers@2023-12-30
  resourceGroup: rg-sc
  body:
    location: westeurope
    sku: {name: Standard_B1ms, tier: Burstable}
    properties: {version: "8.0.21", administratorLogin: dbadmin, administratorLoginPassword: Not-A-Real-Passw0rd}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: stsc001}
spec:
  type: Microsoft.Storage/storageAccounts@2023-05-01
  resourceGroup: rg-sc
  body: {location: westeurope, sku: {name: Standard_LRS}, kind: StorageV2}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: sql-sc-001}
spec:
  type: Microsoft.Sql/servers@2023-05-01-preview
  resourceGroup: rg-sc
  body:
    location: westeurope
    properties: {administratorLogin: sqladmin, administratorLoginPassword: Not-A-Real-Passw0rd}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: aks-sc-001}
spec:
  type: Microsoft.ContainerService/managedClusters@2024-02-01
  resourceGroup: rg-sc
  body:
    location: westeurope
    identity: {type: SystemAssigned}
    properties:
      dnsPrefix: akssc
      agentPoolProfiles:
        - {name: system, count: 1, vmSize: Standard_D2s_v3, mode: System}
`

// TestDeleteTakesServerCreatedChildren: deleting namespaces, servers and
// a storage account needs no --allow-cascade for the children their
// services created; the plan lists them as created by Azure (text and
// JSON), and the delete goes through (issue 44 item 1).
func TestDeleteTakesServerCreatedChildren(t *testing.T) {
	e := newEnv(t, nil)
	dir := manifestDir(t, filepath.Join(t.TempDir(), "sc"), "sc.yaml", serverCreatedDocs)
	e.mustRun(0, "apply", "-f", dir, "--yes")
	// The parents, not their group: the group's own delete would take
	// everything in one DELETE.
	args := []string{"delete", "-f", dir, "Microsoft.ServiceBus/namespaces/sb-sc-001", "Microsoft.EventHub/namespaces/eh-sc-001",
		"Microsoft.DBforPostgreSQL/flexibleServers/pg-sc-001", "Microsoft.DBforMySQL/flexibleServers/mysql-sc-001", "storageAccounts/stsc001",
		"Microsoft.Sql/servers/sql-sc-001", "Microsoft.ContainerService/managedClusters/aks-sc-001"}
	out, errOut, code := e.run(append(args, "--dry-run")...)
	if code != 1 || strings.Contains(errOut, "would be refused") {
		t.Fatalf("delete --dry-run: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{"RootManageSharedAccessKey (created by Azure with its parent)", "$Default (created by Azure with its parent)",
		"databases/azure_maintenance (created by Azure with its parent)", "databases/performance_schema (created by Azure with its parent)",
		"blobServices/default (created by Azure with its parent)", "databases/master (created by Azure with its parent)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the plan does not say %q:\n%s", want, out)
		}
	}
	js := e.mustRun(1, append(args, "--dry-run", "-o", "json")...)
	var p struct {
		Resources []struct {
			ID      string `json:"id"`
			Action  string `json:"action"`
			Cascade []struct {
				ID             string `json:"id"`
				Managed        bool   `json:"managed"`
				CreatedByAzure bool   `json:"createdByAzure"`
			} `json:"cascade"`
		} `json:"resources"`
		Summary map[string]any `json:"summary"`
	}
	if err := json.Unmarshal([]byte(js), &p); err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	byAzure := 0
	for _, r := range p.Resources {
		for _, c := range r.Cascade {
			if !c.CreatedByAzure && !c.Managed {
				t.Errorf("%s: cascade %s neither managed nor created by Azure", r.ID, c.ID)
			}
			if c.CreatedByAzure {
				byAzure++
			}
		}
	}
	if byAzure < 10 || p.Summary == nil {
		t.Errorf("JSON plan lists %d children created by Azure, summary %v:\n%s", byAzure, p.Summary, js)
	}
	e.mustRun(0, append(args, "--yes")...)
	for _, id := range []string{"/providers/Microsoft.ServiceBus/namespaces/sb-sc-001", "/providers/Microsoft.DBforMySQL/flexibleServers/mysql-sc-001"} {
		if _, code := e.live(rg("rg-sc")+id, "2023-12-30"); code != 404 {
			t.Errorf("%s: GET %d after the delete", id, code)
		}
	}
}

// TestDeleteStillRefusesWhatAPersonCreated: an authorization rule and a
// consumer group created outside the tool are not the service's: the
// delete of their parent still refuses without --allow-cascade, naming
// them.
func TestDeleteStillRefusesWhatAPersonCreated(t *testing.T) {
	e := newEnv(t, nil)
	dir := manifestDir(t, filepath.Join(t.TempDir(), "sc"), "sc.yaml", serverCreatedDocs)
	e.mustRun(0, "apply", "-f", dir, "--yes")
	ns := rg("rg-sc") + "/providers/Microsoft.EventHub/namespaces/eh-sc-001"
	for _, id := range []string{ns + "/authorizationRules/ci-sender", ns + "/eventhubs/orders/consumergroups/cg1"} {
		body := `{"properties":{}}`
		if strings.Contains(id, "authorizationRules") {
			body = `{"properties":{"rights":["Send"]}}`
		}
		if r, err := httpWrite(http.MethodPut, e.srv.URL()+id+"?api-version=2024-01-01", body); err != nil || r.code/100 != 2 {
			t.Fatalf("PUT %s: %v %d %s", id, err, r.code, r.body)
		}
	}
	_, errOut, code := e.run("delete", "-f", dir, "Microsoft.EventHub/namespaces/eh-sc-001", "--yes")
	if code == 0 || !strings.Contains(errOut, "--allow-cascade") || !strings.Contains(errOut, "ci-sender") || !strings.Contains(errOut, "cg1") ||
		strings.Contains(errOut, "RootManageSharedAccessKey") || strings.Contains(errOut, "$Default") {
		t.Fatalf("delete of a namespace holding a person's rule and consumer group: exit %d\n%s", code, errOut)
	}
	if _, code := e.live(ns, "2024-01-01"); code != 200 {
		t.Fatalf("the namespace is gone after a refused delete: %d", code)
	}
}
