# Sourced by the benchmarks that run latchkey beside the C echo (pipelined.sh, callgrind.sh):
# where things are, which servers run, and a check that latchkey is built.
#
#   LATCHKEY_BIN   server binary (default ../.build/release/latchkey relative to bench/)
#   LATCHKEY_ARGS  its arguments (default --in-memory), as the array LATCHKEY_ARGV
#   ECHO_BIN       the C reference (default bench/out/echo_c, built from echo.c when stale),
#                  resolved by require_servers

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT_DIR="$BENCH_DIR/out"
mkdir -p "$OUT_DIR"
LATCHKEY_BIN="${LATCHKEY_BIN:-$BENCH_DIR/../.build/release/latchkey}"
read -r -a LATCHKEY_ARGV <<<"${LATCHKEY_ARGS---in-memory}"

# Exits 2 when latchkey is not built; sets ECHO_BIN (building the C echo when needed).
require_servers() {
    if [[ ! -x "$LATCHKEY_BIN" ]]; then
        echo "error: latchkey binary not found or not executable: $LATCHKEY_BIN" >&2
        echo "  build it (swift build -c release) or set LATCHKEY_BIN" >&2
        exit 2
    fi
    ECHO_BIN="${ECHO_BIN:-$("$BENCH_DIR/build_echo.sh")}"
}
