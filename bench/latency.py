#!/usr/bin/env python3
"""Interactive latency: one ping at a time, each reply awaited before the next request.

Both servers (latchkey and the C echo) are spawned once per mode and driven alternately in
rounds, so drift in the machine affects both alike. Round trip = from just before os.write of
the request to the moment the complete reply line has been read (os.read on raw pipes; no
Python-level buffering). Two modes:

  unpinned  the scheduler places driver and server freely;
  pinned    driver (os.sched_setaffinity) and server (taskset -c CPU) share one core, so every
            round trip costs two context switches on that core.

Prints p50/p90/p99 in microseconds for each server and the ratio latchkey / C
(target: p50 ratio <= 1.2). The driver's own cost is in both figures alike.

Environment: LATCHKEY_BIN, LATCHKEY_ARGS (default --in-memory), ECHO_BIN, as for the other
benchmarks.
"""
from __future__ import annotations

import argparse
import json
import os
import select
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import BenchError, kill_group, percentile, servers, stderr_log, write_result  # noqa: E402

READ_TIMEOUT_MS = 5000


class Server:
    """A server process driven over its stdin/stdout pipes, one request at a time."""

    def __init__(self, name: str, argv: list[str], cpu: int | None, log):
        self.name = name
        cmd = (["taskset", "-c", str(cpu)] if cpu is not None else []) + argv
        # Own process group, so close() can kill anything the server left behind.
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, bufsize=0, start_new_session=True
        )
        self.wfd = self.proc.stdin.fileno()
        self.rfd = self.proc.stdout.fileno()
        self.poller = select.poll()
        self.poller.register(self.rfd, select.POLLIN)
        self.pending = b""
        self.next_id = 1

    def _read_line(self) -> bytes:
        buf = self.pending
        while True:
            nl = buf.find(b"\n")
            if nl >= 0:
                self.pending = buf[nl + 1 :]
                return buf[:nl]
            if not self.poller.poll(READ_TIMEOUT_MS):
                raise BenchError(f"{self.name}: no reply within {READ_TIMEOUT_MS} ms")
            chunk = os.read(self.rfd, 65536)
            if not chunk:
                raise BenchError(f"{self.name}: closed its output (exit status {self.proc.poll()})")
            buf += chunk

    def ping_ns(self) -> int:
        """One round trip; returns its duration in ns after checking the reply."""
        rid = self.next_id
        self.next_id += 1
        req = b'{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"echo":"hello"}}\n' % rid
        t0 = time.perf_counter_ns()
        os.write(self.wfd, req)  # 70 bytes into an empty pipe: never partial
        line = self._read_line()
        t1 = time.perf_counter_ns()
        try:
            msg = json.loads(line)
        except ValueError:
            raise BenchError(f"{self.name}: unparsable reply {line[:200]!r}") from None
        if msg.get("id") != rid or "result" not in msg:
            raise BenchError(f"{self.name}: unexpected reply to id {rid}: {line[:200]!r}")
        return t1 - t0

    def close(self) -> None:
        """EOF on stdin, then up to 2 s for a clean exit before the process group is killed."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            print(f"  warning: {self.name} did not exit within 2 s of EOF on stdin; killed", file=sys.stderr)
        kill_group(self.proc)


def summarize(samples_ns: list[int]) -> dict:
    s = sorted(samples_ns)
    us = lambda p: percentile(s, p) / 1000.0  # noqa: E731
    return {
        "n": len(s),
        "min_us": s[0] / 1000.0,
        "p50_us": us(50),
        "p90_us": us(90),
        "p99_us": us(99),
        "mean_us": sum(s) / len(s) / 1000.0,
    }


def run_mode(mode: str, cpu: int | None, pairs, args, deadline: float, log) -> dict:
    original_affinity = os.sched_getaffinity(0) if cpu is not None else None
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    procs = []
    try:
        for name, argv in pairs:
            procs.append(Server(name, argv, cpu, log))
        samples: dict[str, list[int]] = {name: [] for name, _ in pairs}
        for srv in procs:  # warm-up: page faults, lazy init, branch predictors
            for _ in range(args.warmup):
                srv.ping_ns()
        for rnd in range(args.rounds):
            order = procs if rnd % 2 == 0 else procs[::-1]
            for srv in order:
                if time.monotonic() > deadline:
                    raise BenchError(f"overall time limit of {args.time_limit} s exceeded")
                out = samples[srv.name]
                for _ in range(args.per_round):
                    out.append(srv.ping_ns())
    finally:
        for srv in procs:
            srv.close()
        if original_affinity is not None:
            os.sched_setaffinity(0, original_affinity)

    stats = {name: summarize(v) for name, v in samples.items()}
    lk, c = stats["latchkey"], stats["c-echo"]
    stats["ratio_p50"] = lk["p50_us"] / c["p50_us"]
    stats["ratio_p99"] = lk["p99_us"] / c["p99_us"]
    where = f"pinned to CPU {cpu}" if cpu is not None else "unpinned"
    print(f"== latency, {where}: {args.rounds} rounds x {args.per_round} pings per server, alternating")
    print(f"  {'server':<9} {'p50 µs':>9} {'p90 µs':>9} {'p99 µs':>9} {'mean µs':>9} {'min µs':>9}")
    for name in ("latchkey", "c-echo"):
        s = stats[name]
        print(
            f"  {name:<9} {s['p50_us']:9.1f} {s['p90_us']:9.1f} {s['p99_us']:9.1f} {s['mean_us']:9.1f} {s['min_us']:9.1f}"
        )
    verdict = "PASS" if stats["ratio_p50"] <= 1.2 else "FAIL"
    print(
        f"  ratio latchkey/C  p50 {stats['ratio_p50']:.3f} (target <= 1.20: {verdict})   p99 {stats['ratio_p99']:.3f}"
    )
    return stats


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=10, help="rounds per server and mode (default 10)")
    ap.add_argument("--per-round", type=int, default=5000, help="pings per server per round (default 5000)")
    ap.add_argument("--warmup", type=int, default=1000, help="untimed pings per server first (default 1000)")
    ap.add_argument("--cpu", type=int, default=0, help="the core used in pinned mode (default 0)")
    ap.add_argument(
        "--modes", default="unpinned,pinned", help="comma-separated: unpinned, pinned (default both)"
    )
    ap.add_argument("--time-limit", type=float, default=240, help="abort after this many seconds (default 240)")
    args = ap.parse_args()

    try:
        pairs = servers()
    except BenchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for name, argv in pairs:
        print(f"  {name}: {' '.join(argv)}")
    deadline = time.monotonic() + args.time_limit
    results = {"rounds": args.rounds, "per_round": args.per_round, "warmup": args.warmup}
    with stderr_log("latency") as log:
        for mode in [m.strip() for m in args.modes.split(",") if m.strip()]:
            if mode not in ("unpinned", "pinned"):
                print(f"error: unknown mode {mode!r}", file=sys.stderr)
                return 2
            cpu = args.cpu if mode == "pinned" else None
            if cpu is not None and not (hasattr(os, "sched_setaffinity") and shutil.which("taskset")):
                print("  pinned mode skipped: needs os.sched_setaffinity and taskset (Linux)")
                continue
            try:
                results[mode] = run_mode(mode, cpu, pairs, args, deadline, log)
            except BenchError as e:
                print(f"error: latency ({mode}): {e}", file=sys.stderr)
                return 1
            if mode == "pinned":
                results[mode]["cpu"] = cpu
    write_result("latency", results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
