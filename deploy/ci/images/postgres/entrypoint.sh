#!/bin/bash
# The official image's first-start contract, reduced to what a compose stack uses: initialise PGDATA
# once with POSTGRES_USER/POSTGRES_PASSWORD/POSTGRES_DB and password authentication, then run postgres.
set -euo pipefail
: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set}"
user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"
as_pg() { runuser -u postgres -- "$@"; }
chown postgres:postgres "$PGDATA"
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  printf '%s' "$POSTGRES_PASSWORD" >/tmp/pwfile && chown postgres /tmp/pwfile
  as_pg initdb -D "$PGDATA" -U "$user" --pwfile=/tmp/pwfile --auth-local=trust --auth-host=scram-sha-256
  rm -f /tmp/pwfile
  echo "host all all 0.0.0.0/0 scram-sha-256" >>"$PGDATA/pg_hba.conf"
  if [ "$db" != postgres ]; then
    as_pg postgres --single -D "$PGDATA" -j postgres <<<"CREATE DATABASE \"$db\" OWNER \"$user\";" >/dev/null
  fi
fi
exec runuser -u postgres -- "$@" -c listen_addresses='*' -k /var/run/postgresql
