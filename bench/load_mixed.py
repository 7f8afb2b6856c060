#!/usr/bin/env python3
"""1 000 000 pipelined messages mixing valid and invalid ones; reports time and peak RSS.

usage: load_mixed.py [N]   (binary from $LATCHKEY_BIN). Peak RSS is read with wait4's rusage,
for N and for N/10, so a leak shows as growth between the two.
"""
import os, random, subprocess, sys, tempfile, time

BIN = os.environ.get("LATCHKEY_BIN", os.path.join(os.path.dirname(__file__), "..", ".build", "release", "latchkey"))
N = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000

KINDS = [
    lambda i: '{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"echo":"hello %d"}}' % (i, i),
    lambda i: '{"jsonrpc":"2.0","id":%d,"method":"clock/now"}' % i,
    lambda i: '{"jsonrpc":"2.0","id":%d,"method":"pin/validate","params":{"pin":"12%d"}}' % (i, i % 1000),
    lambda i: '{"jsonrpc":"2.0","id":%d,"method":"config/load"}' % i,
    lambda i: '{"jsonrpc":"2.0","id":%d,"method":"nope/%d"}' % (i, i),
    lambda i: '{"jsonrpc":"2.0","id":%d,"method":"ping","params":"bad"}' % i,
    lambda i: '{"jsonrpc":"1.0","id":%d,"method":"ping"}' % i,
    lambda i: '{"jsonrpc":"2.0","id":%d,"method":"device/isActivatedLocally","params":{"deviceId":"none"}}' % i,
    lambda i: '{"jsonrpc":"2.0","id":%d,"method":"activation/start","params":{"deviceId":7}}' % i,
    lambda i: '{"jsonrpc":"2.0","method":"ping"}',
    lambda i: '[{"jsonrpc":"2.0","id":%d,"method":"ping"},{"jsonrpc":"2.0","method":"ping"},1]' % i,
    lambda i: '{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"a":1,"a":2}}' % i,
    lambda i: '{"jsonrpc":"2.0","id":%d,"method":' % i,
    lambda i: '[]',
    lambda i: '\xff\xfe not json',
]


def run(n):
    rng = random.Random(1)
    with tempfile.NamedTemporaryFile("wb", delete=False) as f:
        for i in range(n):
            f.write(KINDS[rng.randrange(len(KINDS))](i).encode("utf-8", "surrogateescape") + b"\n")
        path = f.name
    try:
        with open(path, "rb") as stdin, open(os.devnull, "wb") as devnull:
            start = time.perf_counter()
            proc = subprocess.Popen([BIN, "--in-memory"], stdin=stdin, stdout=devnull, stderr=devnull)
            _, status, usage = os.wait4(proc.pid, 0)
            elapsed = time.perf_counter() - start
        return status, elapsed, usage.ru_maxrss
    finally:
        os.unlink(path)


for n in (N // 10, N):
    status, elapsed, rss_kb = run(n)
    print(f"{n:>9} mixed messages: exit {os.waitstatus_to_exitcode(status)}, {elapsed:.2f} s, {n / elapsed:,.0f} msg/s, peak RSS {rss_kb / 1024:.1f} MiB")
