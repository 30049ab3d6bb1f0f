#!/usr/bin/env bash
# vet and formatting: the checks every change must pass.
set -euo pipefail
cd "$(dirname "$0")/.."
go vet ./...
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './vendor/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt needed on:" >&2
  echo "$unformatted" >&2
  exit 1
fi
echo "lint: ok"
