#!/usr/bin/env bash
# Builds the repository's Dockerfile, unmodified, with podman: `FROM node:24-bookworm-slim` resolves to
# the local stand-in that build-base-images.sh made (--pull=never: a missing one fails, no registry is
# tried). --format docker keeps the HEALTHCHECK, which the OCI image format has no field for.
# VIDGEN_BUILD_NO_CACHE=1 rebuilds every layer (a cold build, for timing it).
set -euo pipefail
cd "$(dirname "$0")"
. ./ca-mounts.sh
image="${VIDGEN_IMAGE:-localhost/vidgen:ci}"
started=$(date +%s)

# Build-time caches, mounted and never baked in. The host's npm cache spares `npm ci` the downloads.
# better-sqlite3's installer would fetch a prebuilt addon from GitHub, which is unreachable here, and
# then compile SQLite for minutes: when the host has the image's Node ABI and Debian release, its own
# compiled addon is offered in prebuild-install's cache, which is what a connected build downloads.
CACHE_MOUNTS=()
npm_cache=$(npm config get cache)
if [ -d "$npm_cache/_cacache" ]; then CACHE_MOUNTS+=(-v "$npm_cache/_cacache:/root/.npm/_cacache"); fi
prebuilds=$(mktemp -d)
trap 'rm -f "$ci_npmrc"; rm -rf "$prebuilds"' EXIT
image_abi=$(podman run --rm --pull=never node:24-bookworm-slim node -p 'process.versions.modules + " " + require("fs").readFileSync("/etc/debian_version", "utf8").split(".")[0]')
host_abi=$(node -p 'process.versions.modules + " " + require("fs").readFileSync("/etc/debian_version", "utf8").split(".")[0]')
if [ "$image_abi" = "$host_abi" ]; then
  node seed-prebuild.cjs "$prebuilds" && CACHE_MOUNTS+=(-v "$prebuilds/_prebuilds:/root/.npm/_prebuilds")
else
  echo "[build-image] host (ABI, Debian) $host_abi differs from the image's $image_abi: better-sqlite3 compiles"
fi
podman build --pull=never ${VIDGEN_BUILD_NO_CACHE:+--no-cache} --format docker "${CA_MOUNTS[@]}" "${CACHE_MOUNTS[@]}" -t "$image" -f ../../Dockerfile ../..
size=$(podman image inspect "$image" --format '{{.Size}}')
echo "[build-image] $image built in $(($(date +%s) - started)) s, $((size / 1000000)) MB"
