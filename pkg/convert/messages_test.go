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

// TestOutsideActionChild: listKeys of a rule the service makes under a
// converted namespace says so, and that the value is known only when
// deployed.
func TestOutsideActionChild(t *testing.T) {
	msg := convertErr(t, `{`+schema+`,
  "resources": [
    {"type": "Microsoft.ServiceBus/namespaces", "apiVersion": "2022-10-01-preview", "name": "sb1", "location": "westeurope", "sku": {"name": "Standard"}},
    {"type": "Microsoft.Resources/tags", "apiVersion": "2022-09-01", "name": "default",
     "properties": {"tags": {"c": "[listKeys(resourceId('Microsoft.ServiceBus/namespaces/authorizationRules', 'sb1', 'RootManageSharedAccessKey'), '2022-10-01-preview').primaryConnectionString]"}}}]}`)
	want := "is known only when deployed: it calls an action of a resource this template does not create (a child of sb1 that the service makes; a manifest's action is called on a managed resource, not below it)"
	if !strings.Contains(msg, want) {
		t.Errorf("message: %s", msg)
	}
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
