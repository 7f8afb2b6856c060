#!/usr/bin/env python3
"""Cold start of `latchkey mcp` against plain `latchkey`: spawn -> first answer read.

Plain: `latchkey $LATCHKEY_ARGS` answering one `ping`. MCP: `latchkey mcp $LATCHKEY_ARGS`
answering `initialize`. Each sample is the wall time from just before the spawn until the answer
line has been read (then stdin is closed and the process reaped; spawn -> exit is reported too).
The two run alternately, so both see the same machine. Target (issue 19): the MCP median is
within 1 ms of the plain median.

Environment: LATCHKEY_BIN, LATCHKEY_ARGS (default --in-memory), as for the other benchmarks;
LATCHKEY_BASELINE_BIN runs the plain variant on another binary (a build from before `mcp`).
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
from benchlib import BenchError, kill_group, latchkey_argv, median, percentile, stderr_log, write_result  # noqa: E402

PING = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"echo":"hello"}}\n'
INITIALIZE = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
              b'"capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}\n')


def one_run(name: str, argv: list[str], request: bytes, timeout: float, log) -> tuple[float, float]:
    """(seconds to the answer, seconds to exit) for one request."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, start_new_session=True)
    try:
        proc.stdin.write(request)
        proc.stdin.flush()
        line = proc.stdout.readline()
        t1 = time.perf_counter()
        proc.stdin.close()
        rest = proc.stdout.read()
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        raise BenchError(f"{name}: did not exit within {timeout} s") from None
    t2 = time.perf_counter()
    try:
        msg = json.loads(line)
    except ValueError:
        msg = None
    if rest or proc.returncode != 0 or not (isinstance(msg, dict) and msg.get("id") == 1 and "result" in msg):
        raise BenchError(f"{name}: expected one answer to id 1 and exit 0, got {line[:300]!r} (status {proc.returncode})")
    return t1 - t0, t2 - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--runs", type=int, default=100, help="timed runs per variant (default 100)")
    ap.add_argument("--warmup", type=int, default=5, help="untimed runs per variant first (default 5)")
    ap.add_argument("--timeout", type=float, default=10, help="seconds allowed per run (default 10)")
    args = ap.parse_args()
    try:
        base = latchkey_argv()
    except BenchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    baseline = os.environ.get("LATCHKEY_BASELINE_BIN")
    plain = [os.path.abspath(baseline), *base[1:]] if baseline else base
    variants = [("plain", plain, PING), ("mcp", [base[0], "mcp", *base[1:]], INITIALIZE)]
    print(f"== cold start, plain ping vs mcp initialize: spawn -> answer; {args.runs} runs each, alternating")
    for name, argv, _ in variants:
        print(f"  {name}: {' '.join(argv)}")
    answer: dict[str, list[float]] = {name: [] for name, _, _ in variants}
    exit_: dict[str, list[float]] = {name: [] for name, _, _ in variants}
    try:
        with stderr_log("coldstart_mcp") as log:
            for name, argv, request in variants:
                for _ in range(args.warmup):
                    one_run(name, argv, request, args.timeout, log)
            for i in range(args.runs):
                for name, argv, request in variants if i % 2 == 0 else variants[::-1]:
                    a, e = one_run(name, argv, request, args.timeout, log)
                    answer[name].append(a * 1000.0)
                    exit_[name].append(e * 1000.0)
    except BenchError as e:
        print(f"error: coldstart_mcp: {e}", file=sys.stderr)
        return 1
    result: dict = {"runs": args.runs}
    print(f"  {'variant':<8} {'answer median ms':>17} {'answer p90 ms':>14} {'exit median ms':>15}")
    for name, _, _ in variants:
        a, e = sorted(answer[name]), sorted(exit_[name])
        result[name] = {"answer_median_ms": median(a), "answer_p90_ms": percentile(a, 90), "exit_median_ms": median(e),
                        "answer_samples_ms": answer[name]}
        r = result[name]
        print(f"  {name:<8} {r['answer_median_ms']:17.2f} {r['answer_p90_ms']:14.2f} {r['exit_median_ms']:15.2f}")
    delta = result["mcp"]["answer_median_ms"] - result["plain"]["answer_median_ms"]
    result["delta_ms"] = delta
    print(f"  mcp - plain: {delta:+.2f} ms: target <= 1 ms {'PASS' if delta <= 1 else 'FAIL'}")
    write_result("coldstart_mcp", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
