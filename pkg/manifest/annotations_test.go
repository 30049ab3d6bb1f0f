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

// TestAnnotationKeysExact: a key meant for this tool in another casing, or
// misspelt, is an error naming the key to write, never silently ignored.
func TestAnnotationKeysExact(t *testing.T) {
	tests := []struct{ key, want string }{
		{"Azure.Kubectl.io/Prevent-Destroy", "case-sensitive and this one would be ignored; write azure.kubectl.io/prevent-destroy"},
		{"azure.kubectl.io/Prevent-Destroy", "write azure.kubectl.io/prevent-destroy"},
		{"AZURE.KUBECTL.IO/IGNORE-CHANGES", "write azure.kubectl.io/ignore-changes"},
		{"azure.kubectl.io/prevent-destory", "did you mean azure.kubectl.io/prevent-destroy?"},
		{"azure.kubectl.io/dependson", "did you mean azure.kubectl.io/depends-on?"},
		{"azure.kubect.io/prevent-destroy", "did you mean azure.kubectl.io/prevent-destroy?"},
		{"azure.kubectl.io/frobnicate", "unknown annotation of this tool (known: "},
		{"azure.kubectl.io/drift-policy", `must be "detect" or "correct", got "true"`},
		{"azure.kubectl.io/deletion-policy", `must be "orphan" or "delete", got "true"`},
	}
	for _, tt := range tests {
		d := "apiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata:\n  name: rg-demo\n  annotations:\n    " + tt.key + ": \"true\"\n" +
			"spec:\n  type: Microsoft.Resources/resourceGroups@2022-09-01\n  body: {location: westeurope}\n"
		ve := loadErr(t, stdin(d))
		if len(ve.Problems) != 1 || !strings.Contains(ve.Problems[0].Message, tt.want) || ve.Problems[0].Line != 6 {
			t.Errorf("%s: problems = %v, want one on line 6 with %q", tt.key, ve.Problems, tt.want)
		}
	}
	// The controller's deletion policy is known to files too.
	load(t, stdin("apiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata:\n  name: rg-demo\n  annotations:\n    azure.kubectl.io/deletion-policy: delete\n"+
		"spec:\n  type: Microsoft.Resources/resourceGroups@2022-09-01\n  body: {location: westeurope}\n"))
	// Other prefixes are the user's own.
	for _, k := range []string{"example.com/prevent-destroy", "azure/owner", "kubectl.kubernetes.io/last-applied-configuration"} {
		d := "apiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata:\n  name: rg-demo\n  annotations:\n    " + k + ": x\n" +
			"spec:\n  type: Microsoft.Resources/resourceGroups@2022-09-01\n  body: {location: westeurope}\n"
		load(t, stdin(d))
	}
}

// TestDependsOnAnnotation: an ordering no body expresses, checked like a
// reference.
func TestDependsOnAnnotation(t *testing.T) {
	ann := func(v string) string {
		return "apiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata:\n  name: route\n  annotations:\n    azure.kubectl.io/depends-on: " + v + "\n" +
			"spec:\n  type: " + idType + "\n  resourceGroup: rg-demo\n  body: {location: westeurope}\n"
	}
	rg := doc(rgDocT, rgType, "", "{location: westeurope}")
	origin := doc("origin-a", idType, "resourceGroup: rg-demo", "{location: westeurope}")
	s := load(t, docs(rg, origin, ann(`"origin-a"`)))
	originID := rgID + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/origin-a"
	if r := byName(t, s, "route"); !contains(r.DependsOn, originID) {
		t.Errorf("DependsOn = %v", r.DependsOn)
	}
	s = load(t, docs(rg, origin, ann(`"Microsoft.ManagedIdentity/userAssignedIdentities/origin-a, rg-demo"`)))
	if r := byName(t, s, "route"); !contains(r.DependsOn, originID) {
		t.Errorf("TYPE/NAME: DependsOn = %v", r.DependsOn)
	}
	for _, tt := range []struct{ v, want string }{
		{`"origin-b"`, `no resource "origin-b" in the loaded manifests; did you mean origin-a?`},
		{`"origin-a,,x"`, "has an empty entry"},
		{`route`, "is this resource itself"},
	} {
		ve := loadErr(t, docs(rg, origin, ann(tt.v)))
		p := ve.Problems[0]
		if !strings.Contains(p.Message, tt.want) || p.Path != "metadata.annotations.azure.kubectl.io/depends-on" || p.Line != 22 {
			t.Errorf("%s: %+v, want %q on line 22", tt.v, p, tt.want)
		}
	}
}

// An ignore-changes path the type's schema does not know ignores nothing:
// a warning names it and the nearest path the schema knows; paths the
// schema knows (globs, whole collections, item members) are quiet.
func TestIgnoreChangesUnknownPathWarns(t *testing.T) {
	const doc = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata:
  name: vnet1
  annotations:
    azure.kubectl.io/ignore-changes: %s
spec:
  type: Microsoft.Network/virtualNetworks@2023-09-01
  resourceGroup: rg1
  body:
    location: westeurope
    properties: {addressSpace: {addressPrefixes: [10.0.0.0/16]}}
`
	for _, c := range []struct{ paths, want string }{
		{"tags.*, properties.subnets, properties.subnets[*].properties.addressPrefix, properties.dhcpOptions", ""},
		{"properties.subnetz", "properties.subnets"},
		{"tags.a, properties.subnets[*].properties.adressPrefix", "properties.subnets[*].properties.addressPrefix"},
	} {
		s := load(t, stdin(fmt.Sprintf(doc, c.paths)))
		var got []Problem
		for _, f := range s.Findings {
			if f.Path == "metadata.annotations.azure.kubectl.io/ignore-changes" {
				got = append(got, f)
			}
		}
		if c.want == "" {
			if len(got) > 0 {
				t.Errorf("%s: warned %v", c.paths, got)
			}
			continue
		}
		if len(got) != 1 || got[0].Severity != SeverityWarning || got[0].Line != 6 || !strings.Contains(got[0].Message, "did you mean "+c.want+"?") {
			t.Errorf("%s: findings %+v, want one warning on line 6 suggesting %s", c.paths, got, c.want)
		}
	}
}

// A singleton child named outside its type's closed names is reported at
// metadata.name, where the fix goes, not at the body.
func TestClosedNameIsReportedAtMetadataName(t *testing.T) {
	ve := loadErr(t, stdin(`apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: default-prod}
spec:
  type: Microsoft.Storage/storageAccounts/blobServices@2023-05-01
  parent: /subscriptions/`+testSub+`/resourceGroups/rg1/providers/Microsoft.Storage/storageAccounts/st1
  body: {}
`))
	found := false
	for _, p := range ve.Problems {
		if strings.Contains(p.Message, `"default"`) {
			found = true
			if p.Path != "metadata.name" {
				t.Errorf("the name problem is at %q, want metadata.name", p.Path)
			}
		}
	}
	if !found {
		t.Fatalf("no problem names the allowed name: %v", ve)
	}
}
