#!/usr/bin/env bash
# End-to-end demo against the bundled ARM emulator: no Azure account needed.
# Starts the emulator on a free loopback port, plans and applies the sample
# landing zone in testdata/, shows that a second plan is silent, changes one
# property through a kustomize overlay, and stops the emulator.
set -euo pipefail
cd "$(dirname "$0")/.."

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 18080)
work=$(mktemp -d)
trap 'kill "$emu" 2>/dev/null || true; wait "$emu" 2>/dev/null || true; rm -rf "$work"' EXIT

# Short LROs keep the demo quick; everything else is the emulator's default
# (ARM's throttle buckets, corpus quirks).
bin/arm-emulator --addr "127.0.0.1:$port" --lro 500ms --latency 20ms >"$work/emulator.log" 2>&1 &
emu=$!
for _ in $(seq 50); do
  curl -fsS "http://127.0.0.1:$port/_emulator/stats" >/dev/null 2>&1 && break
  sleep 0.1
done

export KUBECTL_AZURE_ENDPOINT="http://127.0.0.1:$port"
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

printf '\nemulator requests: %s\n' "$(curl -fsS "http://127.0.0.1:$port/_emulator/stats")"
