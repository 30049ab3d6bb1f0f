#!/usr/bin/env bash
# The project's test command (make test). It sets up everything the tests
# need (a real etcd and kube-apiserver for the Kubernetes state backend,
# cached outside the work tree) and runs vet, gofmt and every test.
set -euo pipefail
cd "$(dirname "$0")/.."

hack/lint.sh

if [ -x hack/testenv/setup.sh ]; then
  # setup.sh prints "export NAME=VALUE" lines for the test binaries.
  eval "$(hack/testenv/setup.sh)"
  export KUBECTL_AZURE_REQUIRE_TESTENV=1
fi

# Tests that read ../shared fail loudly when it is missing: check once here
# so the message comes first.
if [ -z "${KUBECTL_AZURE_SHARED:-}" ] && [ ! -d ../shared ]; then
  echo "warning: ../shared (corpus and specs) not found beside the repository; corpus tests will fail" >&2
fi

# -p 2: the machine has 2 cores; the timeout bounds a hung test, not a slow one.
exec go test -p 2 -timeout 25m -count=1 ./...
