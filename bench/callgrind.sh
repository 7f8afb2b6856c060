#!/usr/bin/env bash
# Instructions per pipelined ping, counted by callgrind (the same count on every run), for
# latchkey and the C echo: (instructions for N pings - instructions for 1 ping) / (N - 1).
#
# Environment:
#   LATCHKEY_BIN    server binary (default ../.build/release/latchkey relative to bench/)
#   LATCHKEY_ARGS   its arguments (default --in-memory)
#   ECHO_BIN        C reference (default: bench/out/echo_c, built from echo.c)
#   CALLGRIND_N     pings in the long run (default 20000)
#   CALLGRIND_KEEP  1: keep the callgrind output files in bench/out/ (for callgrind_annotate)
set -euo pipefail

# shellcheck source=servers.sh
source "$(dirname "${BASH_SOURCE[0]}")/servers.sh"

N="${CALLGRIND_N:-20000}"
command -v valgrind >/dev/null || { echo "error: valgrind not found (apt-get install valgrind)" >&2; exit 2; }
require_servers

for n in 1 "$N"; do
    [[ -s "$OUT_DIR/pings_$n.jsonl" ]] || python3 "$BENCH_DIR/gen_pings.py" "$n" --out "$OUT_DIR/pings_$n.jsonl"
done

# valgrind 3.19 gives up on the DWARF of a Swift binary; a copy without debug information keeps
# its symbols, so callgrind_annotate still names the functions.
STRIPPED="$OUT_DIR/callgrind_latchkey"
strip --strip-debug -o "$STRIPPED" "$LATCHKEY_BIN"

# count NAME N BIN ARGS... -> prints the instructions of one run over pings_N.jsonl.
count() {
    local name="$1" n="$2" file="$OUT_DIR/callgrind.$1.$2.out"
    shift 2
    valgrind --tool=callgrind --callgrind-out-file="$file" "$@" <"$OUT_DIR/pings_$n.jsonl" >/dev/null 2>"$OUT_DIR/callgrind.$name.$n.log"
    local total
    total=$(sed -n 's/^summary: *//p; s/^totals: *//p' "$file" | head -1)
    [[ "${CALLGRIND_KEEP:-0}" == 1 ]] || rm -f "$file"
    echo "$total"
}

declare -A PER
for name in latchkey c-echo; do
    if [[ "$name" == latchkey ]]; then cmd=("$STRIPPED" "${LATCHKEY_ARGV[@]}"); else cmd=("$ECHO_BIN"); fi
    one=$(count "$name" 1 "${cmd[@]}")
    many=$(count "$name" "$N" "${cmd[@]}")
    PER[$name]=$(((many - one) / (N - 1)))
    printf '  %-9s %12s instructions for 1 ping, %14s for %s: %6d a ping\n' "$name" "$one" "$many" "$N" "${PER[$name]}"
done
python3 -c "import sys; print(f'  instructions a ping, C / latchkey: {int(sys.argv[1]) / int(sys.argv[2]):.3f}')" \
    "${PER[c-echo]}" "${PER[latchkey]}"
