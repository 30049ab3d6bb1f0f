#!/usr/bin/env bash
# make fuzz: runs every fuzz target in the repository for FUZZTIME each
# (default 1m). Not part of CI: fuzzing is open-ended and machine-bound.
# Targets are discovered, not listed, so a new Fuzz function is picked up
# without touching this script. New crashers land in the package's
# testdata/fuzz/ directory, where `go test` replays them from then on.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-1m}

# go test -list prints a package's matching test names, then "ok  <pkg> ...".
targets=()
pending=()
while IFS= read -r line; do
  case "$line" in
    Fuzz*) pending+=("$line") ;;
    ok*)
      pkg=$(awk '{print $2}' <<<"$line")
      for t in "${pending[@]}"; do targets+=("$pkg $t"); done
      pending=()
      ;;
    *) pending=() ;;
  esac
done < <(go test -list '^Fuzz' ./... 2>/dev/null)

if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz: no fuzz targets found" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} target(s), $fuzztime each" >&2

failed=()
for entry in "${targets[@]}"; do
  read -r pkg name <<<"$entry"
  echo "fuzz: $pkg $name" >&2
  # -run '^$' skips the unit tests; only the fuzz target (and its seed
  # corpus) runs. One target per invocation: go test allows one -fuzz.
  if ! go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime"; then
    failed+=("$pkg $name")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failing targets (crashers saved under each package's testdata/fuzz):" >&2
  printf '  %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "fuzz: all targets ran $fuzztime without a failure" >&2
