#!/usr/bin/env python3
"""Start-up: what one ping costs a fresh process beyond `latchkey --version`.

Two whole-process timings, alternated so that noise hits both alike:
  version  `latchkey --version` (the runtime, argument parsing, exit: the floor of any run)
  ping     `latchkey --in-memory`, one ping on stdin, EOF, reply read, exit
Each sample's CPU time (user + sys) comes from the kernel's accounting of the reaped child
(os.wait4); the wall time from time.perf_counter around spawn and reap. Reported: medians, and
the median of ping CPU minus version CPU. Target: one ping within 2 ms of CPU of --version.

With --baseline BIN the same pair is also timed for BIN (a build from before a change),
interleaved with the first, so both sets come from the same minutes.

Environment: LATCHKEY_BIN as for the other benchmarks.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import BenchError, latchkey_argv, median, write_result  # noqa: E402

REQUEST = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"echo":"hello"}}\n'
TARGET_MS = 2.0


def sample(argv: list[str], stdin: bytes | None) -> tuple[float, float]:
    """(CPU ms, wall ms) of one whole run of argv."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if stdin is not None:
        proc.stdin.write(stdin)
    proc.stdin.close()
    out = proc.stdout.read()
    proc.stdout.close()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = (time.perf_counter() - t0) * 1000.0
    if proc.returncode != 0:
        raise BenchError(f"{' '.join(argv)}: exit status {proc.returncode}")
    if stdin is not None and b'"id":1,"result"' not in out:
        raise BenchError(f"{' '.join(argv)}: no reply to the ping: {out[:200]!r}")
    return (usage.ru_utime + usage.ru_stime) * 1000.0, wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--runs", type=int, default=60, help="timed runs of each command (default 60)")
    ap.add_argument("--warmup", type=int, default=5, help="untimed runs of each first (default 5)")
    ap.add_argument("--baseline", help="a second binary to time the same way, interleaved")
    args = ap.parse_args()
    try:
        binary = latchkey_argv()[0]
    except BenchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    builds = [("latchkey", binary)] + ([("baseline", os.path.abspath(args.baseline))] if args.baseline else [])
    commands = []
    for label, path in builds:
        commands.append((f"{label} --version", [path, "--version"], None))
        commands.append((f"{label} ping", [path, "--in-memory"], REQUEST))
    print(f"== start-up: --version against one ping, {args.runs} runs each, interleaved")
    for label, path in builds:
        print(f"  {label}: {path}")
    cpu: dict[str, list[float]] = {name: [] for name, _, _ in commands}
    wall: dict[str, list[float]] = {name: [] for name, _, _ in commands}
    try:
        for name, argv, stdin in commands:
            for _ in range(args.warmup):
                sample(argv, stdin)
        for i in range(args.runs):
            for name, argv, stdin in commands if i % 2 == 0 else commands[::-1]:
                c, w = sample(argv, stdin)
                cpu[name].append(c)
                wall[name].append(w)
    except BenchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    result = {}
    for label, _ in builds:
        version, ping = f"{label} --version", f"{label} ping"
        gaps = [p - v for p, v in zip(cpu[ping], cpu[version])]
        result[label] = {
            "version_cpu_ms": median(cpu[version]), "ping_cpu_ms": median(cpu[ping]),
            "version_wall_ms": median(wall[version]), "ping_wall_ms": median(wall[ping]),
            "ping_minus_version_cpu_ms": median(gaps),
        }
        r = result[label]
        verdict = "ok" if r["ping_minus_version_cpu_ms"] <= TARGET_MS else "FAIL"
        print(f"  {label}: CPU median --version {r['version_cpu_ms']:.2f} ms, ping {r['ping_cpu_ms']:.2f} ms "
              f"(+{r['ping_minus_version_cpu_ms']:.2f} ms, target <= {TARGET_MS} ms: {verdict}); "
              f"wall {r['version_wall_ms']:.2f} / {r['ping_wall_ms']:.2f} ms")
    write_result("startup", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
