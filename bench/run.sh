#!/usr/bin/env bash
# Runs every Latchkey benchmark in order, then prints a summary against the targets.
#   1. builds the C reference (bench/echo.c -> bench/out/echo_c)
#   2. pipelined.sh   throughput, 200 000 pipelined pings
#   3. latency.py     interactive round trips, unpinned and pinned to one core
#   4. coldstart.py   spawn -> one ping -> EOF -> exit
#   5. coldstart_mcp.py  `latchkey mcp` to its initialize answer against plain latchkey to a ping (<= 1 ms apart)
#   5b. startup.py    one ping's CPU against `latchkey --version` (<= 2 ms apart)
#   6. external_device.py  an outside device's PIN authentication vs a simulated one
#   6b. callbacks.py  deliveries per second, commit-to-answer latency, PIN authentications with a busy receiver
#   6c. passkey_peer.py  a passkey sign-in's CPU beside the same Relying Party in Python (py_webauthn + sqlite3)
#   6d. enumeration.py   known against unknown identifiers: medians and the rank-sum z of six methods
#   6e. pending_operations.py  admin/createOperation beside 2 000 pending operations, one advance over their expiries
#   7. callgrind.sh   instructions per pipelined ping, latchkey and C (only when valgrind is installed)
# Each step has its own time limit; a failed step is reported and the others still run.
# Logs and JSON results go to bench/out/. Exit status: 0 if every step ran, 1 otherwise
# (a figure missing its target does not make the run fail; the summary says so).
#
# Environment: LATCHKEY_BIN (default ../.build/release/latchkey), LATCHKEY_ARGS (default
# --in-memory), ECHO_BIN, plus each script's own knobs (see README.md).
set -uo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT_DIR="$BENCH_DIR/out"
mkdir -p "$OUT_DIR"
export PYTHONDONTWRITEBYTECODE=1
export LATCHKEY_BIN="${LATCHKEY_BIN:-$BENCH_DIR/../.build/release/latchkey}"

rm -f "$OUT_DIR"/{pipelined,latency,coldstart,coldstart_mcp,startup}.json "$OUT_DIR"/*.stderr.log
failed=0

# step NAME LIMIT_SECONDS COMMAND...
step() {
    local name="$1" limit="$2"
    shift 2
    echo
    timeout -k 5 "$limit" "$@" 2>&1 | tee "$OUT_DIR/$name.log"
    local rc=${PIPESTATUS[0]}
    if [[ $rc -ne 0 ]]; then
        [[ $rc -eq 124 ]] && echo "error: $name exceeded its ${limit}s limit" >&2
        echo "error: $name failed (status $rc); log in $OUT_DIR/$name.log" >&2
        failed=1
    fi
}

echo "== Latchkey benchmarks ($(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -sr), $(nproc) CPUs)"
echo "  latchkey: $LATCHKEY_BIN ${LATCHKEY_ARGS---in-memory}"
if ! ECHO_BIN="${ECHO_BIN:-$("$BENCH_DIR/build_echo.sh")}"; then
    echo "error: could not build bench/echo.c" >&2
    exit 1
fi
export ECHO_BIN
echo "  c-echo:   $ECHO_BIN"

step pipelined 900 "$BENCH_DIR/pipelined.sh"
step latency 300 python3 "$BENCH_DIR/latency.py"
step coldstart 300 python3 "$BENCH_DIR/coldstart.py"
step coldstart_mcp 300 python3 "$BENCH_DIR/coldstart_mcp.py"
step startup 300 python3 "$BENCH_DIR/startup.py"
step pending_operations 300 python3 "$BENCH_DIR/pending_operations.py"
# An outside device's PIN authentication (server/ challenge + verify, signed outside the timing)
# against a simulated device's, in one process (needs the venv's cryptography: make venv).
VENV_PY="$BENCH_DIR/../.build/venv/bin/python"
if [[ -x "$VENV_PY" ]]; then
    step external_device 600 "$VENV_PY" "$BENCH_DIR/external_device.py" "$LATCHKEY_BIN" "${EXTERNAL_N:-1000}"
    # Callbacks: deliveries per second, commit-to-answer latency, PIN authentications with a busy receiver.
    step callbacks 600 "$VENV_PY" "$BENCH_DIR/callbacks.py"
    step passkey_peer 900 "$VENV_PY" "$BENCH_DIR/passkey_peer.py"
    step enumeration 900 "$VENV_PY" "$BENCH_DIR/enumeration.py"
else
    echo "external_device: skipped (no .build/venv; run make venv)"
    echo "callbacks, passkey_peer, enumeration: skipped (no .build/venv; run make venv)"
fi
# Instructions per pipelined ping: the same count on every run, where the timings above are not.
if command -v valgrind >/dev/null; then
    step callgrind 900 "$BENCH_DIR/callgrind.sh"
else
    echo "callgrind: skipped (valgrind is not installed)"
fi

echo
python3 "$BENCH_DIR/summary.py"
exit $failed
