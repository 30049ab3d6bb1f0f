package convert_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert"
)

func convertErr(t *testing.T, text string) string {
	t.Helper()
	tmpl, err := convert.Parse("t.json", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	_, err = tmpl.Convert(context.Background(), convert.Options{Scope: convert.Scope{ResourceGroup: "rg-app", Location: "westeurope"}})
	if err == nil {
		t.Fatal("converted")
	}
	return err.Error()
}

// TestMessageOneLine: a refused expression broken over lines is quoted on
// one line, so the reason is on the problem's line (darktrace-vsensor's
// customData script, here inside a longer string, which no manifest form
// holds).
func TestMessageOneLine(t *testing.T) {
	msg := convertErr(t, `{`+schema+`,
  "parameters": {"token": {"type": "securestring"}},
  "resources": [{"type": "Microsoft.Resources/tags", "apiVersion": "2022-09-01", "name": "default",
    "properties": {"tags": {"s": "[concat('data:', base64(format('#!/bin/bash
set -e
push {0}', parameters('token'))))]"}}}]}`)
	first := strings.SplitN(msg, "\n", 2)[0]
	if !strings.Contains(first, "resources[0].properties.tags.s: base64 needs a value known only at deploy time (") || !strings.Contains(first, "{parameter token (secure)})") {
		t.Errorf("first line: %s", first)
	}
}

// TestActionOfServiceChild: listKeys of a rule the service makes under a
// converted namespace is the namespace's action under that child.
func TestActionOfServiceChild(t *testing.T) {
	out, _ := convertText(t, `{`+schema+`,
  "resources": [
    {"type": "Microsoft.ServiceBus/namespaces", "apiVersion": "2022-10-01-preview", "name": "sb1", "location": "westeurope", "sku": {"name": "Standard"}},
    {"type": "Microsoft.Resources/tags", "apiVersion": "2022-09-01", "name": "default",
     "properties": {"tags": {"c": "[listKeys(resourceId('Microsoft.ServiceBus/namespaces/authorizationRules', 'sb1', 'RootManageSharedAccessKey'), '2022-10-01-preview').primaryConnectionString]"}}}]}`, convert.Scope{ResourceGroup: "rg-app", Location: "westeurope"})
	wantAll(t, out, "action:\n              apiVersion: 2022-10-01-preview\n              name: listKeys\n              path: primaryConnectionString\n              resource: sb1\n              under: authorizationRules/RootManageSharedAccessKey")
}

// TestProvidersDeferred: providers() reads what a provider registers for
// the subscription, known only while deploying, not an unknown function.
func TestProvidersDeferred(t *testing.T) {
	msg := convertErr(t, `{`+schema+`,
  "resources": [{"type": "Microsoft.Resources/tags", "apiVersion": "2022-09-01", "name": "default",
    "properties": {"tags": {"v": "[providers('Microsoft.Web', 'sites').apiVersions[0]]"}}}]}`)
	if !strings.Contains(msg, "providers needs a value known only at deploy time") {
		t.Errorf("message: %s", msg)
	}
}

// TestARMRefuses: what ARM's own validation refuses says so, so that a
// template's fault is not taken for the converter's.
func TestARMRefuses(t *testing.T) {
	for _, c := range []struct {
		name, text, want string
	}{
		{"expression does not parse", `{` + schema + `, "resources": [{"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-01-01", "name": "st1",
  "properties": {"k": "[listKeys(resourceId('Microsoft.Media/mediaservices', 'm'), providers('Microsoft.Media', 'mediaservices')'2015-10-01'0]).primaryKey]"}}]}`,
			"in the arguments of listKeys (ARM refuses the template: InvalidTemplate)"},
		{"resourceId without every name", `{` + schema + `, "resources": [{"type": "Microsoft.Network/networkInterfaces", "apiVersion": "2023-09-01", "name": "nic1",
  "properties": {"subnet": "[resourceId('Microsoft.Network/virtualNetworks/subnets', 'snet')]"}}]}`,
			"the type Microsoft.Network/virtualNetworks/subnets requires 2 resource name argument(s), got 1 (ARM refuses the template: InvalidTemplate)"},
		{"extension name without its segments", `{` + schema + `, "resources": [{"type": "Microsoft.Network/virtualNetworks/subnets/providers/roleAssignments", "apiVersion": "2022-04-01", "name": "00000000-0000-0000-0000-000000000001",
  "properties": {"roleDefinitionId": "x", "principalId": "y"}}]}`,
			"must have 4 segments (the resource's name, the provider namespace, the extension's name), got 1: ARM finds incorrect segment lengths (ARM refuses the template: InvalidTemplate)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if msg := convertErr(t, c.text); !strings.Contains(msg, c.want) {
				t.Errorf("want %q in:\n%s", c.want, msg)
			}
		})
	}
	tmpl, err := convert.Parse("t.json", []byte(`{`+schema+`, "parameters": {"a": {"type": "string", "defaultValue": "x"}}, "resources": []}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = tmpl.Convert(context.Background(), convert.Options{Scope: convert.Scope{ResourceGroup: "rg-app", Location: "westeurope", Parameters: map[string]any{"b": "y"}}})
	if err == nil || !strings.Contains(err.Error(), `the template has no parameter "b" (it has a); ARM refuses the template: InvalidTemplate`) {
		t.Errorf("unknown parameter: %v", err)
	}
}
