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
#   cluster.sh run-standby CMD [ARG…]
#                                 start a primary and a streaming standby (pg_basebackup -R), each
#                                 on a Unix socket in its own temp dir; once the standby streams,
#                                 make it synchronous (synchronous_standby_names = 's1',
#                                 synchronous_commit = on: before that, every commit would wait);
#                                 run CMD with LATCHKEY_TEST_POSTGRES_HA (the multi-host URI of the
#                                 database `postgres`), LATCHKEY_PG_PRIMARY and LATCHKEY_PG_STANDBY
#                                 (their dirs) set; stop both; exit with CMD's status
#   cluster.sh kill DIR           stop a server at once (pg_ctl stop -m immediate: a crash)
#   cluster.sh promote DIR        promote a standby and wait until it accepts writes
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

# LATCHKEY_PG_DURABLE=1: fsync, synchronous commit and full-page writes on (benchmarks).
server_options() {
  if [ "${LATCHKEY_PG_DURABLE:-}" = 1 ]; then
    echo "-c listen_addresses='' -k $1 -c fsync=on -c synchronous_commit=on -c full_page_writes=on -c max_connections=100 -c shared_buffers=64MB"
  else
    echo "-c listen_addresses='' -k $1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100 -c shared_buffers=64MB"
  fi
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

# The primary for run-standby: synchronous commit is left to postgresql.auto.conf (ALTER SYSTEM),
# which a command-line setting would override.
ha_options() {
  echo "-c listen_addresses='' -k $1 -c fsync=off -c full_page_writes=off -c max_connections=100 -c shared_buffers=64MB -c wal_level=replica -c max_wal_senders=5"
}

start_primary() {
  local bin dir
  bin=$(bindir)
  dir=$(mktemp -d /tmp/latchkey-pgp.XXXXXX)
  chmod 0755 "$dir"
  [ "$(id -u)" = 0 ] && chown postgres: "$dir"
  as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust --no-sync -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; return 1; }
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -o "$(ha_options "$dir")" start >/dev/null \
    || { cat "$dir/server.log" >&2; return 1; }
  echo "$dir"
}

start_standby() {
  local bin primary=$1 dir
  bin=$(bindir)
  dir=$(mktemp -d /tmp/latchkey-pgs.XXXXXX)
  chmod 0755 "$dir"
  [ "$(id -u)" = 0 ] && chown postgres: "$dir"
  as_owner "$bin/pg_basebackup" -D "$dir/data" -R -X stream --no-sync \
    -d "host=$primary user=postgres application_name=s1" >"$dir/basebackup.log" 2>&1 \
    || { cat "$dir/basebackup.log" >&2; return 1; }
  # -R wrote standby.signal and primary_conninfo; name the standby s1 whatever -R kept.
  echo "primary_conninfo = 'host=$primary user=postgres application_name=s1'" | as_owner tee -a "$dir/data/postgresql.auto.conf" >/dev/null
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -o "$(ha_options "$dir")" start >/dev/null \
    || { cat "$dir/server.log" >&2; return 1; }
  echo "$dir"
}

# Waits until the standby streams, then makes it synchronous.
make_synchronous() {
  local primary=$1 psql i
  psql="$(bindir)/psql"
  for i in $(seq 1 100); do
    [ "$(as_owner "$psql" -X -At -h "$primary" -U postgres -d postgres \
      -c "SELECT count(*) FROM pg_stat_replication WHERE application_name = 's1' AND state = 'streaming'")" = 1 ] && break
    sleep 0.1
  done
  as_owner "$psql" -X -q -h "$primary" -U postgres -d postgres -v ON_ERROR_STOP=1 \
    -c "ALTER SYSTEM SET synchronous_standby_names = 's1'" -c "ALTER SYSTEM SET synchronous_commit = on" \
    -c "SELECT pg_reload_conf()" >/dev/null
  for i in $(seq 1 100); do
    [ "$(as_owner "$psql" -X -At -h "$primary" -U postgres -d postgres \
      -c "SELECT count(*) FROM pg_stat_replication WHERE application_name = 's1' AND sync_state = 'sync'")" = 1 ] && return 0
    sleep 0.1
  done
  echo "the standby never became synchronous" >&2
  return 1
}

kill_server() { as_owner "$(bindir)/pg_ctl" -D "$1/data" -m immediate -w stop >/dev/null 2>&1 || true; }
promote() { as_owner "$(bindir)/pg_ctl" -D "$1/data" -w promote >/dev/null; }

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
  run-standby)
    shift
    install
    primary=$(start_primary)
    standby=""
    trap 'stop "$primary"; [ -n "$standby" ] && stop "$standby"' EXIT
    standby=$(start_standby "$primary")
    make_synchronous "$primary"
    export LATCHKEY_PG_PRIMARY="$primary" LATCHKEY_PG_STANDBY="$standby"
    export LATCHKEY_TEST_POSTGRES_HA="postgresql:///postgres?host=$primary,$standby&user=postgres&target_session_attrs=read-write"
    echo "private PostgreSQL primary at $primary, synchronous standby at $standby" >&2
    set +e
    "$@"
    status=$?
    exit $status ;;
  kill) kill_server "$2" ;;
  promote) promote "$2" ;;
  pause) pause "$2" ;;
  resume) resume "$2" ;;
  *) echo "usage: $0 install | run CMD [ARG…] | run-standby CMD [ARG…] | pause DIR | resume DIR | kill DIR | promote DIR" >&2; exit 2 ;;
esac
