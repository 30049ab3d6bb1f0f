package emulator

import (
	"sort"
	"strings"
)

// regions are public Azure's regions as ARM's locations API names them
// (name → displayName). Locations outside this list are refused as ARM
// refuses them; "global" is accepted for the types that live there.
var regions = map[string]string{
	"australiacentral": "Australia Central", "australiacentral2": "Australia Central 2",
	"australiaeast": "Australia East", "australiasoutheast": "Australia Southeast",
	"austriaeast": "Austria East", "belgiumcentral": "Belgium Central",
	"brazilsouth": "Brazil South", "brazilsoutheast": "Brazil Southeast",
	"canadacentral": "Canada Central", "canadaeast": "Canada East",
	"centralindia": "Central India", "centralus": "Central US", "centraluseuap": "Central US EUAP",
	"chilecentral": "Chile Central", "denmarkeast": "Denmark East",
	"eastasia": "East Asia", "eastus": "East US", "eastus2": "East US 2", "eastus2euap": "East US 2 EUAP",
	"francecentral": "France Central", "francesouth": "France South",
	"germanynorth": "Germany North", "germanywestcentral": "Germany West Central",
	"indonesiacentral": "Indonesia Central", "israelcentral": "Israel Central",
	"italynorth": "Italy North", "japaneast": "Japan East", "japanwest": "Japan West",
	"jioindiacentral": "Jio India Central", "jioindiawest": "Jio India West",
	"koreacentral": "Korea Central", "koreasouth": "Korea South",
	"malaysiawest": "Malaysia West", "mexicocentral": "Mexico Central",
	"newzealandnorth": "New Zealand North", "northcentralus": "North Central US",
	"northeurope": "North Europe", "norwayeast": "Norway East", "norwaywest": "Norway West",
	"polandcentral": "Poland Central", "qatarcentral": "Qatar Central",
	"southafricanorth": "South Africa North", "southafricawest": "South Africa West",
	"southcentralus": "South Central US", "southeastasia": "Southeast Asia", "southindia": "South India",
	"spaincentral": "Spain Central", "swedencentral": "Sweden Central", "swedensouth": "Sweden South",
	"switzerlandnorth": "Switzerland North", "switzerlandwest": "Switzerland West",
	"uaecentral": "UAE Central", "uaenorth": "UAE North", "uksouth": "UK South", "ukwest": "UK West",
	"westcentralus": "West Central US", "westeurope": "West Europe", "westindia": "West India",
	"westus": "West US", "westus2": "West US 2", "westus3": "West US 3",
	// Canary and staging regions real recordings use.
	"northcentralusstage": "North Central US (Stage)", "westcentralusstage": "West Central US (Stage)",
	"eastusstage": "East US (Stage)", "eastus2stage": "East US 2 (Stage)", "centralusstage": "Central US (Stage)",
	"southcentralusstage": "South Central US (Stage)", "westusstage": "West US (Stage)", "westus2stage": "West US 2 (Stage)",
	"eastusstg": "East US STG", "southcentralusstg": "South Central US STG",
}

// knownLocation reports whether loc names a public region (by name or
// display name, any casing) or "global".
func knownLocation(loc string) bool {
	k := strings.NewReplacer("(", "", ")", "").Replace(LocationKey(loc))
	if k == "global" {
		return true
	}
	_, ok := regions[k]
	return ok
}

// regionDisplayNames is every region's display name, sorted.
func regionDisplayNames() []string {
	out := make([]string, 0, len(regions))
	for _, d := range regions {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}
