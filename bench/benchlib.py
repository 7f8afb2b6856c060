"""Shared helpers for the Latchkey benchmarks (binaries, statistics, result files)."""
from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(BENCH_DIR, "out")


class BenchError(Exception):
    """A benchmark could not run or produced wrong output."""


def latchkey_argv() -> list[str]:
    """`$LATCHKEY_BIN $LATCHKEY_ARGS`; the binary defaults to ../.build/release/latchkey, the args to --in-memory."""
    binary = os.environ.get("LATCHKEY_BIN") or os.path.join(BENCH_DIR, "..", ".build", "release", "latchkey")
    binary = os.path.abspath(binary)
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        raise BenchError(
            f"latchkey binary not found or not executable: {binary}\n"
            "  build it (swift build -c release) or set LATCHKEY_BIN"
        )
    args = shlex.split(os.environ.get("LATCHKEY_ARGS", "--in-memory"))
    return [binary, *args]


def echo_argv() -> list[str]:
    """The C reference server; `$ECHO_BIN`, or bench/out/echo_c built from echo.c when stale."""
    binary = os.environ.get("ECHO_BIN")
    if not binary:
        res = subprocess.run(
            [os.path.join(BENCH_DIR, "build_echo.sh")], stdout=subprocess.PIPE, text=True, timeout=120
        )
        if res.returncode != 0:
            raise BenchError("could not build bench/echo.c (is libjansson-dev installed?)")
        binary = res.stdout.strip().splitlines()[-1]
    return [os.path.abspath(binary)]


def servers() -> list[tuple[str, list[str]]]:
    """[("latchkey", argv), ("c-echo", argv)]: the pair every benchmark compares."""
    return [("latchkey", latchkey_argv()), ("c-echo", echo_argv())]


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the process group of `proc` (started with start_new_session=True), reap it and
    close its pipes; never blocks on a pipe some leftover process still holds."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    for f in (proc.stdin, proc.stdout, proc.stderr):
        if f is not None:
            try:
                f.close()
            except OSError:
                pass


def percentile(sorted_values: list[float], p: float) -> float:
    """Nearest-rank percentile of an already sorted list (p in 0..100)."""
    if not sorted_values:
        return float("nan")
    k = max(0, min(len(sorted_values) - 1, int(-(-p * len(sorted_values) // 100)) - 1))
    return sorted_values[k]


def median(values: list[float]) -> float:
    s = sorted(values)
    n = len(s)
    if n == 0:
        return float("nan")
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def write_result(name: str, data: dict) -> str:
    os.makedirs(OUT_DIR, exist_ok=True)
    path = os.path.join(OUT_DIR, f"{name}.json")
    with open(path, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    return path


def stderr_log(name: str):
    """An append-mode file for the servers' stderr (never a pipe, which could fill and block them)."""
    os.makedirs(OUT_DIR, exist_ok=True)
    return open(os.path.join(OUT_DIR, f"{name}.stderr.log"), "ab")


def die(msg: str, code: int = 2) -> None:
    print(f"error: {msg}", file=sys.stderr)
    sys.exit(code)
