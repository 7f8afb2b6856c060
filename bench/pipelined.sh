#!/usr/bin/env bash
# Pipelined throughput: N ping requests written as fast as a pipe takes them, all replies
# read back; latchkey and the C echo run alternately, ROUNDS times each.
# Reports the median req/s of each and the ratio latchkey / C (target >= 0.9, 1.0 the stretch).
#
# Environment:
#   LATCHKEY_BIN       server binary (default ../.build/release/latchkey relative to bench/)
#   LATCHKEY_ARGS      its arguments (default --in-memory)
#   ECHO_BIN           C reference (default: bench/out/echo_c, built from echo.c)
#   PIPELINED_N        requests per run        (default 200000)
#   PIPELINED_ROUNDS   timed runs per server   (default 5)
#   PIPELINED_TIMEOUT  seconds allowed per run (default 60)
set -euo pipefail

# shellcheck source=servers.sh
source "$(dirname "${BASH_SOURCE[0]}")/servers.sh"

N="${PIPELINED_N:-200000}"
ROUNDS="${PIPELINED_ROUNDS:-5}"
RUN_TIMEOUT="${PIPELINED_TIMEOUT:-60}"
LOG="$OUT_DIR/pipelined.stderr.log"

require_servers

INPUT="$OUT_DIR/pings_$N.jsonl"
if [[ ! -s "$INPUT" ]]; then
    python3 "$BENCH_DIR/gen_pings.py" "$N" --out "$INPUT.tmp"
    mv "$INPUT.tmp" "$INPUT"
fi

# run_server NAME -> runs the server named NAME with its arguments.
run_server() {
    case "$1" in
        latchkey) exec timeout -k 2 "$RUN_TIMEOUT" "$LATCHKEY_BIN" "${LATCHKEY_ARGV[@]}" ;;
        c-echo) exec timeout -k 2 "$RUN_TIMEOUT" "$ECHO_BIN" ;;
    esac
}

# One untimed run per server whose replies are checked in full; it also warms the caches.
validate() {
    local name="$1" out="$OUT_DIR/pipelined_$1.out"
    local status
    status=$(set +e; cat "$INPUT" | run_server "$name" >"$out" 2>>"$LOG"; echo "${PIPESTATUS[*]}")
    if [[ "$status" != "0 0" ]]; then
        echo "error: $name failed on the validation run: exit status ${status#* }" \
            "(124 = timed out after ${RUN_TIMEOUT}s; cat status ${status%% *}, 141 = server stopped reading);" \
            "see $LOG" >&2
        exit 1
    fi
    python3 - "$name" "$out" "$N" <<'PY'
import json, sys
name, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
seen, bad, echo_mismatch = set(), 0, 0
with open(path, "rb") as f:
    for line in f:
        try:
            msg = json.loads(line)
        except ValueError:
            bad += 1
            continue
        if msg.get("jsonrpc") != "2.0" or "result" not in msg or "error" in msg:
            bad += 1
            continue
        seen.add(msg.get("id"))
        res = msg["result"]
        if not (isinstance(res, dict) and res.get("echo") == "hello"):
            echo_mismatch += 1
missing = n - len(seen & set(range(1, n + 1)))
if bad or missing:
    first = open(path, "rb").readline()[:300]
    sys.exit(f"error: {name}: {bad} bad replies, {missing} ids unanswered; first line: {first!r}")
if echo_mismatch:
    print(f"  note: {name}: {echo_mismatch} results do not carry echo=\"hello\"", file=sys.stderr)
print(f"  {name}: validation run OK ({n} replies, every id answered once)")
PY
}

echo "== pipelined: $N pings per run, $ROUNDS rounds, latchkey and C alternating"
echo "  latchkey: $LATCHKEY_BIN ${LATCHKEY_ARGV[*]}"
echo "  c-echo:   $ECHO_BIN"
validate latchkey
validate c-echo

declare -a RATES_latchkey=() RATES_c_echo=()
for ((round = 1; round <= ROUNDS; round++)); do
    # Alternate which server goes first, so neither always runs on a warmer machine.
    if ((round % 2)); then order=(latchkey c-echo); else order=(c-echo latchkey); fi
    for name in "${order[@]}"; do
        t0=$(date +%s%N)
        # Prints the reply count, then the server's exit status.
        result=$(set +e; cat "$INPUT" | run_server "$name" 2>>"$LOG" | wc -l; echo "${PIPESTATUS[1]}")
        t1=$(date +%s%N)
        lines=${result%%$'\n'*}
        status=${result##*$'\n'}
        if [[ "$status" != 0 ]]; then
            echo "error: $name exited with status $status (124 = timed out after ${RUN_TIMEOUT}s); see $LOG" >&2
            exit 1
        fi
        if [[ "$lines" -ne "$N" ]]; then
            echo "error: $name produced $lines lines, expected $N" >&2
            exit 1
        fi
        rate=$(awk -v n="$N" -v ns="$((t1 - t0))" 'BEGIN { printf "%.0f", n / (ns / 1e9) }')
        printf '  round %d  %-8s  %8.1f ms  %10s req/s  (%d lines)\n' \
            "$round" "$name" "$(awk -v ns="$((t1 - t0))" 'BEGIN { print ns / 1e6 }')" "$rate" "$lines"
        if [[ "$name" == latchkey ]]; then RATES_latchkey+=("$rate"); else RATES_c_echo+=("$rate"); fi
    done
done

python3 - "$N" "$ROUNDS" "${RATES_latchkey[*]}" "${RATES_c_echo[*]}" <<PY
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, "$BENCH_DIR")
from benchlib import median, write_result
n, rounds = int(sys.argv[1]), int(sys.argv[2])
lk = [float(x) for x in sys.argv[3].split()]
c = [float(x) for x in sys.argv[4].split()]
mlk, mc = median(lk), median(c)
ratio = mlk / mc
print(f"  median  latchkey {mlk:12,.0f} req/s")
print(f"  median  c-echo   {mc:12,.0f} req/s")
print(f"  ratio latchkey/C  {ratio:.3f}   (target >= 0.90: {'PASS' if ratio >= 0.9 else 'FAIL'})")
write_result("pipelined", {
    "requests_per_run": n, "rounds": rounds,
    "latchkey_req_per_s": lk, "c_echo_req_per_s": c,
    "latchkey_median": mlk, "c_echo_median": mc, "ratio": ratio,
})
PY
