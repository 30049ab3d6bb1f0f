//go:build tools

// Package testenv only pins the commands setup.sh builds; it has no code of
// its own. The build tag keeps it out of every normal build.
package testenv

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
)
