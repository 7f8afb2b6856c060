"""Operations raced by several latchkey processes on one store, a SQLite file and PostgreSQL
(issue 38 point 6; PROTOCOL.md, "Operations (approving what the user sees)").

An operation's `status` changes only once, and a wrong PIN counts one on the registration and
one on the operation, so:
  a) two processes approving one operation with the right PIN at the same moment: exactly one
     answers it `approved`, the other `operationNotPending` (2000, `data.status: "approved"`);
     the operation is approved once (one `operationApproved` event) and nothing counted. Both
     with the same phone in both processes and with two phones of one user.
  b) wrong PINs from three processes at once never count past either limit. With the default
     application's maxFailedAttempts (5) and the template's maxFailureCount M, exactly
     C = min(M, 5) tries count: C - 1 `authenticationFailed` whose `remainingAttempts` are
     C - 1 … 1, each once; then
       M < 5: one `operationFailed` (2002), the registration active with failedAttempts M;
       M = 5: one `operationFailed` (before `registrationLocked`, whose lock still happens);
       M > 5: the registration locks (`registrationLocked`), the operation stays pending;
     every other try `operationNotPending` (the operation is checked before the registration's
     state) or, once the registration is locked and the operation still pending,
     `registrationLocked`. The operation's failureCount is C, never more; it is `failed` once
     (one `operationFailed` event, C `operationApprovalFailed`); the registration's
     failedAttempts is C.

The phone is the simulated one: its keychain lives in the store, so either process can drive it.
Every round races a fresh operation: each process gets its requests written to its stdin back to
back (no reply awaited in between), then every reply is collected. A round counts as overlapped
when no reply had arrived by the time the last request was written; most rounds must overlap.
No answer may be internalError (the `spawn` fixture checks).
"""
import os
import uuid

import pytest

from lkharness import activate, check_not_internal, pin
from test_postgres import psql, with_database

URI = os.environ.get("LATCHKEY_TEST_POSTGRES")
ROUNDS = int(os.environ.get("LATCHKEY_OPERATION_RACE_ROUNDS", "12"))
MAX_FAILED = 5          # the default application's maxFailedAttempts
RIGHT, WRONG = "1234", "9999"
NOT_PENDING, DATA_MISMATCH, OPERATION_FAILED = 2000, 2001, 2002
AUTHENTICATION_FAILED, REGISTRATION_LOCKED = 1400, 1401

TEMPLATE = {
    "title": "Pay ${amount} EUR",
    "message": "To CZ2730300000001165254011",
    "data": "A1*A${amount}EUR*ICZ2730300000001165254011",
    "attributes": [{"type": "amount", "label": "Amount", "amount": "${amount}", "currency": "EUR"}],
}


# --------------------------------------------------------------------------
# the store: processes on one SQLite file, or on one fresh PostgreSQL database
# --------------------------------------------------------------------------
@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, spawn, db_path, workdir):
    """start(n) -> n processes on one store, each answering."""
    if request.param == "sqlite":
        args = ["--db", db_path]
        cleanup = None
    else:
        if not URI:
            pytest.skip("LATCHKEY_TEST_POSTGRES is not set (make system starts a private cluster)")
        name = "lk_" + uuid.uuid4().hex[:12]
        psql(f"CREATE DATABASE {name}")
        args = ["--db", with_database(URI, name), "--key-file", os.path.join(workdir, "latchkey.key")]
        cleanup = name

    def start(n):
        procs = []
        for i in range(n):
            lk = spawn(*args, name="ABCDEFGH"[i])
            # A call on the store (ping opens nothing): the first has made the schema (and the key file) before the next opens it.
            lk.ok("admin/listCallbacks")
            procs.append(lk)
        return procs

    yield start
    if cleanup:
        psql(f"DROP DATABASE IF EXISTS {cleanup} WITH (FORCE)")


OVERLAPS = {"rounds": 0, "overlapped": 0}


@pytest.fixture(autouse=True)
def overlap_checked():
    """Most rounds must have had every request in flight at once, else nothing was raced."""
    OVERLAPS.update(rounds=0, overlapped=0)
    yield
    print(f"overlapped rounds: {OVERLAPS['overlapped']}/{OVERLAPS['rounds']}")
    if OVERLAPS["rounds"] >= 4:  # a test that stopped early has failed already
        assert OVERLAPS["overlapped"] * 4 >= OVERLAPS["rounds"] * 3, OVERLAPS


def race(calls):
    """calls: [(lk, method, params)], written in that order with no reply awaited in between;
    returns [(lk, reply)] in the same order."""
    sent = [(lk, lk.send(method, params)) for lk, method, params in calls]
    OVERLAPS["rounds"] += 1
    OVERLAPS["overlapped"] += not any(id_ in lk.replies for lk, id_ in sent)
    replies = []
    for (lk, id_), (_, method, _) in zip(sent, calls):
        r = lk.recv(id_, 30)
        check_not_internal(r, f"{lk.name} {method}")
        replies.append((lk, r))
    return replies


def interleave(per_process, rotate):
    """[[call, …] per process] -> every process's first call, then every second call, … with the
    processes' order rotated by `rotate`, so each process is sometimes the first to be written to."""
    n = len(per_process)
    order = [per_process[(k + rotate) % n] for k in range(n)]
    return [calls[i] for i in range(max(map(len, order))) for calls in order if i < len(calls)]


# --------------------------------------------------------------------------
# the phone, the template, the operations
# --------------------------------------------------------------------------
def second_phone(lk, user):
    """Another phone of `user`, activated with the right PIN through `lk`; its deviceId."""
    code = lk.ok("admin/createActivationCode", userId=user)["activationCode"]
    dev = lk.ok("device/create")["deviceId"]
    lk.ok("activation/start", deviceId=dev, activationCode=code)
    lk.ok("activation/finish", deviceId=dev, authParameter=pin(RIGHT))
    return dev


def template(lk, name, **options):
    return lk.ok("admin/configureOperationTemplate", name=name, **TEMPLATE, **options)


def new_operation(lk, user, name, i):
    op = lk.ok("admin/createOperation", userId=user, template=name, parameters={"amount": f"{100 + i}.00"})
    assert op["status"] == "pending" and op["failureCount"] == 0, op
    return op


def operation_events(lk, user, operation_id):
    """The audit events of one operation, oldest first."""
    events = lk.ok("audit/list", userId=user, limit=100000)["events"]
    return [e for e in events if e.get("operationId") == operation_id]


def types(events):
    return [e["type"] for e in events]


def error(reply):
    return reply.get("error") or {}


# --------------------------------------------------------------------------
# a) the right PIN from two processes at once: approved once
# --------------------------------------------------------------------------
@pytest.mark.parametrize("phones", ["one-phone", "two-phones"])
def test_two_processes_approving_one_operation_approve_it_once(store, phones):
    a, b = store(2)
    user = "approver"
    dev_a, reg, _ = activate(a, user, pin_code=RIGHT)
    dev_b = dev_a if phones == "one-phone" else second_phone(b, user)
    reg_of = {"A": reg, "B": b.ok("device/registrationId", deviceId=dev_b)["registrationId"]}
    assert (reg_of["A"] == reg_of["B"]) == (dev_a == dev_b), reg_of
    template(a, "pay")
    # Each process has seen the phone(s) once: every round's approval finds the PIN's salt known.
    assert len(a.ok("operation/list", deviceId=dev_a)["operations"]) == 0
    assert len(b.ok("operation/list", deviceId=dev_b)["operations"]) == 0

    wins = {"A": 0, "B": 0}
    for i in range(ROUNDS):
        op = new_operation((a, b)[i // 2 % 2], user, "pay", i)
        oid = op["operationId"]
        # Both phones list it (each process reads what the other wrote).
        assert [o["operationId"] for o in b.ok("operation/list", deviceId=dev_b)["operations"]] == [oid]
        calls = [(a, "operation/approve", {"deviceId": dev_a, "operationId": oid, "authParameter": pin(RIGHT)}),
                 (b, "operation/approve", {"deviceId": dev_b, "operationId": oid, "authParameter": pin(RIGHT)})]
        replies = race(calls if i % 2 == 0 else calls[::-1])
        won = [(lk, r["result"]) for lk, r in replies if "result" in r]
        lost = [(lk, r["error"]) for lk, r in replies if "error" in r]
        assert len(won) == 1 and len(lost) == 1, f"round {i}: expected one approval and one refusal: {replies}"
        winner, approved = won[0]
        loser, refused = lost[0]
        assert refused["code"] == NOT_PENDING, f"round {i}: {loser.name} answered {refused}"
        assert refused["data"] == {"reason": "operationNotPending", "status": "approved"}, refused
        assert approved["operationId"] == oid and approved["status"] == "approved", approved
        assert approved["approvedWith"] == "pin" and approved["failureCount"] == 0, approved
        assert approved["registrationId"] is None and approved["decidedAt"] is not None, approved
        wins[winner.name] += 1
        # Both processes read the one approval; nothing counted anywhere.
        for lk in (a, b):
            stored = lk.ok("admin/getOperation", operationId=oid)
            assert stored == approved, f"round {i}: {lk.name} reads {stored}, the winner answered {approved}"
        events = operation_events(a, user, oid)
        assert types(events) == ["operationCreated", "operationApproved"], f"round {i}: {events}"
        assert events[1]["registrationId"] == reg_of[winner.name], f"round {i}: approved by the loser? {events}"
        for r in set(reg_of.values()):
            registration = b.ok("admin/getRegistration", registrationId=r)
            assert registration["state"] == "active" and registration["failedAttempts"] == 0, registration
        # Later tries, from either process, find it approved.
        for lk, dev in ((a, dev_a), (b, dev_b)):
            again = lk.request("operation/approve", deviceId=dev, operationId=oid, authParameter=pin(RIGHT))
            assert error(again).get("data") == {"reason": "operationNotPending", "status": "approved"}, again
    listed = a.ok("admin/listOperations", userId=user, limit=1000)["operations"]
    assert len(listed) == ROUNDS and all(o["status"] == "approved" for o in listed), listed
    print(f"approval races won: {wins}")


# --------------------------------------------------------------------------
# b) wrong PINs from three processes at once: never past either limit
# --------------------------------------------------------------------------
PROCESSES = 3
TRIES = 3  # per process and round: 9 tries, more than either limit lets count
WRONG_ROUNDS = max(4, ROUNDS // 2)


@pytest.mark.parametrize("max_failure_count", [3, MAX_FAILED, 8],
                         ids=["operation-fails-first", "both-at-once", "registration-locks-first"])
def test_racing_wrong_pins_never_count_past_either_limit(store, max_failure_count):
    procs = store(PROCESSES)
    a = procs[0]
    user = "guesser"
    dev, reg, _ = activate(a, user, pin_code=RIGHT)
    assert a.ok("admin/getRegistration", registrationId=reg)["maxFailedAttempts"] == MAX_FAILED
    assert template(a, "pay", maxFailureCount=max_failure_count)["maxFailureCount"] == max_failure_count
    for lk in procs:
        assert lk.ok("operation/list", deviceId=dev)["operations"] == []

    M = max_failure_count
    counted = min(M, MAX_FAILED)
    operation_fails = M <= MAX_FAILED
    registration_locks = M >= MAX_FAILED
    for i in range(WRONG_ROUNDS):
        op = new_operation(procs[i % PROCESSES], user, "pay", i)
        oid = op["operationId"]
        params = {"deviceId": dev, "operationId": oid, "authParameter": pin(WRONG)}
        replies = race(interleave([[(lk, "operation/approve", params)] * TRIES for lk in procs], i))
        log = [(lk.name, r.get("error")) for lk, r in replies]
        where = f"round {i} (maxFailureCount {M}): {log}"
        assert not [r for _, r in replies if "result" in r], f"a wrong PIN approved: {where}"
        errors = [r["error"] for _, r in replies]
        codes = [e["code"] for e in errors]

        # Exactly `counted` tries counted: counted - 1 authenticationFailed, each remainingAttempts once.
        failed = [e["data"] for e in errors if e["code"] == AUTHENTICATION_FAILED]
        assert sorted(d["remainingAttempts"] for d in failed) == list(range(1, counted)), where
        assert all(d == {"reason": "authenticationFailed", "remainingAttempts": d["remainingAttempts"]} for d in failed), where
        assert DATA_MISMATCH not in codes, where
        # The failure that reaches the operation's limit fails it, once; every later try finds it failed.
        ended = [e["data"] for e in errors if e["code"] == OPERATION_FAILED]
        not_pending = [e["data"] for e in errors if e["code"] == NOT_PENDING]
        locked = [e["data"] for e in errors if e["code"] == REGISTRATION_LOCKED]
        if operation_fails:
            assert ended == [{"reason": "operationFailed", "status": "failed"}], where
            assert all(d == {"reason": "operationNotPending", "status": "failed"} for d in not_pending), where
            # The operation is checked before the registration's state: nothing says locked.
            assert not locked, where
            assert len(failed) + len(ended) + len(not_pending) == PROCESSES * TRIES, where
        else:
            # The registration locked first: the try that locked it and every later one say so;
            # the operation is still pending, so nothing says operationNotPending.
            assert not ended and not not_pending, where
            assert locked and all(d == {"reason": "registrationLocked", "remainingAttempts": 0} for d in locked), where
            assert len(failed) + len(locked) == PROCESSES * TRIES, where
        # Per process, in the order it answered: nothing counted after the end was announced.
        for lk in procs:
            mine = [r["error"]["code"] for p, r in replies if p is lk]
            if OPERATION_FAILED in mine or NOT_PENDING in mine:
                first_end = min(mine.index(c) for c in (OPERATION_FAILED, NOT_PENDING) if c in mine)
                assert set(mine[first_end + 1:]) <= {NOT_PENDING}, f"{lk.name} counted after the end: {where}"
            if REGISTRATION_LOCKED in mine:
                assert set(mine[mine.index(REGISTRATION_LOCKED):]) == {REGISTRATION_LOCKED}, f"{lk.name}: {where}"

        # What every process reads: the operation's count at its limit (never past it), ended once;
        # the registration's count moved with each counted wrong PIN, and only then.
        for lk in procs:
            stored = lk.ok("admin/getOperation", operationId=oid)
            assert stored["failureCount"] == counted <= stored["maxFailureCount"] == M, f"{lk.name} reads {stored}; {where}"
            assert stored["status"] == ("failed" if operation_fails else "pending"), stored
            assert (stored["decidedAt"] is not None) == operation_fails and stored["approvedWith"] is None, stored
            registration = lk.ok("admin/getRegistration", registrationId=reg)
            assert registration["failedAttempts"] == counted, f"{lk.name} reads {registration}; {where}"
            assert registration["state"] == ("locked" if registration_locks else "active"), registration
        events = types(operation_events(a, user, oid))
        assert events.count("operationApprovalFailed") == counted, (events, where)
        assert events.count("operationFailed") == (1 if operation_fails else 0), (events, where)
        assert "operationApproved" not in events, (events, where)

        # Even the right PIN is refused now: by the failed operation, else by the locked registration.
        right = procs[(i + 1) % PROCESSES].request("operation/approve", deviceId=dev, operationId=oid, authParameter=pin(RIGHT))
        assert error(right).get("code") == (NOT_PENDING if operation_fails else REGISTRATION_LOCKED), right
        assert a.ok("admin/getOperation", operationId=oid)["failureCount"] == counted
        # Ready for the next round: the counter back at 0.
        if registration_locks:
            a.ok("admin/unlockRegistration", registrationId=reg)
        else:
            procs[1].ok("authentication/start", deviceId=dev)
            procs[1].ok("authentication/finish", deviceId=dev, authParameter=pin(RIGHT))
        if not operation_fails:
            # The operation outlived the lock: once unlocked, the right PIN approves it, its count kept.
            approved = procs[2].ok("operation/approve", deviceId=dev, operationId=oid, authParameter=pin(RIGHT))
            assert approved["status"] == "approved" and approved["failureCount"] == counted, approved
        registration = a.ok("admin/getRegistration", registrationId=reg)
        assert registration["state"] == "active" and registration["failedAttempts"] == 0, registration
