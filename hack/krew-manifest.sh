#!/usr/bin/env bash
# Prints the krew plugin manifest for VERSION, with archives under
# RELEASE_URL; standard input lists "os/arch sha256" lines, one per
# platform (hack/dist.sh feeds it the archives it built).
#
# With --template it prints .krew.yaml instead: the krew-release-bot
# template, whose {{ .TagName }} and addURIAndSha the bot fills in from
# the release (standard input then lists "os/arch" lines). One script
# writes both, so they name the same archives.
set -euo pipefail
template=false
if [ "${1:-}" = --template ]; then
  template=true
  set -- '{{ .TagName }}' "https://github.com/kubectl-azure/kubectl-azure/releases/download/{{ .TagName }}"
fi
[ $# -eq 2 ] || { echo "usage: $0 VERSION RELEASE_URL <sums, or $0 --template <platforms" >&2; exit 2; }
version=$1
release=$2
if $template; then
  cat <<YAML
# krew plugin manifest template for krew-release-bot, which renders it for
# each release tag (the archives' sha256 come from the release). Written by
# 'hack/krew-manifest.sh --template'; 'make dist' checks the archives it
# names are the ones it builds.
YAML
else
  cat <<YAML
# krew plugin manifest written by 'make dist' (hack/dist.sh): the sha256
# values are those of the archives it built; do not edit them by hand.
YAML
fi
  cat <<YAML
apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: azure
spec:
  version: $version
  homepage: https://github.com/kubectl-azure/kubectl-azure
  shortDescription: Plan and apply declarative Azure Resource Manager state
  description: |
    kubectl azure loads Kubernetes-style manifests of Azure resources, reads
    their live state, and prints a three-way plan (manifest, last applied,
    live) that stays silent when nothing you own changed. apply writes with
    PATCH where possible, follows long-running operations, paces itself to
    ARM's throttling limits and records state locally or in Kubernetes.
  caveats: |
    Authenticate as for the Azure CLI or any azidentity credential
    (az login, environment, workload identity, managed identity), and set
    AZURE_SUBSCRIPTION_ID or pass --subscription.
  platforms:
YAML
  while read -r p sum; do
    os=${p%/*}
    arch=${p#*/}
    ext=""
    [ "$os" = windows ] && ext=".exe"
    uri="$release/kubectl-azure_${os}_${arch}.tar.gz"
    cat <<YAML
  - selector:
      matchLabels:
        os: $os
        arch: $arch
YAML
    if $template; then
      echo "    {{ addURIAndSha \"$uri\" .TagName }}"
    else
      printf '    uri: %s\n    sha256: "%s"\n' "$uri" "$sum"
    fi
    cat <<YAML
    bin: kubectl-azure$ext
    files:
    - from: kubectl-azure$ext
      to: .
    - from: README.md
      to: .
YAML
    [ "$os" = windows ] || cat <<YAML
    - from: kubectl_complete-azure
      to: .
YAML
  done
