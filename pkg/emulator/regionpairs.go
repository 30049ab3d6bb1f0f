package emulator

import "strings"

// regionPairs are Azure's cross-region replication pairs (Microsoft Learn
// "Azure cross-region replication pairings for all geographies"). A pair
// is mostly symmetric; West US 3, West India and Brazil South pair one way.
// Regions without a pair (Qatar Central, Poland Central, Italy North, …)
// are absent.
var regionPairs = map[string]string{
	"eastus": "westus", "westus": "eastus",
	"eastus2": "centralus", "centralus": "eastus2",
	"westus2": "westcentralus", "westcentralus": "westus2",
	"westus3":        "eastus",
	"northcentralus": "southcentralus", "southcentralus": "northcentralus",
	"canadacentral": "canadaeast", "canadaeast": "canadacentral",
	"brazilsouth": "southcentralus", "brazilsoutheast": "brazilsouth",
	"northeurope": "westeurope", "westeurope": "northeurope",
	"uksouth": "ukwest", "ukwest": "uksouth",
	"francecentral": "francesouth", "francesouth": "francecentral",
	"germanywestcentral": "germanynorth", "germanynorth": "germanywestcentral",
	"switzerlandnorth": "switzerlandwest", "switzerlandwest": "switzerlandnorth",
	"norwayeast": "norwaywest", "norwaywest": "norwayeast",
	"swedencentral": "swedensouth", "swedensouth": "swedencentral",
	"eastasia": "southeastasia", "southeastasia": "eastasia",
	"japaneast": "japanwest", "japanwest": "japaneast",
	"koreacentral": "koreasouth", "koreasouth": "koreacentral",
	"australiaeast": "australiasoutheast", "australiasoutheast": "australiaeast",
	"australiacentral": "australiacentral2", "australiacentral2": "australiacentral",
	"centralindia": "southindia", "southindia": "centralindia", "westindia": "southindia",
	"jioindiacentral": "jioindiawest", "jioindiawest": "jioindiacentral",
	"southafricanorth": "southafricawest", "southafricawest": "southafricanorth",
	"uaenorth": "uaecentral", "uaecentral": "uaenorth",
	"eastus2euap": "centraluseuap", "centraluseuap": "eastus2euap",
}

// pairedRegion is loc's pair ("" when it has none), loc in any spelling.
func pairedRegion(loc string) string { return regionPairs[LocationKey(loc)] }

// geoReplicated are the storage SKUs with a secondary region, and whether
// the secondary is readable (Microsoft Learn "Azure Storage redundancy").
var geoReplicated = map[string]bool{"grs": false, "ragrs": true, "gzrs": false, "ragzrs": true}

// fillStorageSecondary makes a storage account's secondary what its SKU
// makes it: secondaryLocation (the primary's pair) and statusOfSecondary for
// a geo-redundant SKU, secondaryEndpoints for a read-access one, and none
// of them otherwise (a locally or zone-redundant account has no secondary).
func fillStorageSecondary(typ string, body map[string]any) {
	if !strings.EqualFold(typ, "Microsoft.Storage/storageAccounts") {
		return
	}
	props := asMap(body["properties"])
	if props == nil {
		return
	}
	sku, _ := asMap(body["sku"])["name"].(string)
	tier := strings.ToLower(sku[strings.Index(sku, "_")+1:])
	readable, geo := geoReplicated[tier]
	pair := ""
	if loc, _ := body["location"].(string); geo {
		pair = pairedRegion(loc)
	}
	if pair == "" {
		delete(props, "secondaryLocation")
		delete(props, "statusOfSecondary")
		delete(props, "secondaryEndpoints")
		return
	}
	props["secondaryLocation"] = pair
	props["statusOfSecondary"] = "available"
	if !readable {
		delete(props, "secondaryEndpoints")
		return
	}
	if _, ok := props["secondaryEndpoints"]; !ok {
		name, _ := body["name"].(string)
		eps := map[string]any{}
		for _, svc := range []string{"blob", "dfs", "queue", "table"} {
			eps[svc] = "https://" + strings.ToLower(name) + "-secondary." + svc + ".core.windows.net/"
		}
		props["secondaryEndpoints"] = eps
	}
}
