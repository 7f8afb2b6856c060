#!/usr/bin/env python3
"""Cold start: spawn -> one ping -> EOF on stdin -> reply read -> process exited.

Each sample is the wall time from just before the spawn until the process has been reaped,
measured with time.perf_counter. latchkey (`--in-memory`) and the C echo run alternately, so
both see the same machine; the C echo is the floor (fork/exec from Python, dynamic loading of
libc and jansson, one reply). Prints median and p90 in ms.

Targets for latchkey: median <= 25 ms (issue), <= 10 ms (stretch).

Environment: LATCHKEY_BIN, LATCHKEY_ARGS (default --in-memory), ECHO_BIN, as for the other
benchmarks.
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
from benchlib import BenchError, kill_group, median, percentile, servers, stderr_log, write_result  # noqa: E402

REQUEST = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"echo":"hello"}}\n'


def one_run(name: str, argv: list[str], timeout: float, log) -> float:
    """Seconds from spawn to exit for one ping; raises BenchError on a wrong or missing reply."""
    t0 = time.perf_counter()
    # Own process group, so a timeout can kill anything the server left holding the pipe.
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, start_new_session=True
    )
    try:
        out, _ = proc.communicate(REQUEST, timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        raise BenchError(f"{name}: did not answer and exit within {timeout} s") from None
    t1 = time.perf_counter()
    if proc.returncode != 0:
        raise BenchError(f"{name}: exit status {proc.returncode}")
    lines = out.splitlines()
    try:
        msg = json.loads(lines[0]) if len(lines) == 1 else None
    except ValueError:
        msg = None
    if not (isinstance(msg, dict) and msg.get("id") == 1 and "result" in msg):
        raise BenchError(f"{name}: expected one reply to id 1, got {out[:300]!r}")
    return t1 - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--runs", type=int, default=50, help="timed runs per server (default 50)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed runs per server first (default 3)")
    ap.add_argument("--timeout", type=float, default=10, help="seconds allowed per run (default 10)")
    args = ap.parse_args()

    try:
        pairs = servers()
    except BenchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"== cold start: spawn, one ping, EOF, exit; {args.runs} runs per server, alternating")
    for name, argv in pairs:
        print(f"  {name}: {' '.join(argv)}")

    samples: dict[str, list[float]] = {name: [] for name, _ in pairs}
    try:
        with stderr_log("coldstart") as log:
            for name, argv in pairs:
                for _ in range(args.warmup):
                    one_run(name, argv, args.timeout, log)
            for i in range(args.runs):
                for name, argv in pairs if i % 2 == 0 else pairs[::-1]:
                    samples[name].append(one_run(name, argv, args.timeout, log) * 1000.0)
    except BenchError as e:
        print(f"error: coldstart: {e}", file=sys.stderr)
        return 1

    result = {"runs": args.runs}
    print(f"  {'server':<9} {'median ms':>10} {'p90 ms':>8} {'min ms':>8} {'max ms':>8}")
    for name, _ in pairs:
        s = sorted(samples[name])
        result[name] = {
            "median_ms": median(s),
            "p90_ms": percentile(s, 90),
            "min_ms": s[0],
            "max_ms": s[-1],
            "samples_ms": samples[name],
        }
        r = result[name]
        print(f"  {name:<9} {r['median_ms']:10.2f} {r['p90_ms']:8.2f} {r['min_ms']:8.2f} {r['max_ms']:8.2f}")
    med = result["latchkey"]["median_ms"]
    issue = "PASS" if med <= 25 else "FAIL"
    stretch = "PASS" if med <= 10 else "FAIL"
    print(f"  latchkey median {med:.2f} ms: target <= 25 ms {issue}, stretch <= 10 ms {stretch}")
    write_result("coldstart", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
