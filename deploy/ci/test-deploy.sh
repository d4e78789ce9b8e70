#!/usr/bin/env bash
# `npm run test:deploy`: the image, the compose stack and the Helm chart, tested for real with podman
# (docs/deploy.md, "Testing the deployment"). Installs and configures podman when run as root, builds
# the base images that are missing and the app image, then runs deploy/test/*.test.ts. Takes minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "$(id -u)" = 0 ]; then
  deploy/ci/setup-podman.sh
elif ! command -v podman >/dev/null || ! command -v podman-compose >/dev/null; then
  echo "test:deploy needs rootful podman and podman-compose: run deploy/ci/setup-podman.sh as root" >&2
  exit 1
fi
deploy/ci/build-base-images.sh
export VIDGEN_IMAGE="${VIDGEN_IMAGE:-localhost/vidgen:ci}"
deploy/ci/build-image.sh
exec node --import tsx --test --test-concurrency=1 --test-timeout=1200000 deploy/test/*.test.ts
