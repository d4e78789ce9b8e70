#!/usr/bin/env bash
# Builds the repository's Dockerfile, unmodified, with podman: `FROM node:20-bookworm-slim` resolves to
# the local stand-in that build-base-images.sh made (--pull=never: a missing one fails, no registry is
# tried). --format docker keeps the HEALTHCHECK, which the OCI image format has no field for.
set -euo pipefail
cd "$(dirname "$0")"
. ./ca-mounts.sh
trap 'rm -f "$ci_npmrc"' EXIT
image="${VIDGEN_IMAGE:-localhost/vidgen:ci}"
started=$(date +%s)
podman build --pull=never --format docker "${CA_MOUNTS[@]}" -t "$image" -f ../../Dockerfile ../..
size=$(podman image inspect "$image" --format '{{.Size}}')
echo "[build-image] $image built in $(($(date +%s) - started)) s, $((size / 1000000)) MB"
