#!/usr/bin/env bash
# Installs rootful podman from Debian and configures it for a CI machine of the project's kind
# (Debian 12, root, cgroup v1 hybrid, hard rlimits). Idempotent: a second run changes nothing.
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "setup-podman.sh: run as root (rootful podman)" >&2; exit 1; }

if ! command -v podman >/dev/null || ! command -v podman-compose >/dev/null || ! command -v mmdebstrap >/dev/null \
  || ! command -v runc >/dev/null || ! command -v catatonit >/dev/null; then
  # catatonit: `podman kube play` builds its local pause image from it (no registry to pull one from).
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    podman podman-compose mmdebstrap runc catatonit netavark aardvark-dns slirp4netns uidmap iptables fuse-overlayfs ca-certificates
fi

conf=/etc/containers/containers.conf
if ! grep -qs 'vidgen-ci' "$conf"; then
  mkdir -p /etc/containers
  # podman's root defaults (nofile=1048576, nproc=4194304) exceed what such a sandbox lets a process
  # raise, and crun refuses cgroup v1 hybrid hosts ("cgroups in hybrid mode not supported"): runc works.
  cat >"$conf" <<CONF
# vidgen-ci: written by deploy/ci/setup-podman.sh
[containers]
default_ulimits = ["nofile=$(ulimit -Hn):$(ulimit -Hn)", "nproc=32768:32768"]
[engine]
runtime = "runc"
CONF
fi
podman info --format '{{.Store.GraphDriverName}} {{.Host.OCIRuntime.Name}} {{.Host.NetworkBackend}}'
