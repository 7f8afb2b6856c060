#!/usr/bin/env bash
# Runs the Python and the JavaScript client test suites; exits non-zero if either fails.
#
#   LATCHKEY_BIN=/path/to/latchkey clients/run-tests.sh
#
# LATCHKEY_BIN may be absolute, relative to the current directory, or a command on PATH.
# Unset, the built binary under .build (debug, then release) is used when there is one;
# without any, the tests that need the real server skip and say so.
# PYTHON and NODE choose the interpreters (python3, node).
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
python="${PYTHON:-python3}"
node="${NODE:-node}"

if [ -z "${LATCHKEY_BIN:-}" ]; then
  for candidate in "$repo/.build/debug/latchkey" "$repo/.build/release/latchkey"; do
    if [ -x "$candidate" ]; then LATCHKEY_BIN="$candidate"; break; fi
  done
fi
if [ -n "${LATCHKEY_BIN:-}" ]; then
  case "$LATCHKEY_BIN" in
    /*) ;;
    */*) LATCHKEY_BIN="$PWD/$LATCHKEY_BIN" ;;
    *) LATCHKEY_BIN="$(command -v "$LATCHKEY_BIN" || echo "$LATCHKEY_BIN")" ;;
  esac
  export LATCHKEY_BIN
  echo "clients: testing against $LATCHKEY_BIN"
else
  echo "clients: no latchkey binary (set LATCHKEY_BIN): the tests that need it will skip"
fi

status=0
echo "== Python client"
# PYTEST_WORKERS: pytest-xdist workers (make clients-test sets it; unset, one process).
workers=()
if [ -n "${PYTEST_WORKERS:-}" ] && [ "${PYTEST_WORKERS}" != 1 ]; then workers=(-n "$PYTEST_WORKERS"); fi
(cd "$here/python" && PYTHON="$python" "$python" -m pytest -q -p no:cacheprovider "${workers[@]}" tests) || status=1
echo "== JavaScript client"
(cd "$here/js" && PYTHON="$python" "$node" --test test/*.test.mjs) || status=1
exit "$status"
