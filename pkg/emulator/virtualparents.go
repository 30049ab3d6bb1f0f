package emulator

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// virtualParents are path segments ARM routes through without a resource
// a client creates: a write below one needs only the resource above it.
// By lower-cased type, the names that exist ("" = any).
var virtualParents = map[string]string{
	// Cosmos DB's first API paths, databaseAccounts/{a}/apis/{sql|mongodb|
	// cassandra|gremlin|table}/… (api-versions 2015-04-08 to 2019-08-01):
	// the API is the account's, not a resource of its own.
	"microsoft.documentdb/databaseaccounts/apis": "",
	// Every IoT hub has its built-in Event Hubs-compatible endpoint
	// "events" (Microsoft Learn "IoT Hub endpoints": built-in endpoint),
	// where consumer groups are created.
	"microsoft.devices/iothubs/eventhubendpoints": "events",
	// Azure Backup's fabric "Azure" and the containers it discovers for
	// the vault's protectable VMs (Recovery Services REST "Protected
	// Items - Create Or Update" is the first write under them).
	// An Enterprise plan's build service has the builder "default"
	// (Microsoft Learn "Use Tanzu Build Service": the default builder);
	// buildpack bindings are written under it.
	"microsoft.appplatform/spring/buildservices/builders": "default",
	// A Machine Learning asset's container is made with its first
	// version: azure-ai-ml's create_or_update of data, models,
	// environments, code and components calls the Versions operation
	// only. GET of the container is not served here.
	"microsoft.machinelearningservices/workspaces/data":                    "",
	"microsoft.machinelearningservices/workspaces/models":                  "",
	"microsoft.machinelearningservices/workspaces/environments":            "",
	"microsoft.machinelearningservices/workspaces/codes":                   "",
	"microsoft.machinelearningservices/workspaces/components":              "",
	"microsoft.recoveryservices/vaults/backupfabrics":                      "azure",
	"microsoft.recoveryservices/vaults/backupfabrics/protectioncontainers": "",
}

// realParent is id, or the nearest resource above it when id is a
// virtual parent.
func realParent(id string) string {
	for id != "" {
		p, ok := armid.ParsePath(id)
		if !ok || p.Kind != armid.PathResource {
			return id
		}
		want, virtual := virtualParents[strings.ToLower(p.Type())]
		if !virtual || (want != "" && !strings.EqualFold(p.Name(), want)) {
			return id
		}
		id = p.ParentID()
	}
	return id
}
