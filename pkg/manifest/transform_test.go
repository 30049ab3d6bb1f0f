package manifest

import (
	"slices"
	"strings"
	"testing"
)

// TestTransformSteps: replace and split steps have ARM's semantics
// (replace is every occurrence, case-sensitive; split cuts at any of its
// separators), applied in order; -1 is the last part; an index past the
// parts is an error naming both.
func TestTransformSteps(t *testing.T) {
	const blob = "https://st1.blob.core.windows.net/"
	for _, c := range []struct {
		in    string
		steps []transformStep
		want  string
		err   string
	}{
		{blob, []transformStep{{replace: true, old: "https://"}, {replace: true, old: "/"}}, "st1.blob.core.windows.net", ""},
		{"a/A/a", []transformStep{{replace: true, old: "a", new: "b"}}, "b/A/b", ""},
		{"x", []transformStep{{replace: true, old: "", new: "y"}}, "x", ""},
		{"10.0.0.4,10.0.0.5", []transformStep{{seps: []string{","}, index: 0}}, "10.0.0.4", ""},
		{"10.0.0.4,10.0.0.5", []transformStep{{seps: []string{","}, index: -1}}, "10.0.0.5", ""},
		{"a,b;c", []transformStep{{seps: []string{",", ";"}, index: 2}}, "c", ""},
		{blob, []transformStep{{seps: []string{"/"}, index: 2}, {seps: []string{"."}, index: 0}}, "st1", ""},
		{"a,b", []transformStep{{seps: []string{","}, index: 2}}, "", "split gives 2 part(s) of the value, and transform asks for index 2"},
	} {
		got, err := applyTransform(c.steps, c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q %+v: err %v, want %q", c.in, c.steps, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q %+v = %q, %v; want %q", c.in, c.steps, got, err, c.want)
		}
	}
}

// TestTemplateTransform: a template's transform is applied to its value
// when the manifests load (every part known) and after apply reads the
// reference; a malformed step is bad input naming its index.
func TestTemplateTransform(t *testing.T) {
	const st = "Microsoft.Storage/storageAccounts@2023-05-01"
	mk := func(tmpl, transform string) LoadOptions {
		o := docs(
			doc(rgDocT, rgType, "", "{location: westeurope}"),
			doc("st1", st, "resourceGroup: rg-demo", "{location: westeurope, kind: StorageV2, sku: {name: Standard_LRS}}"),
			doc("rg2", rgType, "", `{location: westeurope, tags: {host: {valueFrom: {template: "`+tmpl+`", transform: `+transform+`}}}}`),
		)
		o.LookupEnv = envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub})
		return o
	}
	const strip = `[{replace: {old: "https://", new: ""}}, {replace: {old: "/", new: ""}}]`
	r := byName(t, load(t, mk("https://${subscriptionId}.blob.core.windows.net/", strip)), "rg2")
	if got := r.Body["tags"].(map[string]any)["host"]; got != testSub+".blob.core.windows.net" {
		t.Errorf("known at load: %v", got)
	}
	r = byName(t, load(t, mk("${ref:st1.properties.primaryEndpoints.blob}", strip)), "rg2")
	d := r.Deferred["tags.host"]
	if d == nil {
		t.Fatalf("deferred: %+v", r.Deferred)
	}
	v, known, err := d.Resolve(func(ValueRef) (any, bool) { return "https://st1.blob.core.windows.net/", true })
	if err != nil || !known || v != "st1.blob.core.windows.net" {
		t.Errorf("resolved %v %v %v", v, known, err)
	}
	for _, bad := range []string{`[{replace: {old: a}}]`, `[{split: {separator: ",", index: one}}]`, `[{upper: true}]`, `[]`} {
		ve := loadErr(t, mk("${ref:st1.properties.primaryEndpoints.blob}", bad))
		if !strings.Contains(ve.Error(), "valueFrom.transform") {
			t.Errorf("transform %s: %v", bad, ve)
		}
	}
}

// TestTemplatePart: a template under a template's secrets is a string
// function over a live value inside a longer string: its transform and
// encoding apply to that part only, it makes its reference a dependency,
// and a malformed part is bad input naming its field.
func TestTemplatePart(t *testing.T) {
	const st = "Microsoft.Storage/storageAccounts@2023-05-01"
	mk := func(part string) LoadOptions {
		o := docs(
			doc(rgDocT, rgType, "", "{location: westeurope}"),
			doc("st1", st, "resourceGroup: rg-demo", "{location: westeurope, kind: StorageV2, sku: {name: Standard_LRS}}"),
			doc("rg2", rgType, "", `{location: westeurope, tags: {url: {valueFrom: {template: "https://${secret:host}/logs", secrets: {host: `+part+`}}}}}`),
		)
		o.LookupEnv = envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub})
		return o
	}
	const strip = `[{replace: {old: "https://", new: ""}}, {replace: {old: "/", new: ""}}]`
	r := byName(t, load(t, mk(`{template: "https://${subscriptionId}.blob.core.windows.net/", transform: `+strip+`}`)), "rg2")
	if got := r.Body["tags"].(map[string]any)["url"]; got != "https://"+testSub+".blob.core.windows.net/logs" {
		t.Errorf("known at load: %v", got)
	}
	r = byName(t, load(t, mk(`{template: "${ref:st1.properties.primaryEndpoints.blob}", transform: `+strip+`}`)), "rg2")
	d := r.Deferred["tags.url"]
	if d == nil || len(d.Refs) != 1 || !strings.HasSuffix(d.Refs[0].Target, "/st1") {
		t.Fatalf("deferred: %+v", r.Deferred)
	}
	if !slices.Contains(r.DependsOn, d.Refs[0].Target) {
		t.Errorf("the part's reference is no dependency: %v", r.DependsOn)
	}
	get := func(ValueRef) (any, bool) { return "https://st1.blob.core.windows.net/", true }
	if v, known, err := d.Resolve(get); err != nil || !known || v != "https://st1.blob.core.windows.net/logs" {
		t.Errorf("resolved %v %v %v", v, known, err)
	}
	if _, known, _ := d.Resolve(func(ValueRef) (any, bool) { return nil, false }); known {
		t.Error("known before the reference is")
	}
	r = byName(t, load(t, mk(`{template: "${ref:st1.name}", encoding: base64}`)), "rg2")
	if v, _, _ := r.Deferred["tags.url"].Resolve(func(ValueRef) (any, bool) { return "st1", true }); v != "https://c3Qx/logs" {
		t.Errorf("encoded part: %v", v)
	}
	for bad, want := range map[string]string{
		`{template: "${ref:st1.name}", upper: true}`: "secrets.host.upper",
		`{template: 3}`: "secrets.host.template",
		`{template: "${ref:st1.name}", transform: [{replace: {old: a}}]}`: "secrets.host.transform",
		`{template: "${ref:st1.name}", encoding: hex}`:                    "secrets.host.encoding",
		`{template: "${secret:other}"}`:                                   "secrets.host.template",
	} {
		ve := loadErr(t, mk(bad))
		if !strings.Contains(ve.Error(), want) {
			t.Errorf("%s: want %s in %v", bad, want, ve)
		}
	}
}
