#!/usr/bin/env python3
"""Runs make test's suites after one build, several at once, and reports their times.

    python3 Tests/suites.py [--jobs N] [--only NAME,…]

Each suite is a make target run with BUILT=1 (the target then skips its own build step: the
binaries are built once, before any suite starts). Suites start longest first, at most N at a
time (default 3: on two cores most suites spend much of their time waiting for processes,
PostgreSQL or the browser). A suite that needs another's output names it in `after`.

Each suite's output goes to .build/test-logs/NAME.log; a suite that fails has its log's tail
printed, and the run's status is non-zero once all have ended (a failure does not stop the
others: one run reports every failing suite). The times land in .build/test-times.txt, with the
slowest tests pytest reported (`make test-times` prints them).
"""
import argparse
import os
import re
import subprocess
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOGS = os.path.join(ROOT, ".build", "test-logs")
TIMES = os.path.join(ROOT, ".build", "test-times.txt")


@dataclass
class Suite:
    name: str
    target: str
    # Seconds it took on this machine (two cores) the last time it was measured: the order of starts.
    weight: int
    after: list = field(default_factory=list)


# The fuzz build is a second, sanitized build of its own scratch path: it starts with the suites
# and the fuzzing waits for it. contract-log-check runs after all (see the Makefile).
SUITES = [
    Suite("fuzz-build", "fuzz-smoke-build", 400),
    Suite("system", "system", 210),
    Suite("clients", "clients-test", 240),
    Suite("failover", "failover", 41),
    Suite("browser", "browser", 82),
    Suite("unit", "unit", 34),
    Suite("fuzz", "fuzz-smoke-webauthn", 60, after=["fuzz-build"]),
    Suite("passkey-interop", "passkey-interop", 15),
    Suite("golden", "golden", 68),
    Suite("mcp", "mcp-test", 9),
    Suite("regen-docs", "docs-test", 7),
    Suite("demo", "demo", 1),
    Suite("fuzz-replay", "fuzz-replay", 1),
]


def run_suite(suite: Suite) -> tuple[Suite, int, float]:
    log_path = os.path.join(LOGS, suite.name + ".log")
    env = dict(os.environ, PYTEST_ADDOPTS="--durations=8 --durations-min=3")
    started = time.monotonic()
    with open(log_path, "w") as log:
        status = subprocess.run(
            ["make", "--no-print-directory", suite.target, "BUILT=1"], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env
        ).returncode
    return suite, status, time.monotonic() - started


def slowest_tests(limit: int = 15) -> list[str]:
    """pytest's `--durations` lines from every suite's log, slowest first."""
    found = []
    line_re = re.compile(r"^(\d+\.\d+)s (call|setup|teardown)\s+(\S.*)$")
    for name in os.listdir(LOGS):
        with open(os.path.join(LOGS, name), errors="replace") as log:
            for line in log:
                m = line_re.match(line.strip())
                if m:
                    found.append((float(m.group(1)), f"{float(m.group(1)):7.1f} s  {m.group(2):8} {name[:-4]}: {m.group(3)}"))
    return [text for _, text in sorted(found, reverse=True)[:limit]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=3, help="suites at once (default 3)")
    parser.add_argument("--only", default="", help="comma-separated suite names (default: all)")
    args = parser.parse_args()
    chosen = set(filter(None, args.only.split(",")))
    suites = [s for s in SUITES if not chosen or s.name in chosen]
    names = {s.name for s in suites}
    os.makedirs(LOGS, exist_ok=True)

    started = time.monotonic()
    pending = sorted(suites, key=lambda s: -s.weight)
    done: dict[str, tuple[int, float]] = {}
    running = {}
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        while pending or running:
            for suite in list(pending):
                if len(running) >= args.jobs:
                    break
                if all(dep in done or dep not in names for dep in suite.after):
                    if any(done.get(dep, (0, 0))[0] != 0 for dep in suite.after):
                        pending.remove(suite)
                        done[suite.name] = (1, 0.0)
                        print(f"  skipped  {suite.name} (a suite it needs failed)", flush=True)
                        continue
                    pending.remove(suite)
                    running[pool.submit(run_suite, suite)] = suite
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                del running[future]
                suite, status, seconds = future.result()
                done[suite.name] = (status, seconds)
                verdict = "passed" if status == 0 else "FAILED"
                print(f"  {verdict:7}  {suite.name:16} {seconds:6.0f} s   (at {time.monotonic() - started:5.0f} s)", flush=True)
                if status != 0:
                    with open(os.path.join(LOGS, suite.name + ".log"), errors="replace") as log:
                        tail = log.readlines()[-60:]
                    print(f"---- {suite.name}: last lines of .build/test-logs/{suite.name}.log", flush=True)
                    sys.stdout.write("".join(tail))
                    print("----", flush=True)

    total = time.monotonic() - started
    lines = [f"suites: {total:.0f} s wall with {args.jobs} at once"]
    lines += [f"{seconds:7.0f} s  {name}{'' if status == 0 else '  FAILED'}" for name, (status, seconds) in sorted(done.items(), key=lambda item: -item[1][1])]
    lines += ["", "slowest tests (pytest --durations):"] + slowest_tests()
    with open(TIMES, "w") as out:
        out.write("\n".join(lines) + "\n")
    failed = [name for name, (status, _) in done.items() if status != 0]
    print(f"suites: {total:.0f} s; " + (f"failed: {', '.join(failed)}" if failed else "all passed"), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
