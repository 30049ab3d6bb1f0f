package manifest

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestValueFromTemplate: a string mixing literals, references and secrets
// (env, action) is secret as a whole: its path is a SecretPath, a value
// known now is registered for scrubbing, and one that needs an action or
// a live value is resolved at apply time through ResolveWith.
func TestValueFromTemplate(t *testing.T) {
	const site = "Microsoft.Web/sites@2023-12-01"
	stID := rgID + "/providers/Microsoft.Storage/storageAccounts/st1"
	o := docs(
		doc(rgDocT, rgType, "", "{location: westeurope}"),
		doc("st1", stType, "resourceGroup: rg-demo", "{location: westeurope, sku: {name: Standard_LRS}, kind: StorageV2}"),
		doc("app", site, "resourceGroup: rg-demo", `{location: westeurope, properties: {siteConfig: {appSettings: [
  {name: STORAGE, value: {valueFrom: {template: "DefaultEndpointsProtocol=https;AccountName=${ref:st1.name};AccountKey=${secret:key};EndpointSuffix=core.windows.net", secrets: {key: {action: {resource: st1, name: listKeys, path: "keys[0].value"}}}}}},
  {name: DB, value: {valueFrom: {template: "Server=${ref:st1};Password=${secret:pw}", secrets: {pw: {env: DB_PW}}}}}]}}}`),
	)
	o.LookupEnv = envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub, "DB_PW": "pw-s3cret-9"})
	s := load(t, o)
	app := byName(t, s, "app")
	conn := "properties.siteConfig.appSettings[0].value"
	db := "properties.siteConfig.appSettings[1].value"
	if !app.IsSecret(conn) || !app.IsSecret(db) {
		t.Fatalf("SecretPaths = %v", app.SecretPaths)
	}
	settings := app.Body["properties"].(map[string]any)["siteConfig"].(map[string]any)["appSettings"].([]any)
	if got := settings[1].(map[string]any)["value"]; got != "Server="+stID+";Password=pw-s3cret-9" {
		t.Errorf("DB = %v", got)
	}
	if got := s.Secrets.Scrub("x Server=" + stID + ";Password=pw-s3cret-9 y"); strings.Contains(got, "pw-s3cret-9") || strings.Contains(got, stID+";") {
		t.Errorf("the whole value is not scrubbed: %s", got)
	}
	d := app.Deferred[conn]
	if d == nil || len(d.Actions) != 1 || d.Actions[0] != (ActionRef{Target: stID, Action: "listKeys", APIVersion: "2023-05-01", Path: "keys[0].value"}) {
		t.Fatalf("Deferred = %+v", d)
	}
	if !contains(app.DependsOn, stID) {
		t.Errorf("DependsOn = %v", app.DependsOn)
	}
	get := func(r ValueRef) (any, bool) {
		return "st1", r == ValueRef{Target: stID, Path: "name", APIVersion: "2023-05-01"}
	}
	if _, known, err := d.Resolve(get); known || err != nil {
		t.Errorf("Resolve without actions: known=%v err=%v, want unknown", known, err)
	}
	v, known, err := d.ResolveWith(get, func(a ActionRef) (any, error) { return "k3y-from-listkeys", nil })
	want := "DefaultEndpointsProtocol=https;AccountName=st1;AccountKey=k3y-from-listkeys;EndpointSuffix=core.windows.net"
	if err != nil || !known || v != want {
		t.Errorf("ResolveWith = %v, %v, %v", v, known, err)
	}
	if got := s.Secrets.Scrub("a " + want); strings.Contains(got, "k3y-from-listkeys") || strings.Contains(got, "AccountName=st1") {
		t.Errorf("not scrubbed: %s", got)
	}
	if _, _, err := d.ResolveWith(get, func(ActionRef) (any, error) { return nil, errors.New("403") }); err == nil {
		t.Error("an action error is lost")
	}

	for _, tt := range []struct{ body, want string }{
		{`{tags: {a: "${secret:key}"}}`, "only known inside valueFrom.template"},
		{`{tags: {a: {valueFrom: {template: "x${secret:nope}", secrets: {key: {env: DB_PW}}}}}}`, `no secret "nope" under secrets`},
		{`{tags: {a: {valueFrom: {template: "x", secrets: {key: {env: UNSET}}}}}}`, "environment variable UNSET is not set"},
		{`{tags: {a: {valueFrom: {template: "x", extra: 1}}}}`, "unknown field; a template has template, secrets, transform and encoding"},
	} {
		o := docs(doc(rgDocT, rgType, "", "{location: westeurope}"), doc("st2", stType, "resourceGroup: rg-demo", tt.body))
		o.LookupEnv = envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub, "DB_PW": "x"})
		if ve := loadErr(t, o); !strings.Contains(ve.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.body, ve, tt.want)
		}
	}
}

// TestValueFromTemplateBase64: encoding: base64 writes the template's
// value as a template's base64() of the same string does, known now or
// at apply time, and both forms stay secret.
func TestValueFromTemplateBase64(t *testing.T) {
	const vm = "Microsoft.Compute/virtualMachines@2024-03-01"
	o := docs(
		doc(rgDocT, rgType, "", "{location: westeurope}"),
		doc("st1", stType, "resourceGroup: rg-demo", "{location: westeurope, sku: {name: Standard_LRS}, kind: StorageV2}"),
		doc("vm1", vm, "resourceGroup: rg-demo", `{location: westeurope, properties: {osProfile: {
  customData: {valueFrom: {template: "admin:${secret:pw}", secrets: {pw: {env: VM_PW}}, encoding: base64}},
  adminPassword: {valueFrom: {template: "#!/bin/sh\necho ${ref:st1.properties.primaryEndpoints.blob}", encoding: base64}}}}}`),
	)
	o.LookupEnv = envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub, "VM_PW": "pw-s3cret-9"})
	s := load(t, o)
	r := byName(t, s, "vm1")
	os := r.Body["properties"].(map[string]any)["osProfile"].(map[string]any)
	if got := os["customData"]; got != "YWRtaW46cHctczNjcmV0LTk=" { // base64("admin:pw-s3cret-9")
		t.Errorf("customData = %v", got)
	}
	if got := s.Secrets.Scrub("x YWRtaW46cHctczNjcmV0LTk= y"); strings.Contains(got, "YWRtaW46") {
		t.Errorf("the encoded value is not scrubbed: %s", got)
	}
	d := r.Deferred["properties.osProfile.adminPassword"]
	if d == nil {
		t.Fatalf("no deferred value: %v", r.Deferred)
	}
	v, known, err := d.Resolve(func(ValueRef) (any, bool) { return "https://st1.blob.core.windows.net/", true })
	if err != nil || !known || v != "IyEvYmluL3NoCmVjaG8gaHR0cHM6Ly9zdDEuYmxvYi5jb3JlLndpbmRvd3MubmV0Lw==" {
		t.Errorf("Resolve = %v, %v, %v", v, known, err)
	}
	bad := docs(doc(rgDocT, rgType, "", `{location: westeurope, tags: {a: {valueFrom: {template: "x", encoding: hex}}}}`))
	bad.LookupEnv = o.LookupEnv
	if _, err := Load(context.Background(), bad); err == nil || !strings.Contains(err.Error(), `must be "base64"`) {
		t.Errorf("encoding hex: %v", err)
	}
}

// TestActionUnder: an action on a child the service makes (a namespace's
// RootManageSharedAccessKey) is called below the managed resource, which
// stays the dependency; under must be TYPE/NAME pairs.
func TestActionUnder(t *testing.T) {
	const sb = "Microsoft.ServiceBus/namespaces@2022-10-01-preview"
	mk := func(under string) LoadOptions {
		o := docs(
			doc(rgDocT, rgType, "", "{location: westeurope}"),
			doc("sb1", sb, "resourceGroup: rg-demo", "{location: westeurope, sku: {name: Standard}}"),
			doc("rg2", rgType, "", `{location: westeurope, tags: {c: {valueFrom: {action: {resource: sb1, under: "`+under+`", name: listKeys, path: primaryConnectionString}}}}}`),
		)
		o.LookupEnv = envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub})
		return o
	}
	s := load(t, mk("authorizationRules/RootManageSharedAccessKey"))
	r := byName(t, s, "rg2")
	a := r.Actions["tags.c"]
	sbID := rgID + "/providers/Microsoft.ServiceBus/namespaces/sb1"
	if a == nil || a.Target != sbID || a.URLPath() != sbID+"/authorizationRules/RootManageSharedAccessKey/listKeys" {
		t.Fatalf("action = %+v", a)
	}
	if !contains(r.DependsOn, sbID) {
		t.Errorf("DependsOn = %v", r.DependsOn)
	}
	for _, bad := range []string{"authorizationRules", "a/../b", "a/b?x=1"} {
		if _, err := Load(context.Background(), mk(bad)); err == nil || !strings.Contains(err.Error(), "must be a path below the resource") {
			t.Errorf("under %q: %v", bad, err)
		}
	}
}
