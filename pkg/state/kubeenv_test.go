package state

import (
	"context"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/state/statetest"
)

// The Kubernetes tests run against statetest's shared etcd + kube-apiserver.

func requireEnv(t *testing.T) *statetest.Env { return statetest.Shared(t) }

func stopTestEnv() { statetest.StopShared() }

func kubeConfigFlags(path string) genericclioptions.RESTClientGetter {
	return statetest.ConfigFlags(path)
}

func newNamespace(t *testing.T, e *statetest.Env) string { return e.NewNamespace(t) }

func openKubeT(t *testing.T, e *statetest.Env, ns, set string, opts Options) Store {
	t.Helper()
	opts.KubeConfig = e.ConfigFlags()
	if opts.LockPoll == 0 {
		opts.LockPoll = 50 * time.Millisecond
	}
	st, err := Open(context.Background(), KubernetesScheme+ns+"/"+set, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
