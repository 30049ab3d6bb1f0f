#!/usr/bin/env bash
# Drives the ARM emulator with the real Azure SDK for Go management clients
# (test/conformance, a separate Go module so the product's go.mod does not
# grow). Builds the emulator, starts it on a free loopback port, runs the
# checks and exits non-zero when any check fails. Works offline once the
# modules are in the module cache.
set -euo pipefail
cd "$(dirname "$0")/.."

work="$(mktemp -d)"
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/arm-emulator" ./cmd/arm-emulator
(cd test/conformance && go build -o "$work/conformance" .)

# Port 0: the kernel picks a free port; the emulator prints its URL.
"$work/arm-emulator" --addr 127.0.0.1:0 --lro 100ms --quirks corpus >"$work/emulator.log" 2>&1 &
pid=$!
url=""
for _ in $(seq 1 100); do
  url="$(sed -n 's/^arm-emulator listening on \([^ ]*\).*/\1/p' "$work/emulator.log")"
  [ -n "$url" ] && break
  if ! kill -0 "$pid" 2>/dev/null; then cat "$work/emulator.log" >&2; exit 1; fi
  sleep 0.1
done
if [ -z "$url" ]; then
  echo "conformance: the emulator did not start" >&2
  cat "$work/emulator.log" >&2
  exit 1
fi

"$work/conformance" -endpoint "$url" "$@"

# The Azure CLI leg (skipped, saying so, where az is not installed).
hack/conformance-az.sh
