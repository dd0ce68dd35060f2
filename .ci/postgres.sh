#!/usr/bin/env bash
# postgres.sh — provision PostgreSQL 15 + pgvector 0.8 on Debian 12, idempotently.
#
#   .ci/postgres.sh start   build pgvector if missing, init a cluster if missing,
#                           start it, create the test database and extensions,
#                           and print the DSN on the last line of stdout.
#   .ci/postgres.sh stop    stop the server this script started.
#   .ci/postgres.sh dsn     print the DSN.
#
# Environment: HYBRIDRAG_PGDATA (default /tmp/hybridrag-pg), HYBRIDRAG_PGPORT (default 55432),
# HYBRIDRAG_PG_FRESH=1 drops and recreates the test database (CI does this).
# pgvector is not packaged for Debian 12, so it is built from Debian's own source package
# (suite trixie, pgvector 0.8.x) against postgresql-server-dev-15.
set -euo pipefail

PGBIN=/usr/lib/postgresql/15/bin
PG_CONFIG=$PGBIN/pg_config
PGDATA=${HYBRIDRAG_PGDATA:-/tmp/hybridrag-pg}
PGPORT=${HYBRIDRAG_PGPORT:-55432}
DB=hybridrag_test
DSN="postgres://postgres@127.0.0.1:${PGPORT}/${DB}?sslmode=disable"

log() { echo "postgres.sh: $*" >&2; }

as_postgres() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

apt_updated=0
apt_update() {
  if [ "$apt_updated" = 0 ]; then
    apt-get update -qq >&2
    apt_updated=1
  fi
}

ensure_pgvector() {
  local extdir
  extdir=$($PG_CONFIG --sharedir)/extension
  if [ -f "$extdir/vector.control" ] && [ -f "$($PG_CONFIG --pkglibdir)/vector.so" ]; then
    log "pgvector already installed ($(grep default_version "$extdir/vector.control"))"
    return
  fi
  log "building pgvector from Debian's source package"
  export DEBIAN_FRONTEND=noninteractive
  if [ ! -f /etc/apt/sources.list.d/hybridrag-trixie-src.sources ]; then
    cat >/etc/apt/sources.list.d/hybridrag-trixie-src.sources <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  fi
  apt_update
  if [ ! -x "$PG_CONFIG" ] || [ ! -d "$($PG_CONFIG --includedir-server)" ]; then
    apt-get install -y -qq postgresql-server-dev-15 >&2
  fi
  command -v make >/dev/null || apt-get install -y -qq make >&2
  command -v dpkg-source >/dev/null || apt-get install -y -qq dpkg-dev >&2
  local work
  work=$(mktemp -d)
  (
    cd "$work"
    apt-get source --download-only pgvector >&2
    local orig
    orig=$(ls pgvector_*.orig.tar.* | head -n1)
    mkdir src
    tar -xf "$orig" -C src --strip-components=1
    cd src
    make -s PG_CONFIG="$PG_CONFIG" OPTFLAGS="" >&2
    make -s PG_CONFIG="$PG_CONFIG" install >&2
  )
  rm -rf "$work"
  log "pgvector installed ($(grep default_version "$extdir/vector.control"))"
}

ensure_cluster() {
  if [ ! -f "$PGDATA/PG_VERSION" ]; then
    log "initdb $PGDATA"
    mkdir -p "$PGDATA"
    chown postgres:postgres "$PGDATA" 2>/dev/null || true
    chmod 700 "$PGDATA"
    as_postgres "$PGBIN/initdb" -D "$PGDATA" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
    cat >>"$PGDATA/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $PGPORT
unix_socket_directories = '$PGDATA'
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = 512MB
maintenance_work_mem = 1GB
max_connections = 200
CONF
  fi
}

start() {
  ensure_pgvector
  ensure_cluster
  if as_postgres "$PGBIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
    log "server already running on port $PGPORT"
  else
    as_postgres "$PGBIN/pg_ctl" -D "$PGDATA" -l "$PGDATA/server.log" -w -t 60 start >&2
  fi
  local psql=("$PGBIN/psql" -h 127.0.0.1 -p "$PGPORT" -U postgres -v ON_ERROR_STOP=1 -q)
  if [ "${HYBRIDRAG_PG_FRESH:-0}" = 1 ]; then
    "${psql[@]}" -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >&2
  fi
  if ! "${psql[@]}" -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname='$DB'" | grep -q 1; then
    "${psql[@]}" -d postgres -c "CREATE DATABASE $DB" >&2
  fi
  "${psql[@]}" -d "$DB" -c "CREATE EXTENSION IF NOT EXISTS vector; CREATE EXTENSION IF NOT EXISTS pg_trgm;" >&2
  log "ready: $("${psql[@]}" -d "$DB" -tAc "SELECT 'postgres ' || current_setting('server_version') || ', vector ' || extversion FROM pg_extension WHERE extname='vector'")"
  echo "$DSN"
}

stop() {
  if [ -f "$PGDATA/PG_VERSION" ] && as_postgres "$PGBIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
    as_postgres "$PGBIN/pg_ctl" -D "$PGDATA" -m fast -w stop >&2
  fi
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  dsn) echo "$DSN" ;;
  *) echo "usage: $0 start|stop|dsn" >&2; exit 2 ;;
esac
