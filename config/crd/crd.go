// Package crd holds the CustomResourceDefinition of azure.kubectl.io's
// Resource kind, embedded so `controller install` prints the same bytes
// the repository ships.
package crd

import _ "embed"

// Group, Version and Resource name the API the CRD serves.
const (
	Group    = "azure.kubectl.io"
	Version  = "v1alpha1"
	Resource = "resources"
	Kind     = "Resource"
)

// YAML is config/crd/resources.yaml.
//
//go:embed resources.yaml
var YAML []byte
