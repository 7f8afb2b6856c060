#!/usr/bin/env python3
"""What many pending operations cost the requests beside them: the look for the next due time.

    python bench/pending_operations.py [N]      (default N = 2000)

A process (LATCHKEY_BIN, default ../.build/release/latchkey; `--in-memory --seed 1 --clock manual`)
gets one user and one template, then N operations each with its own lifetime (`ttlSeconds` 60 + i,
so N distinct expiries), each `admin/createOperation` timed; then one `clock/advance` past all of
them, which stops at each expiry on the way (each is announced at its own time) and so looks for
the next due time N times. Printed: milliseconds per create, the first 100 against the last 100
(a create that reads every pending operation grows with N), and the seconds of the one advance.
Writes bench/out/pending_operations.json.
"""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    binary = os.environ.get("LATCHKEY_BIN") or os.path.join(HERE, "..", ".build", "release", "latchkey")
    process = subprocess.Popen([binary, "--in-memory", "--seed", "1", "--clock", "manual"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    next_id = 0

    def call(method, **params):
        nonlocal next_id
        next_id += 1
        message = {"jsonrpc": "2.0", "id": next_id, "method": method, "params": params}
        process.stdin.write((json.dumps(message) + "\n").encode())
        process.stdin.flush()
        reply = json.loads(process.stdout.readline())
        if "result" not in reply:
            raise SystemExit(f"{method} failed: {reply}")
        return reply["result"]

    call("admin/createUser", userId="alice", email="alice@example.com", password="correct horse")
    call("admin/configureOperationTemplate", name="t", title="Pay ${x}", message="M", data="A1*T${x}")
    times = []
    for i in range(n):
        started = time.perf_counter()
        call("admin/createOperation", userId="alice", template="t", parameters={"x": str(i)}, ttlSeconds=60 + i)
        times.append(time.perf_counter() - started)
    started = time.perf_counter()
    call("clock/advance", seconds=60 + n + 1)
    advance = time.perf_counter() - started
    process.stdin.close()
    process.wait(30)
    head = sum(times[:100]) / min(100, n) * 1e3
    tail = sum(times[-100:]) / min(100, n) * 1e3
    print(f"{n} pending operations, each expiring at its own time ({binary})")
    print(f"  admin/createOperation: first 100 {head:.3f} ms each, last 100 {tail:.3f} ms each")
    print(f"  one clock/advance over the {n} expiries: {advance:.2f} s")
    os.makedirs(os.path.join(HERE, "out"), exist_ok=True)
    with open(os.path.join(HERE, "out", "pending_operations.json"), "w") as out:
        json.dump({"n": n, "createFirstMs": head, "createLastMs": tail, "advanceSeconds": advance}, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
