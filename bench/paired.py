#!/usr/bin/env python3
"""Alternated whole-process runs of pipelined pings through several servers.

Each round runs every server once on the same request file (`cat FILE | server`, replies
counted as they arrive), in an order that reverses from one round to the next, so a noisy
neighbour hits all of them alike. Reported per server: the median wall time and the median
CPU time (user + sys of the server alone, from wait4), and the median over rounds of the
ratio last-server / this-server for each — the paired ratio, steadier on a shared machine
than a ratio of medians. Put the C echo last.

    python3 bench/paired.py --rounds 21 bench/out/pings_200000.jsonl .build/release/latchkey bench/out/echo_c

Every server gets `--in-memory` (the C echo ignores its arguments); every run must exit 0
and answer every line, or the script stops.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time


def run(server, path, expected, timeout):
    """One run: (wall seconds, server CPU seconds)."""
    started = time.perf_counter()
    cat = subprocess.Popen(["cat", path], stdout=subprocess.PIPE)
    proc = subprocess.Popen([server, "--in-memory"], stdin=cat.stdout, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    cat.stdout.close()
    lines = 0
    while True:
        if time.perf_counter() - started > timeout:
            proc.kill()
            sys.exit(f"error: {server} took more than {timeout} s")
        chunk = os.read(proc.stdout.fileno(), 1 << 16)
        if not chunk:
            break
        lines += chunk.count(b"\n")
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    cat.wait()
    if status != 0 or lines != expected:
        sys.exit(f"error: {server} exited with status {status} after {lines} of {expected} replies")
    return wall, usage.ru_utime + usage.ru_stime


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds allowed per run")
    parser.add_argument("requests", help="a file of requests, one a line (bench/gen_pings.py)")
    parser.add_argument("servers", nargs="+", help="server binaries; the last one is the reference")
    args = parser.parse_args()
    with open(args.requests, "rb") as f:
        expected = sum(1 for _ in f)
    wall = {s: [] for s in args.servers}
    cpu = {s: [] for s in args.servers}
    for server in args.servers:  # untimed: warms the page cache
        run(server, args.requests, expected, args.timeout)
    for round_index in range(args.rounds):
        order = args.servers if round_index % 2 == 0 else list(reversed(args.servers))
        for server in order:
            w, c = run(server, args.requests, expected, args.timeout)
            wall[server].append(w)
            cpu[server].append(c)
    reference = args.servers[-1]
    print(f"{args.rounds} rounds of {expected} requests; paired ratio = {os.path.basename(reference)} / server, median over rounds")
    for server in args.servers:
        wall_ratio = statistics.median(wall[reference][i] / wall[server][i] for i in range(args.rounds))
        cpu_ratio = statistics.median(cpu[reference][i] / cpu[server][i] for i in range(args.rounds))
        median_wall = statistics.median(wall[server])
        print(
            f"  {server}: wall {median_wall * 1000:.1f} ms ({expected / median_wall:,.0f} req/s), "
            f"CPU {statistics.median(cpu[server]) * 1000:.1f} ms; paired ratio wall {wall_ratio:.3f}, CPU {cpu_ratio:.3f}"
        )


if __name__ == "__main__":
    main()
