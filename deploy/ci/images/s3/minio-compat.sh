#!/bin/sh
# `minio server <dir> [options]` as s3rver: the directory is kept, MinIO's options are ignored.
set -eu
[ "${1:-}" = server ] || { echo "usage: minio server <dir>" >&2; exit 2; }
exec s3rver --directory "${2:-/data}" --address 0.0.0.0 --port 9000 --no-vhost-buckets
