#!/usr/bin/env bash
# vet, staticcheck and formatting: the checks every change must pass.
set -euo pipefail
cd "$(dirname "$0")/.."
go vet ./...
# staticcheck at a pinned version, from the Go module proxy like every
# other dependency (about 35 s warm, 1.5 min the first time).
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './vendor/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt needed on:" >&2
  echo "$unformatted" >&2
  exit 1
fi
echo "lint: ok"
