package manifest

import (
	"fmt"
	"strings"
	"testing"
)

func TestAnnotations(t *testing.T) {
	const doc = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata:
  name: rg-demo
  annotations:
    azure.kubectl.io/prevent-destroy: "true"
    azure.kubectl.io/ignore-changes: tags.costCenter, tags.*
    example.com/owner: team-a
spec:
  type: Microsoft.Resources/resourceGroups@2022-09-01
  body: {location: westeurope}
`
	r := byName(t, load(t, stdin(doc)), "rg-demo")
	if r.Annotations[AnnotationPreventDestroy] != "true" || r.Annotations["example.com/owner"] != "team-a" ||
		!strings.Contains(r.Annotations[AnnotationIgnoreChanges], "tags.costCenter") {
		t.Fatalf("annotations = %v", r.Annotations)
	}
	for _, bad := range []struct{ val, want string }{
		{`azure.kubectl.io/prevent-destroy: "yes"`, `must be "true" or "false"`},
		{`azure.kubectl.io/prevent-destroy: true`, `must be strings`},
		{`example.com/x: "tags.a,,tags.b"
    azure.kubectl.io/ignore-changes: "tags.a,,tags.b"`, `empty path`},
		{`azure.kubectl.io/prevent-destory: "true"`, `unknown annotation`},
	} {
		d := doc
		if strings.Contains(bad.val, "ignore-changes") {
			d = strings.Replace(d, "    azure.kubectl.io/ignore-changes: tags.costCenter, tags.*\n", "", 1)
		}
		d = strings.Replace(d, "    azure.kubectl.io/prevent-destroy: \"true\"", "    "+bad.val, 1)
		ve := loadErr(t, stdin(d))
		if !strings.Contains(ve.Error(), bad.want) {
			t.Errorf("%s: error %q lacks %q", bad.val, ve.Error(), bad.want)
		}
	}
}

// TestMetadataStringMaps pins how labels and annotations that are not
// mappings of strings are reported: each bad entry at its own path.
func TestMetadataStringMaps(t *testing.T) {
	const doc = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata:
  name: rg-demo
%s
spec:
  type: Microsoft.Resources/resourceGroups@2022-09-01
  body: {location: westeurope}
`
	for _, c := range []struct{ meta, path, want string }{
		{"  labels: [a, b]", "metadata.labels", "must be a mapping of strings"},
		{"  labels: {team: 7}", "metadata.labels.team", "label values must be strings; quote it"},
		{"  annotations: yes", "metadata.annotations", "must be a mapping of strings"},
		{"  annotations: {example.com/n: 1}", "metadata.annotations.example.com/n", `annotation values must be strings; quote it (e.g. "true")`},
		{"  annotations: {azure.kubectl.io/prevent-destroy: \"no\"}", "metadata.annotations.azure.kubectl.io/prevent-destroy", `must be "true" or "false"`},
	} {
		ve := loadErr(t, stdin(fmt.Sprintf(doc, c.meta)))
		if msg := ve.Error(); !strings.Contains(msg, c.path+": ") || !strings.Contains(msg, c.want) {
			t.Errorf("%s: error %q lacks %q at %s", c.meta, msg, c.want, c.path)
		}
	}
	const good = "  labels: {team: a}\n  annotations: {example.com/owner: b}"
	r := byName(t, load(t, stdin(fmt.Sprintf(doc, good))), "rg-demo")
	if r.Labels["team"] != "a" || r.Annotations["example.com/owner"] != "b" || len(r.Labels) != 1 || len(r.Annotations) != 1 {
		t.Errorf("labels %v annotations %v", r.Labels, r.Annotations)
	}
}
