#!/usr/bin/env bash
# The project's test command (make test). It sets up everything the tests
# need (a real etcd and kube-apiserver for the Kubernetes state backend,
# cached outside the work tree) and runs vet, gofmt, every test and the
# SDK conformance suite against the emulator.
set -euo pipefail
cd "$(dirname "$0")/.."

hack/lint.sh

if [ -x hack/testenv/setup.sh ]; then
  # setup.sh prints "export NAME=VALUE" lines for the test binaries.
  eval "$(hack/testenv/setup.sh)"
  export KUBECTL_AZURE_REQUIRE_TESTENV=1
fi

# -p 2: the machine has 2 cores; the timeout bounds a hung test, not a slow one.
# Tests read only the repository (testdata/ holds the corpora they need).
go test -p 2 -timeout 35m -count=1 ./...

# The emulator driven by the real Azure SDK for Go clients (its own module).
hack/conformance.sh
