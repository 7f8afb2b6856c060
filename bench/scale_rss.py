#!/usr/bin/env python3
"""Peak RSS of the server answering PIN authentications on a store made by LatchkeyBench.

usage: LATCHKEY_BENCH_KEEP=DIR .build/release/LatchkeyBench 300 100 100000
       python3 bench/scale_rss.py DIR/scale-100.sqlite DIR/scale-100000.sqlite [--count 200]
Each store holds device "phone" activated with PIN 1234. Prints authentications/s and the
server's peak RSS (VmHWM, read just before it is told to exit).
"""
import json, os, subprocess, sys, time

BIN = os.environ.get("LATCHKEY_BIN", os.path.join(os.path.dirname(__file__), "..", ".build", "release", "latchkey"))


def run(store, count):
    proc = subprocess.Popen([BIN, "--db", store], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    ident = 0

    def call(method, params):
        nonlocal ident
        ident += 1
        proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params}) + "\n").encode())
        proc.stdin.flush()
        reply = json.loads(proc.stdout.readline())
        if "error" in reply:
            sys.exit(f"{method}: {reply['error']}")
        return reply["result"]

    start = time.perf_counter()
    for _ in range(count):
        call("authentication/start", {"deviceId": "phone"})
        call("authentication/finish", {"deviceId": "phone", "authParameter": {"method": "pin", "pin": "1234"}})
    elapsed = time.perf_counter() - start
    with open(f"/proc/{proc.pid}/status") as f:
        hwm = next(line.split()[1] for line in f if line.startswith("VmHWM"))
    proc.stdin.close()
    proc.wait(timeout=10)
    print(f"{store}: {count / elapsed:.0f} authentications/s over the wire, peak RSS {int(hwm) / 1024:.1f} MiB")


count = int(sys.argv[sys.argv.index("--count") + 1]) if "--count" in sys.argv else 200
for path in [a for a in sys.argv[1:] if a.endswith(".sqlite")]:
    run(path, count)
