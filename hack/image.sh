#!/usr/bin/env bash
# Builds the controller's image, the one `controller install` names
# (kubectl-azure:VERSION), as an OCI archive (a tar of an OCI image layout),
# with no Docker daemon and nothing pulled from a registry:
#   - the base is made here from scratch: the build machine's CA bundle (ARM
#     is HTTPS) and /etc/passwd with a non-root user, as one layer;
#   - ko reads a base only from a registry, so the base is pushed to a
#     throwaway in-memory registry on loopback (crane registry serve) that
#     lives for this script only;
#   - ko builds ./cmd/kubectl-azure with the version stamped, as make build
#     does, and writes the layout; the layout is tarred to OUT.
# Load it into a cluster's nodes, e.g. `kind load image-archive OUT` or
# `ctr -n k8s.io images import OUT`, or push it: `crane push OUT REPO:TAG`.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=${VERSION:-dev}
OUT=${OUT:-bin/kubectl-azure-image-${VERSION}.tar}
TOOLS=${TOOLS:-$PWD/bin/tools}
KO_VERSION=v0.18.1
CRANE_VERSION=v0.20.6
CA_BUNDLE=${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
# The user the Deployment's runAsNonRoot needs to see as a number.
NONROOT=65532

tool() { # NAME MODULE VERSION: install a pinned tool under TOOLS once
	if ! "$TOOLS/$1" version 2>/dev/null | grep -qx "$3"; then
		GOBIN="$TOOLS" go install "$2@$3"
	fi
}
mkdir -p "$TOOLS" "$(dirname "$OUT")"
tool ko github.com/google/ko "$KO_VERSION"
tool crane github.com/google/go-containerregistry/cmd/crane "$CRANE_VERSION"

work=$(mktemp -d)
reg_pid=
cleanup() {
	[ -n "$reg_pid" ] && kill "$reg_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# The base layer, with fixed owners and times so it is the same every build.
mkdir -p "$work/root/etc/ssl/certs" "$work/root/tmp"
cp "$CA_BUNDLE" "$work/root/etc/ssl/certs/ca-certificates.crt"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n' "$NONROOT" "$NONROOT" >"$work/root/etc/passwd"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$work/root" -cf "$work/base.tar" .

"$TOOLS/crane" registry serve --address 127.0.0.1:0 2>"$work/registry.log" &
reg_pid=$!
port=
for _ in $(seq 50); do
	port=$(sed -n 's/.*serving on port \([0-9]*\).*/\1/p' "$work/registry.log")
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || { echo "image: the loopback registry did not start" >&2; cat "$work/registry.log" >&2; exit 1; }
reg=127.0.0.1:$port
arch=$(go env GOARCH)

"$TOOLS/crane" append --oci-empty-base -f "$work/base.tar" -t "$reg/base:scratch" >/dev/null
"$TOOLS/crane" mutate --user "$NONROOT:$NONROOT" --set-platform "linux/$arch" "$reg/base:scratch" -t "$reg/base:scratch" >/dev/null

# The version is stamped as make build stamps it.
cat >"$work/.ko.yaml" <<EOF
builds:
- id: kubectl-azure
  main: ./cmd/kubectl-azure
  ldflags: ["-s", "-w", "-X github.com/kubectl-azure/kubectl-azure/pkg/version.Version=$VERSION"]
EOF
KO_CONFIG_PATH="$work/.ko.yaml" KO_DEFAULTBASEIMAGE="$reg/base:scratch" KO_DOCKER_REPO="$reg/kubectl-azure" CGO_ENABLED=0 \
	"$TOOLS/ko" build ./cmd/kubectl-azure --bare --tags "$VERSION" --platform "linux/$arch" --sbom none \
	--image-label "org.opencontainers.image.version=$VERSION" >/dev/null

# The archive names the image as install does (kubectl-azure:VERSION, in
# full docker.io/library/kubectl-azure:VERSION), not by the throwaway
# registry: index.json is not content-addressed, so renaming is safe.
"$TOOLS/crane" pull --format oci --annotate-ref "$reg/kubectl-azure:$VERSION" "$work/layout"
sed -i "s#$reg/kubectl-azure:#docker.io/library/kubectl-azure:#g" "$work/layout/index.json"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$work/layout" -cf "$OUT" .
echo "kubectl-azure:$VERSION -> $OUT (OCI archive, linux/$arch)"
