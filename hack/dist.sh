#!/usr/bin/env bash
# Builds release archives for every platform krew serves and writes their
# sha256 into .krew.yaml. Archives are reproducible: sorted names, fixed
# times and owners, gzip without a timestamp.
set -euo pipefail
cd "$(dirname "$0")/.."

version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
release=${RELEASE_URL:-https://github.com/kubectl-azure/kubectl-azure/releases/download/$version}
platforms="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"

rm -rf dist
mkdir -p dist
# kubectl's completion of plugins runs kubectl_complete-azure: one script for
# every Unix platform, printed by the tool itself (a host build).
go build -trimpath -o dist/kubectl-azure-host ./cmd/kubectl-azure
dist/kubectl-azure-host completion kubectl >dist/kubectl_complete-azure
chmod 0755 dist/kubectl_complete-azure
rm -f dist/kubectl-azure-host
declare -A sums
for p in $platforms; do
  os=${p%/*}
  arch=${p#*/}
  ext=""
  [ "$os" = windows ] && ext=".exe"
  stage="dist/stage/${os}_${arch}"
  mkdir -p "$stage"
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath \
    -ldflags "-s -w -X github.com/kubectl-azure/kubectl-azure/pkg/version.Version=$version" \
    -o "$stage/kubectl-azure$ext" ./cmd/kubectl-azure
  cp README.md "$stage/"
  [ "$os" = windows ] || cp dist/kubectl_complete-azure "$stage/"
  archive="dist/kubectl-azure_${os}_${arch}.tar.gz"
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$stage" -cf - . | gzip -n -9 >"$archive"
  sums[$p]=$(sha256sum "$archive" | cut -d' ' -f1)
  echo "built $archive ${sums[$p]}"
done
rm -rf dist/stage dist/kubectl_complete-azure
(cd dist && sha256sum ./*.tar.gz >SHA256SUMS)

# .krew.yaml is the krew-release-bot template, committed: the bot renders
# it for each release. It must name exactly the archives built above.
for p in $platforms; do echo "$p"; done | hack/krew-manifest.sh --template | cmp -s - .krew.yaml ||
  { echo "dist: .krew.yaml is not what 'hack/krew-manifest.sh --template' writes for these platforms; regenerate it" >&2; exit 1; }
# The same manifest with these archives' checksums, to try with
# 'kubectl krew install --manifest=dist/krew.yaml --archive=...'.
krew=dist/krew.yaml
for p in $platforms; do echo "$p ${sums[$p]}"; done | hack/krew-manifest.sh "$version" "$release" >"$krew"
echo "wrote $krew for $version"
