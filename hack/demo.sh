#!/usr/bin/env bash
# End-to-end demo against the bundled ARM emulator: no Azure account needed.
# Starts the emulator on a free loopback port, plans and applies the sample
# landing zone in testdata/, shows that a second plan is silent, changes one
# property through a kustomize overlay, and stops the emulator.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
emu=""
trap '[ -n "$emu" ] && kill "$emu" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT

# Port 0: the emulator picks a free port and prints the URL it listens on.
# Short LROs keep the demo quick; everything else is the emulator's default
# (ARM's throttle buckets, quirks learned from real ARM traffic).
bin/arm-emulator --addr 127.0.0.1:0 --lro 500ms --latency 20ms >"$work/emulator.log" 2>&1 &
emu=$!
url=""
for _ in $(seq 100); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$work/emulator.log" | head -1 || true)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "arm-emulator did not start:" >&2; cat "$work/emulator.log" >&2; exit 1; }
echo "ARM emulator listening on $url"

export KUBECTL_AZURE_ENDPOINT="$url"
export AZURE_SUBSCRIPTION_ID=00000000-0000-0000-0000-000000000001
k=(bin/kubectl-azure --state "$work/state.json")

step() { printf '\n\033[1m$ kubectl azure %s\033[0m\n' "$*"; }

step diff -f testdata/landing-zone/
"${k[@]}" diff -f testdata/landing-zone/ || [ $? -eq 1 ]

step apply -f testdata/landing-zone/ --yes
"${k[@]}" apply -f testdata/landing-zone/ --yes

step diff -f testdata/landing-zone/ "   # nothing changed: silent, exit 0"
"${k[@]}" diff -f testdata/landing-zone/

step diff -k testdata/overlays/prod "   # the overlay changes tags and a SKU"
"${k[@]}" diff -k testdata/overlays/prod || [ $? -eq 1 ]

step state list
"${k[@]}" state list

printf '\nemulator request counts: %s\n' "$(curl -fsS "$url/_emulator/stats")"
