"""Round trips of a simulated phone's authentication on PostgreSQL (issue 28).

At --log-level trace the PostgreSQL store logs one line per transaction with the round trips it
made. A phone's transaction reads its keychain first, and the server half's reads depend on it;
what a call foresees of the next one (`FollowUpReads`) goes with the keychain, so from the
second authentication on each transaction costs two round trips: its reads, then its writes with
COMMIT. A process that has not seen the device, or whose guess went stale, pays one more and
answers the same.
"""
import os
import re

import pytest

from lkharness import activate, pin
from test_postgres import database  # noqa: F401  (the fixture: a fresh database, dropped after)

URI = os.environ.get("LATCHKEY_TEST_POSTGRES")

pytestmark = pytest.mark.skipif(not URI, reason="LATCHKEY_TEST_POSTGRES is not set (make test starts a private cluster)")

TRACE = re.compile(rb'attempts=(\d+) kind=write roundTrips=(\d+) ')


def write_round_trips(path, since):
    """The round trips of each write transaction logged after byte `since` of the stderr file."""
    with open(path, "rb") as f:
        f.seek(since)
        data = f.read()
    found = []
    for line in data.splitlines():
        match = TRACE.search(line)
        if match and match.group(1) == b"1":
            found.append(int(match.group(2)))
    return found


def traced(spawn, database, workdir, name):
    return spawn("--db", database, "--key-file", os.path.join(workdir, "k.key"), "--log-level", "trace", name=name)


def test_an_authentication_after_the_first_costs_two_round_trips_a_transaction(spawn, database, workdir):
    lk = traced(spawn, database, workdir, "traced")
    dev, _, _ = activate(lk, "trips")
    stderr = os.path.join(workdir, "traced.stderr")
    for _ in range(3):
        mark = os.path.getsize(stderr)
        lk.ok("authentication/start", deviceId=dev)
        lk.ok("authentication/finish", deviceId=dev, authParameter=pin("1234"))
        lk.ok("ping")  # the trace lines of both calls are written before this answer
        last = write_round_trips(stderr, mark)
    assert last == [2, 2], f"round trips of the third authentication's start and finish: {last}"


def test_a_process_that_has_not_seen_the_device_or_guesses_stale_answers_the_same(spawn, database, workdir):
    a = traced(spawn, database, workdir, "a")
    b = traced(spawn, database, workdir, "b")
    dev, reg, _ = activate(a, "stale")
    a.ok("authentication/start", deviceId=dev)
    a.ok("authentication/finish", deviceId=dev, authParameter=pin("1234"))
    # b starts (it foresaw nothing); a, which foresaw a start, finishes b's challenge instead.
    started = b.ok("authentication/start", deviceId=dev)
    assert started["remainingAttemptsPIN"] == 5
    pushed = b.ok("admin/pushAuthentication", registrationId=reg, contextTitle="Pay", ttlSeconds=300)
    # a's guess (a start's reads) is stale for a finish: it reads again and verifies b's challenge.
    wrong = a.request("authentication/finish", deviceId=dev, authParameter=pin("9999"))
    assert wrong["error"]["data"]["reason"] == "authenticationFailed", wrong
    # The counted failure shows on the next start, wherever it runs, with the push picked up.
    again = a.ok("authentication/start", deviceId=dev)
    assert again["remainingAttemptsPIN"] == 4
    assert again["authenticationId"] == pushed["authenticationId"]
    done = b.ok("authentication/finish", deviceId=dev, authParameter=pin("1234"))
    assert done["responseType"] == "authenticated"
    assert b.ok("admin/getAuthentication", authenticationId=pushed["authenticationId"])["status"] == "approved"
