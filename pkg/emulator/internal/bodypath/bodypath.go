// Package bodypath only forwards to pkg/bodypath, the one body-path
// parser, for the emulator test that still imports it. New code imports
// pkg/bodypath; this package goes once that test does.
package bodypath

import "github.com/kubectl-azure/kubectl-azure/pkg/bodypath"

// Node is bodypath.Node.
type Node = bodypath.Node

// Walk is bodypath.Walk.
func Walk(v any, fn func(Node)) { bodypath.Walk(v, fn) }

// Get is bodypath.Get.
func Get(v any, concrete string) (any, bool) { return bodypath.Get(v, concrete) }

// Parent is bodypath.Parent.
func Parent(p string) string { return bodypath.Parent(p) }
