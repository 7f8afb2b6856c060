#!/usr/bin/env bash
# Builds the C reference server bench/echo.c into bench/out/echo_c (only when stale).
# Prints the path of the binary.
set -euo pipefail
BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT_DIR="$BENCH_DIR/out"
mkdir -p "$OUT_DIR"
BIN="$OUT_DIR/echo_c"
if [[ ! -x "$BIN" || "$BENCH_DIR/echo.c" -nt "$BIN" ]]; then
    # shellcheck disable=SC2046
    ${CC:-cc} -O2 -Wall -Wextra -o "$BIN" "$BENCH_DIR/echo.c" \
        $(pkg-config --cflags --libs jansson) >&2
fi
echo "$BIN"
