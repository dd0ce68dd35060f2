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
# HYBRIDRAG_PG_FRESH=1 drops and recreates the test database.
#
# Per-run servers: HYBRIDRAG_PGPORT=auto picks a free port when the cluster is created and
# records it in the cluster's postgresql.conf, where later start/stop/dsn calls with the same
# HYBRIDRAG_PGDATA read it back. With a data directory of its own, a run cannot touch another
# run's server or database; .ci/run does this:
#
#   export HYBRIDRAG_PGDATA=$(mktemp -d /tmp/hybridrag-pg-run.XXXXXX) HYBRIDRAG_PGPORT=auto
#   DSN=$(bash .ci/postgres.sh start | tail -n1)
#   ...; bash .ci/postgres.sh stop; rm -rf "$HYBRIDRAG_PGDATA"
#
# pgvector is not packaged for Debian 12, so it is built from Debian's own source package
# (suite trixie, pgvector 0.8.x) against postgresql-server-dev-15.
set -euo pipefail

PGBIN=/usr/lib/postgresql/15/bin
PG_CONFIG=$PGBIN/pg_config
PGDATA=${HYBRIDRAG_PGDATA:-/tmp/hybridrag-pg}
PGPORT=${HYBRIDRAG_PGPORT:-55432}
DB=hybridrag_test

log() { echo "postgres.sh: $*" >&2; }

# configured_port prints the port recorded in an existing cluster's postgresql.conf (the last
# "port = N" line wins, as in PostgreSQL), or nothing.
configured_port() {
  [ -f "$PGDATA/postgresql.conf" ] || return 0
  sed -n 's/^[[:space:]]*port[[:space:]]*=[[:space:]]*\([0-9][0-9]*\).*/\1/p' "$PGDATA/postgresql.conf" | tail -n1
}

# port_in_use reports whether something listens on 127.0.0.1:$1.
port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# free_port prints a port in 20000-59999 that nothing listens on.
free_port() {
  local p i
  for i in $(seq 1 200); do
    p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    if ! port_in_use "$p"; then
      echo "$p"
      return
    fi
  done
  log "no free port found"
  return 1
}

if [ "$PGPORT" = auto ]; then
  PGPORT=$(configured_port)
  PGPORT=${PGPORT:-auto}
fi

dsn() {
  if [ "$PGPORT" = auto ]; then
    log "no cluster in $PGDATA yet: run start first"
    exit 1
  fi
  echo "postgres://postgres@127.0.0.1:${PGPORT}/${DB}?sslmode=disable"
}

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
    # OPTFLAGS="": pgvector's portable build, not its default -march=native, which can stop
    # with "Illegal instruction" on another CPU. pgvector 0.8 picks an AVX2+FMA version of its
    # vector distances at run time (target_clones) where the CPU has them, and a -march=native
    # build (AVX-512 loops) measured no faster here: HNSW build, vector and hybrid search
    # (BENCHMARKS.md, "pgvector built for this CPU").
    make -s PG_CONFIG="$PG_CONFIG" OPTFLAGS="" >&2
    make -s PG_CONFIG="$PG_CONFIG" install >&2
  )
  rm -rf "$work"
  log "pgvector installed ($(grep default_version "$extdir/vector.control"))"
}

ensure_cluster() {
  if [ ! -f "$PGDATA/PG_VERSION" ]; then
    if [ "$PGPORT" = auto ]; then
      PGPORT=$(free_port)
    fi
    log "initdb $PGDATA (port $PGPORT)"
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
  if [ "$PGPORT" = auto ]; then
    log "HYBRIDRAG_PGPORT=auto but $PGDATA/postgresql.conf names no port"
    exit 1
  fi
  if as_postgres "$PGBIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
    log "server already running on port $PGPORT"
  elif [ "${HYBRIDRAG_PGPORT:-}" = auto ]; then
    # Another run may have taken the chosen port between the check and the start:
    # move to a new free port and try again.
    local try
    for try in 1 2 3 4 5; do
      if as_postgres "$PGBIN/pg_ctl" -D "$PGDATA" -l "$PGDATA/server.log" -w -t 60 start >&2; then
        break
      fi
      if [ "$try" = 5 ] || ! port_in_use "$PGPORT"; then
        log "could not start the server (see $PGDATA/server.log)"
        exit 1
      fi
      PGPORT=$(free_port)
      log "port taken; retrying on port $PGPORT"
      echo "port = $PGPORT" >>"$PGDATA/postgresql.conf"
    done
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
  dsn
}

stop() {
  if [ -f "$PGDATA/PG_VERSION" ] && as_postgres "$PGBIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
    as_postgres "$PGBIN/pg_ctl" -D "$PGDATA" -m fast -w stop >&2
  fi
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  dsn) dsn ;;
  *) echo "usage: $0 start|stop|dsn" >&2; exit 2 ;;
esac
