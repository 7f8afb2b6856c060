#!/usr/bin/env python3
"""PostgreSQL and SQLite side by side (issue 18), in one run:

1. PIN authentications per second (authentication/start + authentication/finish with the right
   PIN) with 1, 2 and 4 latchkey processes sharing one store, each process driven by its own
   client thread with one request in flight, each on its own activated device.
2. The store's share of one authentication: the mean round trip of one PIN authentication on
   each store against the same on --in-memory (whose store costs next to nothing).
3. Cold start: spawn -> one call -> EOF -> exit, for `ping` (no store touched) and for a call
   that opens the store (connect and check the migrations), on a SQLite file and on PostgreSQL.
4. PostgreSQL's share of one write transaction beside pgbench's own TPC-B transaction at one
   client on the same cluster (issue 28): an authentication is two write transactions (start,
   finish), so the share is (PostgreSQL round trip - in-memory round trip) / 2. PostgreSQL and
   in-memory processes authenticate in alternating turns (SHARE_TURNS turns of SHARE_TURN,
   default 12 x 100) with a one-second pgbench run after each turn, and the medians are compared:
   the machine's drift then hits all three alike. Measured two ways: in the store (a process at
   --log-level trace logs each transaction's time inside the PostgreSQL store), and by difference
   against --in-memory (SQLite in memory, whose own work is subtracted too). For a PIN
   authentication and for a device-only one (the same transactions without the PIN's key
   derivation, whose 2 ms of CPU dwarf the share).
   LATCHKEY_PG_DURABLE=1 on Tests/pg/cluster.sh measures with fsync and synchronous commit on.
   Then the same once more with idle CPUs polling instead of halting (a PM QoS request of 0 us,
   where /dev/cpu_dma_latency can be written; STORES_IDLE_POLL=0 skips it): on a virtual machine
   whose idle vCPUs halt, waking one costs more than a round trip's work, which weighs round
   trips (pgbench's seven against our two); with them polling, the server's work weighs instead.

Needs LATCHKEY_TEST_POSTGRES (a database URI; `make bench` starts a private cluster through
Tests/pg/cluster.sh). Environment: LATCHKEY_BIN, STORES_SECONDS (per point, default 4),
COLD_RUNS (default 30), STORES_IDLE_POLL (default 1). Writes bench/out/stores.json.
"""
import contextlib
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import urllib.parse
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "system"))
from lkharness import LK, activate, pin  # noqa: E402

BIN = os.environ.get("LATCHKEY_BIN", os.path.join(HERE, "..", ".build", "release", "latchkey"))
URI = os.environ.get("LATCHKEY_TEST_POSTGRES")
SECONDS = float(os.environ.get("STORES_SECONDS", "4"))
COLD_RUNS = int(os.environ.get("COLD_RUNS", "30"))
IDLE_POLL = os.environ.get("STORES_IDLE_POLL", "1") != "0"  # the share again with idle CPUs polling
UNAVAILABLE = {}  # store kind -> storeUnavailable answers during the throughput runs
RETRIES = {}  # processes -> serialization failures (each a transaction run again) per authentication


def psql(sql):
    subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", URI, "-c", sql], check=True, capture_output=True)


def fresh_database():
    name = "bench_" + uuid.uuid4().hex[:10]
    psql(f"CREATE DATABASE {name}")
    parts = urllib.parse.urlsplit(URI)
    return f"{parts.scheme}://{parts.netloc}/{name}" + (f"?{parts.query}" if parts.query else "")


def store_args(kind, place):
    if kind == "memory":
        return ["--in-memory"]
    if kind == "sqlite":
        return ["--db", os.path.join(place, "bench.sqlite")]
    return ["--db", place["uri"], "--key-file", place["key"]]


def serialization_failures():
    """Serialization failures so far, from the private cluster's log (None: not ours)."""
    cluster = os.environ.get("LATCHKEY_PG_CLUSTER")
    try:
        with open(os.path.join(cluster, "server.log"), errors="replace") as f:
            return sum("could not serialize" in line for line in f)
    except (TypeError, OSError):
        return None


def throughput(kind, processes, workdir):
    place = workdir
    if kind == "postgresql":
        place = {"uri": fresh_database(), "key": os.path.join(workdir, "pg.key")}
    elif kind == "sqlite":
        place = tempfile.mkdtemp(dir=workdir)
    procs = [LK(*store_args(kind, place), binary=BIN, name=f"{kind}{i}",
                stderr_path=os.environ.get("STORES_STDERR", os.devnull)) for i in range(processes)]
    try:
        devices = [activate(lk, f"bench-{kind}-{processes}-{i}")[0] for i, lk in enumerate(procs)]
        for lk, dev in zip(procs, devices):  # warm up: prepared statements, caches, a first checkpoint
            for _ in range(30):
                lk.request("authentication/start", deviceId=dev)
                lk.request("authentication/finish", deviceId=dev, authParameter=pin("1234"))
        counts = [0] * processes
        latencies = [[] for _ in range(processes)]
        stop = time.perf_counter() + SECONDS

        def drive(i):
            lk, dev = procs[i], devices[i]
            while time.perf_counter() < stop:
                t0 = time.perf_counter()
                started = lk.request("authentication/start", deviceId=dev)
                finished = lk.request("authentication/finish", deviceId=dev, authParameter=pin("1234")) if "result" in started else started
                if "error" in finished:
                    # storeUnavailable is an answer a client retries; anything else is a bug.
                    if finished["error"].get("code") != 1005:
                        raise RuntimeError(f"{lk.name}: {finished['error']}")
                    UNAVAILABLE[kind] = UNAVAILABLE.get(kind, 0) + 1
                    continue
                latencies[i].append(time.perf_counter() - t0)
                counts[i] += 1

        threads = [threading.Thread(target=drive, args=(i,)) for i in range(processes)]
        failures_before = serialization_failures()
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - t0
        failures_after = serialization_failures()
        if kind == "postgresql" and failures_before is not None:
            RETRIES[processes] = (failures_after - failures_before) / max(sum(counts), 1)
        return sum(counts) / elapsed, statistics.mean([x for l in latencies for x in l])
    finally:
        for lk in procs:
            lk.kill()


def pgbench_database():
    """A fresh database of the cluster initialised by pgbench (scale 1); None without pgbench."""
    uri = fresh_database()
    try:
        subprocess.run(["pgbench", "-i", "-q", "-s", "1", uri], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return uri


def pgbench_latency_ms(uri, seconds=None):
    """pgbench's TPC-B-like transaction (seven round trips) at one client: its mean latency in ms."""
    try:
        duration = seconds if seconds is not None else max(int(SECONDS), 1)
        out = subprocess.run(["pgbench", "-n", "-c", "1", "-T", str(duration), uri],
                             check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    for line in out.splitlines():
        if line.startswith("latency average"):
            return float(line.split("=")[1].split()[0])
    return None


TURNS = int(os.environ.get("SHARE_TURNS", "12"))
TURN = int(os.environ.get("SHARE_TURN", "100"))


def interleaved_share(workdir, parameter, bench_db):
    """PostgreSQL's share of one write transaction, two ways, beside pgbench's TPC-B latency.

    An authentication (start + finish) is two write transactions. Three processes authenticate in
    alternating turns of TURN (so the machine's drift hits them alike), with a one-second pgbench
    run after each turn:
    - measured: a PostgreSQL process at --log-level trace logs each transaction's time inside the
      store (round trips, and records turned into statements and rows into records), and the part
      of it spent waiting for the server (from sending a round trip to having its results); the
      medians over write transactions;
    - by difference: (median authentication on PostgreSQL - median in memory) / 2, with a second
      PostgreSQL process that logs nothing. The in-memory store is SQLite in memory, whose own
      work this subtracts too: the difference is what PostgreSQL costs beyond it."""
    trace_log = os.path.join(workdir, f"trace-{uuid.uuid4().hex[:6]}.log")
    place = {"uri": fresh_database(), "key": os.path.join(workdir, "share.key")}
    quiet = os.environ.get("STORES_STDERR", os.devnull)
    procs = {
        "postgresql": LK(*store_args("postgresql", place), binary=BIN, name="share-pg", stderr_path=quiet),
        "traced": LK(*store_args("postgresql", place), "--log-level", "trace", binary=BIN, name="share-traced", stderr_path=trace_log),
        "memory": LK(*store_args("memory", place), binary=BIN, name="share-memory", stderr_path=quiet),
    }
    try:
        devices = {kind: activate(lk, f"share-{kind}")[0] for kind, lk in procs.items()}
        samples = {kind: [] for kind in procs}
        tpcbs = []
        warm_mark = 0
        for turn in range(TURNS + 1):
            for kind, lk in procs.items():
                for _ in range(TURN):
                    t0 = time.perf_counter()
                    started = lk.request("authentication/start", deviceId=devices[kind])
                    finished = lk.request("authentication/finish", deviceId=devices[kind], authParameter=parameter)
                    if "result" not in started or "result" not in finished:
                        raise RuntimeError(f"{kind}: {started.get('error') or finished.get('error')}")
                    if turn:  # the first turn warms up (prepared statements, caches)
                        samples[kind].append((time.perf_counter() - t0) * 1000)
            if not turn:
                warm_mark = os.path.getsize(trace_log)
            if turn and bench_db:
                tpcb = pgbench_latency_ms(bench_db, seconds=1)
                if tpcb is not None:
                    tpcbs.append(tpcb)
    finally:
        for lk in procs.values():
            lk.kill()
    store_ms, wait_ms, trips, statements = [], [], [], []
    with open(trace_log, errors="replace") as f:
        f.seek(warm_mark)
        for line in f:
            if "latchkey.postgresql" not in line or "kind=write" not in line:
                continue
            fields = dict(part.split("=", 1) for part in line.split() if "=" in part)
            store_ms.append(int(fields["storeMicroseconds"]) / 1000)
            wait_ms.append(int(fields.get("waitMicroseconds", 0)) / 1000)
            trips.append(int(fields["roundTrips"]))
            statements.append(int(fields["statements"]))
    pg, memory = statistics.median(samples["postgresql"]), statistics.median(samples["memory"])
    tpcb = statistics.median(tpcbs) if tpcbs else None
    measured = statistics.median(store_ms) if store_ms else None
    difference = (pg - memory) / 2
    return {"postgresql_ms": pg, "memory_ms": memory, "by_difference_ms": difference, "measured_ms": measured,
            "waiting_ms": statistics.median(wait_ms) if wait_ms else None,
            "round_trips": statistics.mean(trips) if trips else None, "statements": statistics.mean(statements) if statements else None,
            "tpcb_ms": tpcb, "tpcb_runs_ms": tpcbs,
            "ratio_measured": measured / tpcb if tpcb and measured else None, "ratio_by_difference": difference / tpcb if tpcb else None}


def shares(workdir, bench_db, result, key):
    """The share of a PIN and of a device-only authentication (`interleaved_share`), printed and
    kept in `result[key]`."""
    for label, parameter in (("PIN", pin("1234")), ("device only", {"method": "device"})):
        share = interleaved_share(workdir, parameter, bench_db)
        result.setdefault(key, {})[label] = share
        print_share(label, share)


def print_share(label, share):
    tpcb = share["tpcb_ms"]
    print(f"  {label} authentication ({share['round_trips']:.1f} round trips, {share['statements']:.1f} statements a write transaction)")
    print(f"    measured in the store  {share['measured_ms']:.3f} ms a write transaction"
          + (f"   pgbench TPC-B {tpcb:.3f} ms   ratio {share['ratio_measured']:.2f}x" if tpcb else ""))
    print(f"      of which waiting for the server {share['waiting_ms']:.3f} ms"
          + (f" ({share['waiting_ms'] / tpcb:.2f}x)" if tpcb else "")
          + "; the rest is the store's own client work (statements built, rows decoded)")
    print(f"    by difference          {share['by_difference_ms']:.3f} ms ({share['postgresql_ms']:.3f} ms on PostgreSQL, "
          f"{share['memory_ms']:.3f} ms in memory, medians)"
          + (f"   ratio {share['ratio_by_difference']:.2f}x" if tpcb else ""))


def idle_description():
    """What an idle CPU of this machine does: its cpuidle driver, and how long a halting one
    polls first (haltpoll's guest_halt_poll_ns) where the machine is a guest that has it."""
    def read(path):
        try:
            with open(path) as f:
                return f.read().strip()
        except OSError:
            return None
    driver = read("/sys/devices/system/cpu/cpuidle/current_driver") or "unknown cpuidle driver"
    poll_ns = read("/sys/module/haltpoll/parameters/guest_halt_poll_ns")
    return driver + (f", guest_halt_poll_ns={poll_ns}" if poll_ns is not None else "")


@contextlib.contextmanager
def idle_polling():
    """Idle CPUs poll instead of halting while this is held: a PM QoS request for 0 us of wake-up
    latency (the kernel keeps it while the file stays open, and drops it when it closes). Yields
    False, changing nothing, where the file cannot be written (not root, no such device)."""
    try:
        fd = os.open("/dev/cpu_dma_latency", os.O_WRONLY)
    except OSError:
        yield False
        return
    try:
        try:
            os.write(fd, struct.pack("i", 0))
            held = True
        except OSError:
            held = False
        yield held
    finally:
        os.close(fd)


def cold(argv, request):
    samples = []
    for _ in range(COLD_RUNS):
        t0 = time.perf_counter()
        p = subprocess.run(argv, input=request, capture_output=True, timeout=30)
        samples.append(time.perf_counter() - t0)
        if b'"result"' not in p.stdout and b'"error"' not in p.stdout:
            raise RuntimeError(f"cold start: no answer from {argv[1:]}: {p.stderr[-300:]!r}")
    samples.sort()
    return statistics.median(samples) * 1000, samples[int(len(samples) * 0.9) - 1] * 1000


def main():
    if not URI:
        print("stores.py: LATCHKEY_TEST_POSTGRES is not set; skipping the PostgreSQL/SQLite comparison")
        return 0
    result = {"throughput": {}, "latency_ms": {}, "cold_ms": {}}
    with tempfile.TemporaryDirectory(prefix="latchkey-stores-") as workdir:
        print(f"== PIN authentications/s, processes sharing one store ({SECONDS:.0f} s a point, {os.cpu_count()} CPUs)")
        print(f"  {'store':<12}{'1 process':>12}{'2 processes':>14}{'4 processes':>14}")
        for kind in ("sqlite", "postgresql"):
            row = {}
            for n in (1, 2, 4):
                rate, mean = throughput(kind, n, workdir)
                row[n] = rate
                if n == 1:
                    result["latency_ms"][kind] = mean * 1000
            result["throughput"][kind] = row
            print(f"  {kind:<12}{row[1]:>12.0f}{row[2]:>14.0f}{row[4]:>14.0f}")
        if UNAVAILABLE:
            result["store_unavailable"] = UNAVAILABLE
            print(f"  storeUnavailable answers (not counted): {UNAVAILABLE}")
        if RETRIES:
            result["pg_retries_per_auth"] = RETRIES
            print("  postgresql transactions run again per authentication: "
                  + ", ".join(f"{n} process{'es' if n > 1 else ''} {r:.2f}" for n, r in sorted(RETRIES.items())))
        _, memory = throughput("memory", 1, workdir)
        result["latency_ms"]["memory"] = memory * 1000
        print("== the store's share of one PIN authentication (1 process, mean round trip of start + finish)")
        for kind in ("memory", "sqlite", "postgresql"):
            ms = result["latency_ms"][kind]
            share = max(0.0, 1 - result["latency_ms"]["memory"] / ms)
            result.setdefault("store_share", {})[kind] = share
            print(f"  {kind:<12}{ms:8.2f} ms   store share {share * 100:5.1f} %")

        # PostgreSQL and in-memory in turns of TURN authentications, pgbench between turns, so
        # the machine's drift hits all three alike; medians of every authentication and run.
        bench_db = pgbench_database()
        print("== PostgreSQL's share of one write transaction beside pgbench's TPC-B transaction (1 client, same cluster)")
        print(f"  idle CPUs: {idle_description()}")
        shares(workdir, bench_db, result, "per_write")
        # The same with idle CPUs polling instead of halting: a wake-up then costs next to
        # nothing, so round trips weigh less and the server's work more (see bench/README.md).
        if IDLE_POLL:
            with idle_polling() as polling:
                if polling:
                    print("== the same, with idle CPUs polling (a PM QoS request of 0 us on /dev/cpu_dma_latency, held for these runs)")
                    shares(workdir, bench_db, result, "per_write_idle_polling")
                else:
                    print("  (not run with idle CPUs polling: /dev/cpu_dma_latency cannot be written here)")

        print(f"== cold start: spawn -> one call -> EOF -> exit (median / p90 of {COLD_RUNS})")
        ping = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}\n'
        opens = b'{"jsonrpc":"2.0","id":1,"method":"admin/getRegistration","params":{"registrationId":"reg_none"}}\n'
        pg = {"uri": fresh_database(), "key": os.path.join(workdir, "cold.key")}
        sqlite_dir = tempfile.mkdtemp(dir=workdir)
        subprocess.run([BIN, *store_args("postgresql", pg)], input=opens, capture_output=True)  # schema made once
        subprocess.run([BIN, *store_args("sqlite", sqlite_dir)], input=opens, capture_output=True)
        for label, argv, request in [
            ("ping, --in-memory", [BIN, "--in-memory"], ping),
            ("ping, postgresql URI", [BIN, *store_args("postgresql", pg)], ping),
            ("store call, sqlite file", [BIN, *store_args("sqlite", sqlite_dir)], opens),
            ("store call, postgresql", [BIN, *store_args("postgresql", pg)], opens),
        ]:
            med, p90 = cold(argv, request)
            result["cold_ms"][label] = {"median": med, "p90": p90}
            print(f"  {label:<26}{med:8.1f} ms {p90:8.1f} ms")
    os.makedirs(os.path.join(HERE, "out"), exist_ok=True)
    with open(os.path.join(HERE, "out", "stores.json"), "w") as f:
        json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
