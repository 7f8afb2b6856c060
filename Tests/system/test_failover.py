"""A failover under load (issue 28): a primary with a synchronous standby
(`Tests/pg/cluster.sh run-standby`), four latchkey processes on the multi-host URI writing users,
counting wrong PINs and using tokens, a fifth subscribed to the audit topic. The primary is
killed (`pg_ctl stop -m immediate`) and the standby promoted mid-run. Checked: every acknowledged
write is on the new primary; nothing answered storeUnavailable was written (the same call made
again answers as if for the first time); the wrong-PIN counters are exact; every call sent 3 s
after the promotion succeeds; the subscriber heard every committed change exactly once; a callback
receiver on loopback, configured before the load, got every callback event committed (each worker
also locks and unlocks a registration of its own), whichever process delivered it: each request
verified by standardwebhooks, deduplicated by webhook-id (at least once), and for each registration
exactly the state changes its acknowledged calls made, in order, none lost.

The cluster is spent by the test (its primary is dead), so this file holds one test. Without
LATCHKEY_TEST_POSTGRES_HA it skips with a message.
"""
import base64
import collections
import os
import subprocess
import threading
import time
import uuid

import pytest

from lkharness import activate, check_not_internal, pin, reason
from receivers import Receiver
from test_postgres import psql, with_database

HA = os.environ.get("LATCHKEY_TEST_POSTGRES_HA")
PRIMARY = os.environ.get("LATCHKEY_PG_PRIMARY")
STANDBY = os.environ.get("LATCHKEY_PG_STANDBY")
CLUSTER_SH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pg", "cluster.sh")
WORKERS = 4
UNAVAILABLE = 1005
LOAD_BEFORE = 3.0        # seconds of load before the primary dies
DOWN_FOR = 0.5           # seconds between the kill and the promotion
LOAD_AFTER = 5.0         # seconds of load after the promotion
ANSWER_WITHIN = 3.0      # every call sent this long after the promotion succeeds
WRONG_PINS_IN_A_ROW = 3  # below the limit (5): the right PIN then resets the counter
CALLBACK_SECRET = "whsec_" + base64.b64encode(bytes(range(64, 96))).decode()

pytestmark = pytest.mark.skipif(not HA, reason="LATCHKEY_TEST_POSTGRES_HA is not set (make failover starts a primary and a standby)")


class Worker:
    """One process's load, and what it was told."""

    def __init__(self, lk, device, registration, toggled):
        self.lk = lk
        self.device = device
        self.registration = registration
        self.toggled = toggled          # a registration locked and unlocked in turn: callback events
        self.toggles = 0                # acknowledged state changes of it
        self.failed = 0                 # the wrong-PIN counter as the acknowledged answers say
        self.users = []                 # acknowledged createUser
        self.tokens_used = []           # acknowledged token uses
        self.refused = collections.Counter()   # storeUnavailable answers, by method
        self.calls = []                 # (sent at, method, outcome)
        self.problems = []

    def call(self, method, **params):
        """The call, made again after each storeUnavailable until it gets another answer."""
        while True:
            sent = time.monotonic()
            reply = self.lk.recv(self.lk.send(method, params), timeout=20)
            check_not_internal(reply, f"{self.lk.name} {method}")
            unavailable = reply.get("error", {}).get("code") == UNAVAILABLE
            self.calls.append((sent, method, "unavailable" if unavailable else reason(reply)))
            if not unavailable:
                return reply
            self.refused[method] += 1
            time.sleep(0.05)

    def expect(self, reply, wanted, what):
        got = reason(reply)
        if got != wanted:
            self.problems.append(f"{self.lk.name}: {what} answered {got} ({reply}), expected {wanted}")

    def run(self, stop):
        n = 0
        while not stop.is_set():
            # A new user: refused attempts wrote nothing, so the last attempt creates it.
            user = f"fo-{self.lk.name}-{n:05d}"
            n += 1
            self.expect(self.call("admin/createUser", userId=user), "ok", f"createUser {user}")
            self.users.append(user)
            # A callback event: the toggled registration's state changes.
            change = "admin/unlockRegistration" if self.toggles % 2 else "admin/lockRegistration"
            self.expect(self.call(change, registrationId=self.toggled), "ok", change)
            self.toggles += 1
            # Wrong PINs, counted only when acknowledged.
            self.expect(self.call("authentication/start", deviceId=self.device), "ok", "authentication/start")
            if self.failed < WRONG_PINS_IN_A_ROW:
                reply = self.call("authentication/finish", deviceId=self.device, authParameter=pin("9999"))
                self.expect(reply, "authenticationFailed", "a wrong PIN")
                if reason(reply) == "authenticationFailed":
                    self.failed += 1
                    remaining = reply["error"]["data"].get("remainingAttempts")
                    if remaining != 5 - self.failed:
                        self.problems.append(f"{self.lk.name}: remainingAttempts {remaining} after {self.failed} wrong PINs")
                continue
            # The right PIN resets the counter and issues a token, used once.
            reply = self.call("authentication/finish", deviceId=self.device, authParameter=pin("1234"),
                              tokenPurpose="addOrUpdateRecovery")
            self.expect(reply, "ok", "the right PIN")
            if "result" not in reply:
                continue
            self.failed = 0
            token = reply["result"]["token"]
            self.expect(self.call("recovery/startAddOrUpdate", deviceId=self.device, token=token), "ok", "a token's first use")
            self.tokens_used.append(token)


def test_a_failover_loses_nothing_acknowledged_and_no_notification(spawn, workdir):
    name = "lk_fo_" + uuid.uuid4().hex[:10]
    psql(f"CREATE DATABASE {name}", HA)
    uri = with_database(HA, name)
    key_file = os.path.join(workdir, "latchkey.key")
    procs = [spawn("--db", uri, "--key-file", key_file, name=f"W{i}") for i in range(WORKERS)]
    receiver = Receiver(secret=CALLBACK_SECRET)
    callback = procs[0].ok("admin/configureCallback", url=receiver.url(), events=["registration.stateChanged"],
                           secret=CALLBACK_SECRET)
    workers = []
    for lk in procs:
        dev, reg, _ = activate(lk, f"fo-owner-{lk.name}")
        _, toggled, _ = activate(lk, f"fo-toggled-{lk.name}")
        workers.append(Worker(lk, dev, reg, toggled))
    baseline = int(psql('SELECT coalesce(max("_seq"), 0) FROM audit_event', uri))
    subscriber = spawn("--db", uri, "--key-file", key_file, name="S")
    subscriber.ok("events/subscribe", topics=["audit"])

    stop = threading.Event()
    errors = []

    def run(worker):
        try:
            worker.run(stop)
        except BaseException as e:  # reported below
            errors.append(f"{worker.lk.name}: {e!r}")

    threads = [threading.Thread(target=run, args=(w,), daemon=True) for w in workers]
    for t in threads:
        t.start()
    time.sleep(LOAD_BEFORE)
    # The receiver answers nothing from just before the kill until the promotion: the attempts under way when the primary
    # dies end after it, and are recorded on the new primary (or, their claim lost, made again).
    receiver.hold()
    held_from = time.monotonic()
    subprocess.run(["bash", CLUSTER_SH, "kill", PRIMARY], check=True)
    time.sleep(DOWN_FOR)
    subprocess.run(["bash", CLUSTER_SH, "promote", STANDBY], check=True)
    promoted = time.monotonic()
    receiver.release()
    time.sleep(LOAD_AFTER)
    stop.set()
    for t in threads:
        t.join(30)
    assert not errors, errors
    problems = [p for w in workers for p in w.problems]
    if problems:
        pytest.fail(f"{len(problems)} answers were not what the acknowledged ones imply:\n" + "\n".join(problems), pytrace=False)
    unavailable = sum(sum(w.refused.values()) for w in workers)

    # Every call sent ANSWER_WITHIN seconds after the promotion succeeded; every process answers.
    late = [(w.lk.name, round(sent - promoted, 2), method) for w in workers for sent, method, outcome in w.calls
            if outcome == "unavailable" and sent >= promoted + ANSWER_WITHIN]
    assert not late, late
    for w in workers:
        assert any(sent >= promoted + ANSWER_WITHIN and outcome != "unavailable" for sent, _, outcome in w.calls), \
            f"{w.lk.name} made no call after the promotion"
    assert "result" in subscriber.request("admin/getRegistration", registrationId=workers[0].registration)
    first_answers = [min((sent - promoted for sent, _, outcome in w.calls if sent >= promoted and outcome != "unavailable"),
                         default=None) for w in workers]

    acknowledged = {u for w in workers for u in w.users}

    # The subscriber heard each audit event committed after it subscribed exactly once, in the
    # order of each registration's events (each registration's transactions conflict, so
    # commit order is their order in the table).
    assert psql("SELECT pg_is_in_recovery()", uri) == "f"
    rows = psql('SELECT "type", coalesce("userId", \'\'), coalesce("registrationId", \'\') FROM audit_event '
                f'WHERE "_seq" > {baseline} ORDER BY "_seq"', uri).splitlines()
    committed = [tuple(row.split("|")) for row in rows]
    deadline = time.time() + 10
    while time.time() < deadline:
        with subscriber._cond:
            heard = [n["params"]["event"] for n in subscriber.notifications if n.get("method") == "audit/event"]
        if len(heard) >= len(committed):
            break
        time.sleep(0.1)
    heard = [(e["type"], e.get("userId", ""), e.get("registrationId", "")) for e in heard]
    assert collections.Counter(heard) == collections.Counter(committed), \
        (len(heard), len(committed), (collections.Counter(committed) - collections.Counter(heard)).most_common(5),
         (collections.Counter(heard) - collections.Counter(committed)).most_common(5))
    for w in workers:
        mine = [e for e in committed if e[2] == w.registration]
        assert [e for e in heard if e[2] == w.registration] == mine, w.lk.name

    # Every acknowledged write is on the new primary (the URI now reaches only the standby).
    assert psql("SELECT pg_is_in_recovery()", uri) == "f"
    users = set(psql('SELECT "id" FROM "user" WHERE "id" LIKE \'fo-W%\'', uri).split())
    assert acknowledged <= users, sorted(acknowledged - users)[:5]
    # Nothing refused was written: every user there was acknowledged (each create retried until answered).
    assert users - {f"fo-owner-{lk.name}" for lk in procs} == acknowledged, sorted(users - acknowledged)[:5]
    # Counters exact, and every acknowledged token use holds.
    for w in workers:
        r = w.lk.ok("admin/getRegistration", registrationId=w.registration)
        assert r["failedAttempts"] == w.failed and r["state"] == "active", (w.lk.name, r, w.failed)
        for token in w.tokens_used[-3:]:
            assert reason(w.lk.request("recovery/startAddOrUpdate", deviceId=w.device, token=token)) == "tokenInvalid"

    # Every callback event committed reached the receiver (at least once: a delivery whose attempt was not recorded before the
    # failover is sent again).
    events = set(psql('SELECT "id" FROM callback_event', uri).split())
    deadline = time.time() + 30
    while time.time() < deadline and not events <= {r.id for r in receiver.snapshot()}:
        time.sleep(0.2)
    requests = receiver.snapshot()
    receiver.close()
    received = collections.Counter(r.id for r in requests)
    held = sum(1 for r in requests if held_from <= r.received <= promoted)
    assert events <= set(received), (len(events - set(received)), sorted(events - set(received))[:5])
    assert set(received) <= events, "a delivery of an event the new primary does not have"
    # Each request as standardwebhooks (PyPI) verifies it; one webhook-id is one body however often it came.
    refused = [(r.id, r.problem) for r in requests if r.problem]
    assert not refused, refused[:5]
    bodies = {}
    for r in requests:
        assert bodies.setdefault(r.id, r.verified) == r.verified, f"{r.id} came with two bodies"
    assert len({b["seq"] for b in bodies.values()}) == len(bodies)
    # Deduplicated by webhook-id, in seq order, each registration's events are exactly what its acknowledged calls did:
    # the activation, then each acknowledged lock and unlock (none answered storeUnavailable was written).
    for w in workers:
        changes = [(b["data"]["previousState"], b["data"]["state"]) for b in sorted(bodies.values(), key=lambda b: b["seq"])
                   if b["data"]["registrationId"] == w.toggled]
        expected = [(None, "active")] + [("active", "lockedByAdmin"), ("lockedByAdmin", "active")] * (w.toggles // 2) \
            + [("active", "lockedByAdmin")] * (w.toggles % 2)
        assert changes == expected, (w.lk.name, len(changes), len(expected),
                                     next(((i, c, e) for i, (c, e) in enumerate(zip(changes, expected)) if c != e), None))
        owned = [b["data"]["state"] for b in bodies.values() if b["data"]["registrationId"] == w.registration]
        assert owned == ["active"], (w.lk.name, owned)
    # Each acknowledged lock or unlock committed its event (and activations theirs).
    assert len(events) >= sum(w.toggles for w in workers) + 2 * WORKERS, (len(events), sum(w.toggles for w in workers))
    count = f'''SELECT count(*) FROM callback_delivery WHERE "callbackId" = '{callback["callbackId"]}' AND "status" = 'delivered' '''
    while time.time() < deadline and int(psql(count, uri)) < len(events):
        time.sleep(0.2)
    assert int(psql(count, uri)) == len(events)

    assert len(acknowledged) > 40 and sum(len(w.tokens_used) for w in workers) > 4
    print(f"\nfailover: {len(acknowledged)} users, {sum(len(w.tokens_used) for w in workers)} token uses, "
          f"{len(committed)} audit events heard once each, {len(events)} callback events received "
          f"({sum(received.values()) - len(received)} more than once, {held} held across the failover), "
          f"{unavailable} calls answered storeUnavailable; "
          f"first answer after the promotion: {', '.join(f'{a:.2f}s' if a is not None else '-' for a in first_answers)}")
