package manifest

import (
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
