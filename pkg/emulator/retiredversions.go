package emulator

import "strings"

// retiredVersions are api-versions ARM's providers served (and may still
// serve) that neither the Bicep type index nor the Swagger specs hold any
// more: retired previews and versions that predate the specs. Evidence:
// public quickstart templates deployed by their repository's pipeline
// against ARM (Azure/azure-quickstart-templates at ef296f0f: DevTest Labs,
// Redis, SQL, Log Analytics and Web samples use exactly these), and
// Microsoft Learn's DevTest Labs pages, whose template examples use
// Microsoft.DevTestLab 2018-10-15-preview. The providers API lists them
// with the namespace's other versions, so a client that asks whether one
// is served is not told no.
var retiredVersions = map[string][]string{
	"microsoft.cache":               {"2014-04-01-preview"},
	"microsoft.devtestlab":          {"2018-10-15-preview"},
	"microsoft.operationalinsights": {"2017-03-03-preview", "2017-03-15-preview"},
	"microsoft.sql":                 {"2014-04-01-preview"},
	"microsoft.web":                 {"2014-06-01", "2015-02-01"},
}

// retiredOf lists the retired versions of namespace ns.
func retiredOf(ns string) []string { return retiredVersions[strings.ToLower(ns)] }
