#!/usr/bin/env bash
# A private PostgreSQL cluster for the tests and benchmarks: initdb into a temp dir, a Unix
# socket in that dir, nothing on the network, fsync off. Run as the `postgres` user when
# started as root (the server refuses to run as root).
#
#   cluster.sh install            install PostgreSQL from Debian when missing
#   cluster.sh run CMD [ARG…]     start a cluster, run CMD with LATCHKEY_TEST_POSTGRES (its URI)
#                                 and LATCHKEY_PG_CLUSTER (its dir) set, stop it, exit with CMD's status;
#                                 with LATCHKEY_TEST_POSTGRES already set, run CMD on that database
#   cluster.sh pause DIR | resume DIR   stop / start the server of a running cluster (restart tests)
set -euo pipefail

bindir() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -n "$dir" ] && [ -x "$dir/initdb" ] || return 1
  echo "$dir"
}

install() {
  bindir >/dev/null && return 0
  echo "installing PostgreSQL (Debian package postgresql)" >&2
  local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
  # The package may start its own cluster; the tests do not use it.
  bindir >/dev/null
}

# Runs a command as the cluster's owner.
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

server_options() {
  echo "-c listen_addresses='' -k $1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100 -c shared_buffers=64MB"
}

start() {
  local bin dir
  bin=$(bindir)
  dir=$(mktemp -d /tmp/latchkey-pg.XXXXXX)
  chmod 0755 "$dir"
  [ "$(id -u)" = 0 ] && chown postgres: "$dir"
  as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust --no-sync -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; return 1; }
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -o "$(server_options "$dir")" start >/dev/null \
    || { cat "$dir/server.log" >&2; return 1; }
  echo "$dir"
}

pause() { as_owner "$(bindir)/pg_ctl" -D "$1/data" -m fast -w stop >/dev/null; }
resume() { as_owner "$(bindir)/pg_ctl" -D "$1/data" -l "$1/server.log" -w -o "$(server_options "$1")" start >/dev/null; }

stop() {
  local dir=$1
  [ -d "$dir/data" ] && as_owner "$(bindir)/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}

case "${1:-}" in
  install) install ;;
  run)
    shift
    # Your own database: LATCHKEY_TEST_POSTGRES already set is used as it is (no restart test).
    if [ -n "${LATCHKEY_TEST_POSTGRES:-}" ] && [ -z "${LATCHKEY_PG_CLUSTER:-}" ]; then exec "$@"; fi
    install
    dir=$(start)
    trap 'stop "$dir"' EXIT
    export LATCHKEY_PG_CLUSTER="$dir"
    export LATCHKEY_TEST_POSTGRES="postgresql:///postgres?host=$dir&user=postgres"
    echo "private PostgreSQL cluster at $dir" >&2
    set +e
    "$@"
    status=$?
    exit $status ;;
  pause) pause "$2" ;;
  resume) resume "$2" ;;
  *) echo "usage: $0 install | run CMD [ARG…] | pause DIR | resume DIR" >&2; exit 2 ;;
esac
