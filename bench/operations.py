#!/usr/bin/env python3
"""Operations on PostgreSQL (issue 38): round trips of each write transaction, and PIN approvals
per second beside PIN authentications over the wire.

1. Round trips. A latchkey process at --log-level trace logs one line per store transaction
   (kind, roundTrips, statements, attempts). Each call below is sent alone, followed by a `ping`
   (the call's trace lines are written before that answer), and the lines in between are its
   transactions. The sequence runs WARMUP times untraced, then TRACED times; the table shows
   the round trips of each write transaction (first attempt) in the last run, the range over
   the traced runs, and the round trips of read transactions in between (the due-work check
   that follows a change of an operation). The calls:
   - the simulated phone (`deviceId`): `operation/list`, `operation/approve` with its PIN (the
     challenge and the approval in one transaction), `authentication/start` + `finish` beside
     them;
   - a phone outside the process (the Python reference device, clients/python/latchkey/device.py):
     `server/operation/list`, `server/operation/challenge`, `server/operation/approve`, and its
     `server/authentication/challenge` + `verify` beside them;
   - the back end: `admin/createOperation`, `admin/operationQrCode`, `admin/verifyOfflineOperation`
     (the code from the simulated phone's `operation/offlineApprove`).
2. Throughput. ROUNDS rounds of BATCH PIN authentications (start + finish) and BATCH PIN approvals
   (`operation/approve`, the operations made before the round, not timed) of one simulated phone,
   one request in flight, the order of the two blocks turned every round; the median over rounds
   of approvals/s ÷ authentications/s. On PostgreSQL and, for reference, on a SQLite file.

Needs LATCHKEY_TEST_POSTGRES (a database URI; `bash Tests/pg/cluster.sh run python3
bench/operations.py` starts a private cluster) and the `cryptography` package. Environment:
LATCHKEY_BIN, OPERATIONS_ROUNDS (default 10), OPERATIONS_BATCH (default 10). Writes
bench/out/operations.json.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "system"))
sys.path.insert(0, os.path.join(HERE, "..", "clients", "python"))
from lkharness import LK, activate, pin  # noqa: E402
from latchkey.device import Device  # noqa: E402

BIN = os.environ.get("LATCHKEY_BIN", os.path.join(HERE, "..", ".build", "release", "latchkey"))
URI = os.environ.get("LATCHKEY_TEST_POSTGRES")
ROUNDS = int(os.environ.get("OPERATIONS_ROUNDS", "10"))
BATCH = int(os.environ.get("OPERATIONS_BATCH", "10"))
WARMUP = 3
TRACED = 3
PIN = "1234"
TEMPLATE = {
    "name": "bench-payment", "title": "Pay ${amount} EUR", "message": "To CZ27 3030 0000 0011 6525 4011",
    "data": "A1*A${amount}EUR*ICZ2730300000001165254011*D20260131",
}
FIELD = re.compile(rb"(\w+)=(\S+)")


def fresh_database():
    name = "bench_ops_" + uuid.uuid4().hex[:10]
    subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", URI, "-c", f"CREATE DATABASE {name}"],
                   check=True, capture_output=True)
    parts = urllib.parse.urlsplit(URI)
    return f"{parts.scheme}://{parts.netloc}/{name}" + (f"?{parts.query}" if parts.query else "")


class Traced:
    """A latchkey process whose every call is followed by a ping, its store transactions kept by method."""

    def __init__(self, lk, stderr_path):
        self.lk = lk
        self.stderr_path = stderr_path
        self.seen = []  # (method, [transaction, ...]) in call order

    def call(self, method, params=None):
        mark = os.path.getsize(self.stderr_path)
        result = self.lk.ok(method, **(params or {}))
        self.lk.ok("ping")
        with open(self.stderr_path, "rb") as f:
            f.seek(mark)
            lines = [line for line in f.read().splitlines() if b"roundTrips=" in line]
        self.seen.append((method, [{k.decode(): v.decode() for k, v in FIELD.findall(line)} for line in lines]))
        return result


def one_sequence(client, simulated, external):
    """Every call of the table once; the operations are made for the user of the phone that approves them."""
    sim_dev, sim_user = simulated
    client.call("operation/list", {"deviceId": sim_dev})
    made = client.call("admin/createOperation", {"userId": sim_user, "template": TEMPLATE["name"],
                                                 "parameters": {"amount": "1500.00"}})
    client.call("operation/approve", {"deviceId": sim_dev, "operationId": made["operationId"], "authParameter": pin(PIN)})
    client.call("authentication/start", {"deviceId": sim_dev})
    client.call("authentication/finish", {"deviceId": sim_dev, "authParameter": pin(PIN)})
    phone, ext_user = external
    made = client.call("admin/createOperation", {"userId": ext_user, "template": TEMPLATE["name"],
                                                 "parameters": {"amount": "20.00"}})
    phone.operations()
    approved = phone.approve_operation(made["operationId"], pin=PIN)
    assert approved["status"] == "approved", approved
    phone.authenticate(pin=PIN)
    made = client.call("admin/createOperation", {"userId": sim_user, "template": TEMPLATE["name"],
                                                 "parameters": {"amount": "7.00"}})
    qr = client.call("admin/operationQrCode", {"operationId": made["operationId"]})["qrPayload"]
    code = client.call("operation/offlineApprove", {"deviceId": sim_dev, "qrPayload": qr, "authParameter": pin(PIN)})["code"]
    verified = client.call("admin/verifyOfflineOperation", {"operationId": made["operationId"], "code": code})
    assert verified["status"] == "approved", verified


def round_trips(workdir):
    stderr_path = os.path.join(workdir, "traced.stderr")
    lk = LK("--db", fresh_database(), "--key-file", os.path.join(workdir, "trips.key"), "--log-level", "trace",
            binary=BIN, name="traced", stderr_path=stderr_path)
    try:
        lk.ok("admin/configureOperationTemplate", **TEMPLATE)
        sim_dev, _, _ = activate(lk, "sim")
        client = Traced(lk, stderr_path)
        lk.ok("admin/createUser", userId="ext")
        code = lk.ok("admin/createActivationCode", userId="ext")["activationCode"]
        phone = Device(client, "bench-operations-phone", {})
        phone.activate(code, pin=PIN)
        for _ in range(WARMUP):
            one_sequence(client, (sim_dev, "sim"), (phone, "ext"))
        runs = []
        for _ in range(TRACED):
            client.seen = []
            one_sequence(client, (sim_dev, "sim"), (phone, "ext"))
            runs.append(client.seen)
    finally:
        lk.kill()
    print("== round trips of each write transaction on PostgreSQL (first attempts; the last traced run, "
          f"the range over {TRACED} runs after {WARMUP} warm-up runs)")
    print(f"  {'call':36} {'writes':>6} {'round trips':>12} {'statements':>11} {'range':>6}   reads: round trips")
    table = []
    for index, (method, _) in enumerate(runs[-1]):
        per_run = [[t for t in run[index][1] if t.get("kind") == "write" and t.get("attempts") == "1"] for run in runs]
        last = per_run[-1]
        reads = [int(t["roundTrips"]) for t in runs[-1][index][1] if t.get("kind") == "read"]
        trips = [int(t["roundTrips"]) for t in last]
        every = [int(t["roundTrips"]) for run in per_run for t in run]
        row = {"method": method, "writes": len(last), "roundTrips": trips,
               "statements": [int(t["statements"]) for t in last], "readRoundTrips": reads,
               "range": [min(every), max(every)] if every else None}
        table.append(row)
        spread = f"{min(every)}–{max(every)}" if every else "-"
        print(f"  {method:36} {len(last):6} {','.join(map(str, trips)) or '-':>12} "
              f"{','.join(map(str, row['statements'])) or '-':>11} {spread:>6}   {','.join(map(str, reads)) or '-'}")
    return table


def throughput(kind, workdir):
    if kind == "postgresql":
        args = ["--db", fresh_database(), "--key-file", os.path.join(workdir, "rate.key")]
    else:
        args = ["--db", os.path.join(tempfile.mkdtemp(dir=workdir), "bench.sqlite")]
    lk = LK(*args, binary=BIN, name=kind)
    try:
        lk.ok("admin/configureOperationTemplate", **TEMPLATE)
        dev, _, _ = activate(lk, "rate")

        def make():
            return lk.ok("admin/createOperation", userId="rate", template=TEMPLATE["name"],
                         parameters={"amount": "1500.00"})["operationId"]

        def authentications():
            t0 = time.perf_counter()
            for _ in range(BATCH):
                lk.ok("authentication/start", deviceId=dev)
                lk.ok("authentication/finish", deviceId=dev, authParameter=pin(PIN))
            return (time.perf_counter() - t0) / BATCH

        def approvals(operations):
            t0 = time.perf_counter()
            for operation_id in operations:
                lk.ok("operation/approve", deviceId=dev, operationId=operation_id, authParameter=pin(PIN))
            return (time.perf_counter() - t0) / BATCH

        for _ in range(2):  # warm up
            authentications()
            approvals([make() for _ in range(BATCH)])
        auths, approves, ratios = [], [], []
        for r in range(ROUNDS):
            operations = [make() for _ in range(BATCH)]
            if r % 2 == 0:
                a = authentications()
                b = approvals(operations)
            else:
                b = approvals(operations)
                a = authentications()
            auths.append(a)
            approves.append(b)
            ratios.append(a / b)
    finally:
        lk.kill()
    result = {"authentication": statistics.median(auths), "approval": statistics.median(approves),
              "ratio": statistics.median(ratios), "ratioRange": [min(ratios), max(ratios)]}
    print(f"  {kind:10} authentication {1e3 * result['authentication']:6.2f} ms ({1 / result['authentication']:4.0f} /s), "
          f"approval {1e3 * result['approval']:6.2f} ms ({1 / result['approval']:4.0f} /s): "
          f"approvals/s ÷ authentications/s {result['ratio']:.2f}× (rounds {min(ratios):.2f}–{max(ratios):.2f})")
    return result


def main():
    if not URI:
        print("operations.py: LATCHKEY_TEST_POSTGRES is not set (bash Tests/pg/cluster.sh run python3 bench/operations.py)",
              file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as workdir:
        table = round_trips(workdir)
        print(f"== PIN approvals beside PIN authentications over the wire, one simulated phone, {ROUNDS} rounds of {BATCH} "
              "(medians; target ≥ 0.9×)")
        rates = {kind: throughput(kind, workdir) for kind in ("postgresql", "sqlite")}
    out = os.path.join(HERE, "out")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "operations.json"), "w") as f:
        json.dump({"roundTrips": table, "throughput": rates}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
