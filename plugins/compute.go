package plugins

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
)

func computePlugins(b *builder) {
	// Azure Compute Gallery image versions: target regions are named in
	// the request and answered as display names ("canadacentral" is
	// "Canada Central"). Canonicalise both sides so items match by region.
	// Evidence:
	// azure-cli-extensions:src/image-gallery/azext_image_gallery/tests/latest/recordings/test_community_gallery_operations.yaml#33.
	b.addHooks("Microsoft.Compute/galleries/images/versions", &diff.Funcs{
		BeforeCompareFn: func(d, s map[string]any) (map[string]any, map[string]any) {
			canonRegions(d)
			canonRegions(s)
			return d, s
		},
		AfterGetFn: func(s map[string]any) map[string]any { canonRegions(s); return s },
	}, "properties.publishingProfile.targetRegions[].name")

}

func canonRegions(body map[string]any) {
	pp, _ := body["properties"].(map[string]any)
	pub, _ := pp["publishingProfile"].(map[string]any)
	regs, _ := pub["targetRegions"].([]any)
	for _, r := range regs {
		if m, ok := r.(map[string]any); ok {
			if n, ok := m["name"].(string); ok {
				m["name"] = canonLocation(n)
			}
		}
	}
}

// canonLocation lower-cases a region and drops spaces and punctuation.
func canonLocation(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	return b.String()
}
