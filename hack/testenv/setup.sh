#!/usr/bin/env bash
# Builds the kube-apiserver and etcd binaries that pkg/state's integration
# tests run against, into a cache outside the work tree, and prints the
# variables to export.
#
#   eval "$(hack/testenv/setup.sh)"
#   KUBECTL_AZURE_REQUIRE_TESTENV=1 go test ./pkg/state/...
#
# Cold: downloads k8s.io/kubernetes and builds both binaries from source:
# about 9 CPU-minutes, i.e. ~5 minutes on an idle 2-core machine (longer on
# a busy one). Warm: a stamp of this directory's inputs matches and the
# binaries are there, so it returns in well under a second.
# Progress goes to stderr; only the export lines go to stdout.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${KUBECTL_AZURE_TESTENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-azure/testenv}"
bin="$cache/bin"

# The stamp covers everything that decides what gets built, so editing the
# wrapper module (e.g. a version bump) rebuilds, and nothing else does.
stamp="$(cat "$here/go.mod" "$here/go.sum" "$here/tools.go" "$here/setup.sh" | sha256sum | cut -c1-16)"

emit() {
  echo "export KUBECTL_AZURE_TEST_APISERVER=$bin/kube-apiserver"
  echo "export KUBECTL_AZURE_TEST_ETCD=$bin/etcd"
}

if [[ -x "$bin/kube-apiserver" && -x "$bin/etcd" && -f "$cache/stamp" && "$(cat "$cache/stamp")" == "$stamp" ]]; then
  echo "testenv: cached binaries in $bin are up to date" >&2
  emit
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "testenv: 'go' is not on PATH; install the Go toolchain named in go.mod and rerun" >&2
  exit 1
fi

mkdir -p "$bin"
# Two test runs starting at once build once: the second waits here, then
# finds the stamp.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$cache/.lock"
  flock 9
  if [[ -x "$bin/kube-apiserver" && -x "$bin/etcd" && -f "$cache/stamp" && "$(cat "$cache/stamp")" == "$stamp" ]]; then
    emit
    exit 0
  fi
fi
rm -f "$cache/stamp"
start=$SECONDS

cd "$here"
# Static, trimmed builds: no C toolchain needed, and the cache stays
# relocatable. -mod=mod because the wrapper module has no vendor directory.
export CGO_ENABLED=0 GOFLAGS="-mod=mod -buildvcs=false"
echo "testenv: downloading modules (first run only)..." >&2
go mod download
echo "testenv: building etcd..." >&2
go build -trimpath -ldflags="-s -w" -o "$bin/etcd.tmp" go.etcd.io/etcd/server/v3
mv -f "$bin/etcd.tmp" "$bin/etcd"
echo "testenv: building kube-apiserver (the slow part)..." >&2
go build -trimpath -ldflags="-s -w" -o "$bin/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
mv -f "$bin/kube-apiserver.tmp" "$bin/kube-apiserver"

echo "$stamp" >"$cache/stamp"
echo "testenv: built in $((SECONDS - start))s into $bin" >&2
emit
