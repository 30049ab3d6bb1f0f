package plugins

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// addonImage canonicalises the image of a Container Apps dev service
// (add-on): the CLI sends the service name ("redis") and the platform runs
// and reports its own image from the Microsoft registry, under the
// repository path k8se/services/<name>:<tag> (or azure-redis-cache/redis
// for Redis). Both map to the bare service name.
// Evidence:
// azure-cli-extensions:src/containerapp/azext_containerapp/tests/latest/recordings/test_containerapp_addon_binding_e2e.yaml#68 (redis),
// #93 (postgres), #104 (kafka).
func addonImage(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	for _, repo := range []string{"/k8se/services/", "/azure-redis-cache/"} {
		i := strings.Index(s, repo)
		if i < 0 || strings.Contains(s[:i], "/") {
			continue // the repository path must follow the registry host
		}
		name := s[i+len(repo):]
		if j := strings.IndexByte(name, ':'); j >= 0 {
			name = name[:j]
		}
		return name
	}
	return v
}

func appPlugins(b *builder) {
	b.add("Microsoft.App/containerApps", &diff.Funcs{R: diff.Rules{
		Normalizers: map[schema.Path]diff.Normalizer{
			"properties.template.containers[].image": addonImage,
		},
		// Revision bookkeeping the CLI echoes back in update PUTs (it reads
		// then writes the app) and the platform rewrites on every revision.
		// Evidence: test_containerapp_e2e.yaml and
		// test_containerapp_ingress_e2e.yaml records whose putBody carries
		// latestRevisionFqdn from an earlier revision.
		ReadOnly: []schema.Path{
			"properties.latestRevisionFqdn", "properties.latestRevisionName", "properties.latestReadyRevisionName",
			"properties.outboundIpAddresses", "properties.customDomainVerificationId", "properties.eventStreamEndpoint",
			"properties.runningStatus",
		},
	}})
}
