// Package convert turns ARM templates into kubectl-azure manifests. A
// Template is parsed once; Convert evaluates it with placeholders for what
// only a deployment knows, and Evaluate with everything known (as an ARM
// emulator deploying Microsoft.Resources/deployments would).
package convert

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

// Template is a parsed ARM template.
type Template struct {
	src   *source
	root  map[string]any
	scope string // resourceGroup, subscription, managementGroup or tenant
	name  string // the deployment's name: the file's base name, as the Azure CLI names it
}

// Scope is where and with what a template is deployed.
type Scope struct {
	// Subscription is the target subscription; empty while converting
	// means ${subscriptionId}.
	Subscription string
	// ResourceGroup is the target group of a resource-group template.
	ResourceGroup string
	// Location is the group's location (resourceGroup().location) and
	// deployment().location.
	Location        string
	Tenant          string
	ManagementGroup string
	// Parameters are parameter values; they override defaults.
	Parameters map[string]any
}

// Resource is one fully evaluated resource of a deployment.
type Resource struct {
	ID            string
	Type          string
	APIVersion    string
	Name          string // the full ARM name ("vnet/subnet")
	Subscription  string
	ResourceGroup string
	Body          map[string]any
	// DependsOn are the IDs (or names) the template said it depends on.
	DependsOn []string
}

// Problems is every problem of a template, each with file, JSON path and
// line (manifest.Problem: Index is always 0, the template is one document).
type Problems = manifest.ValidationError

// Parse reads a template. A file that is not JSON, or not a template, is
// a *Problems.
func Parse(file string, data []byte) (*Template, error) {
	src, err := parseSource(file, data)
	if err != nil {
		line := 0
		if se, ok := err.(*SyntaxError); ok {
			line = se.Line
		}
		return nil, problems(manifest.Problem{File: file, Line: line, Message: "not JSON: " + err.Error()})
	}
	root, ok := src.value.(map[string]any)
	if !ok {
		return nil, problems(manifest.Problem{File: file, Line: 1, Message: "not an ARM template: the file is not a JSON object"})
	}
	scope, err := templateScope(root)
	if err != nil {
		return nil, problems(manifest.Problem{File: file, Line: src.line("$schema"), Path: "$schema", Message: err.Error()})
	}
	base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	return &Template{src: src, root: root, scope: scope, name: base}, nil
}

// Scope is the deployment scope the template's schema names:
// resourceGroup, subscription, managementGroup or tenant.
func (t *Template) Scope() string { return t.scope }

func problems(ps ...manifest.Problem) error { return &Problems{Problems: ps} }

// templateScope reads the scope from $schema; a file without a template's
// schema and resources is not a template.
func templateScope(root map[string]any) (string, error) {
	schema, _ := root["$schema"].(string)
	_, hasResources := root["resources"]
	s := strings.ToLower(schema)
	switch {
	case strings.Contains(s, "subscriptiondeploymenttemplate"):
		return "subscription", nil
	case strings.Contains(s, "managementgroupdeploymenttemplate"):
		return "managementGroup", nil
	case strings.Contains(s, "tenantdeploymenttemplate"):
		return "tenant", nil
	case strings.Contains(s, "deploymenttemplate"):
		return "resourceGroup", nil
	case strings.Contains(s, "deploymentparameters"):
		return "", fmt.Errorf("this is an ARM parameters file, not a template: pass it with --parameters")
	case schema == "" && hasResources:
		return "resourceGroup", nil
	}
	return "", fmt.Errorf("not an ARM template: $schema %q names no deployment template schema", schema)
}

// Evaluate deploys the template in the mind: every resource with its body
// fully evaluated, and the outputs. Every value must be known: a template
// that reads a deployed resource (reference(), listKeys()) is an error
// naming it, unless WithReader answers those reads.
func (t *Template) Evaluate(ctx context.Context, s Scope, opts ...EvalOption) ([]Resource, map[string]any, error) {
	r := newRun(t, s, false)
	for _, o := range opts {
		o(r)
	}
	if err := r.evaluate(ctx); err != nil {
		return nil, nil, err
	}
	return r.resources()
}
