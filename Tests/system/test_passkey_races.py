"""Two latchkey processes on one SQLite file finishing one passkey ceremony at the same time.

Issue 26: "two processes finishing one ceremony register once". A ceremony is single-use and a
credential id is unique across users (PROTOCOL.md, "Passkeys (WebAuthn)"), so:
  a) one creation ceremony finished by both processes at once registers one passkey: one
     process answers {passkey}, the other noSessionInProgress;
  b) one request ceremony finished by both at once makes one session: one {sessionId, uid},
     one noSessionInProgress;
  c) one credential id raced on two creation ceremonies of two users registers once: the loser
     answers alreadyExists (kind passkey), and exactly one of the users holds it;
  d) a cloned authenticator's two assertions with one counter value sign in once (signCount);
  e) one account-recovery code on two reset ceremonies resets once;
  f) two ceremonies for a user's 25th passkey register one (tooManyPasskeys).
Each race is repeated ROUNDS times, the two requests released together by a barrier. The
authenticator is the golden recorder's outside one (ES256, a fresh key for each credential), so
the processes share nothing but the database file. No answer may be internalError (the `spawn` fixture checks).
"""
import os
import sys
import threading
import uuid

import pytest

from lkharness import check_not_internal
from test_races import pair  # noqa: F401  (the fixture: two processes on one SQLite file)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden", "passkey"))
from webauthn_fixture import Authenticator, b64  # noqa: E402  (the golden recorder's outside authenticator)

ROUNDS = int(os.environ.get("LATCHKEY_PASSKEY_RACE_ROUNDS", "20"))
PER_USER = 20  # rounds per user: a user holds at most 25 passkeys


def new_authenticator():
    """An outside ES256 authenticator with a key and a credential id of its own (device-bound, UP and UV set)."""
    return Authenticator(uuid.uuid4().hex)


def signed_in(lk, user):
    lk.ok("admin/createUser", userId=user, email=f"{user}@example.com", password="correct horse")
    return lk.ok("user/login", userId=user, password="correct horse")["sessionId"]


OVERLAPS = {"rounds": 0, "overlapped": 0}


def race(calls):
    """calls: [(lk, method, params)]; every request is sent the moment a barrier releases all
    the threads. Returns the replies in the order of `calls`. A round counts as overlapped
    when no reply had arrived yet by the time every request had been sent (each thread looks,
    after its own send, for the others' replies); `overlap_checked` asserts on the tally."""
    barrier = threading.Barrier(len(calls), timeout=20)
    replies = [None] * len(calls)
    sent = [None] * len(calls)
    early = []  # a thread found another's reply already there after its own send
    lock = threading.Lock()
    errors = []

    def run(i, lk, method, params):
        try:
            barrier.wait()
            id_ = lk.send(method, params)
            with lock:
                sent[i] = id_
                for j, (other, _, _) in enumerate(calls):
                    if j != i and sent[j] is not None and sent[j] in other.replies:
                        early.append(j)
            replies[i] = lk.recv(id_, 20)
        except BaseException as e:  # reported in the main thread
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i, *call), daemon=True) for i, call in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
        assert not t.is_alive(), "a racing request was not answered in 30 s"
    if errors:
        raise errors[0]
    for (lk, method, _), reply in zip(calls, replies):
        check_not_internal(reply, f"{lk.name} {method}")
    OVERLAPS["rounds"] += 1
    OVERLAPS["overlapped"] += not early
    return replies


@pytest.fixture(autouse=True)
def overlap_checked():
    """A quarter of the rounds of every race test at least must have had both requests in flight
    at once (else the test raced nothing; on a loaded machine, with suites beside it, about half do)."""
    OVERLAPS.update(rounds=0, overlapped=0)
    yield
    print(f"overlapped rounds: {OVERLAPS['overlapped']}/{OVERLAPS['rounds']}")
    if OVERLAPS["rounds"] >= 4:  # a test that stopped early has failed already
        assert OVERLAPS["overlapped"] * 4 >= OVERLAPS["rounds"], OVERLAPS


def split(replies):
    """(the one success, the one refusal) of a race, or a failed assertion."""
    wins = [r for r in replies if "result" in r]
    losses = [r for r in replies if "error" in r]
    assert len(wins) == 1 and len(losses) == 1, f"expected one success and one refusal: {replies}"
    return wins[0]["result"], losses[0]["error"]


def test_one_creation_ceremony_finished_by_two_processes_registers_once(pair):
    a, b = pair
    winners = {"A": 0, "B": 0}
    registered = {}
    for i in range(ROUNDS):
        user = f"alice{i // PER_USER}"  # a user holds at most 25 passkeys
        if i % PER_USER == 0:
            session = signed_in(a, user)
            registered[session] = []
        opener = (a, b)[i % 2]
        options = opener.ok("passkey/creationOptions", sessionId=session)
        credential = new_authenticator().create(options["publicKey"])
        params = {"ceremonyId": options["ceremonyId"], "credential": credential, "friendlyName": f"round {i}"}
        replies = race([(a, "passkey/create", params), (b, "passkey/create", params)])
        won, lost = split(replies)
        assert won["passkey"]["id"] == credential["id"]
        assert lost["data"]["reason"] == "noSessionInProgress", lost
        winners["A" if "result" in replies[0] else "B"] += 1
        registered[session].append(credential["id"])
    for session, ids in registered.items():
        for lk in (a, b):
            listed = lk.ok("user/passkeys", sessionId=session)["passkeys"]
            assert [p["id"] for p in listed] == ids, f"{lk.name} lists {listed}"
    for n in range(len(registered)):
        events = a.ok("audit/list", userId=f"alice{n}", limit=100)["events"]
        assert sum(e["type"] == "passkeyCreated" for e in events) == len(list(registered.values())[n]), events
        assert not [e for e in events if e["type"] == "passkeyRejected"], events
    print(f"creation races won: {winners}")


def test_one_request_ceremony_finished_by_two_processes_signs_in_once(pair):
    a, b = pair
    session = signed_in(a, "alice")
    authenticator = new_authenticator()
    options = a.ok("passkey/creationOptions", sessionId=session)
    a.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=authenticator.create(options["publicKey"]))
    winners = {"A": 0, "B": 0}
    sessions = set()
    for i in range(ROUNDS):
        opener = (a, b)[i % 2]
        identifier = ({"email": "alice@example.com"}, {})[i % 2]  # named and discoverable
        request = opener.ok("passkey/requestOptions", **identifier)
        params = {"ceremonyId": request["ceremonyId"], "credential": authenticator.get(request["publicKey"])}
        replies = race([(a, "passkey/login", params), (b, "passkey/login", params)])
        won, lost = split(replies)
        assert won["uid"] == "alice" and won["sessionId"] not in sessions
        assert lost["data"]["reason"] == "noSessionInProgress", lost
        winners["A" if "result" in replies[0] else "B"] += 1
        sessions.add(won["sessionId"])
        # The session is real for both processes.
        for lk in (a, b):
            assert len(lk.ok("user/passkeys", sessionId=won["sessionId"])["passkeys"]) == 1
    events = a.ok("audit/list", userId="alice", limit=ROUNDS + 10)["events"]
    assert sum(e["type"] == "passkeyLogin" for e in events) == ROUNDS, events
    assert not [e for e in events if e["type"] in ("passkeyRejected", "passkeyCloneSuspected")], events
    print(f"login races won: {winners}")


def test_one_credential_raced_on_two_users_ceremonies_registers_once(pair):
    a, b = pair
    held = {}
    wins = {"alice": 0, "bob": 0}
    for i in range(ROUNDS):
        if i % PER_USER == 0:  # a user holds at most 25 passkeys
            n = i // PER_USER
            sessions = {"alice": signed_in(a, f"alice{n}"), "bob": signed_in(b, f"bob{n}")}
            held.update({sessions["alice"]: [], sessions["bob"]: []})
        authenticator = new_authenticator()
        alice_options = a.ok("passkey/creationOptions", sessionId=sessions["alice"])
        bob_options = b.ok("passkey/creationOptions", sessionId=sessions["bob"])
        alice_credential = authenticator.create(alice_options["publicKey"])
        bob_credential = authenticator.create(bob_options["publicKey"])  # the same id and key
        assert alice_credential["id"] == bob_credential["id"]
        contenders = [(a, "alice", alice_options, alice_credential), (b, "bob", bob_options, bob_credential)]
        if i % 2:
            contenders.reverse()  # the threads start in the other order
        replies = race([(lk, "passkey/create", {"ceremonyId": o["ceremonyId"], "credential": c})
                        for lk, _, o, c in contenders])
        won, lost = split(replies)
        assert won["passkey"]["id"] == alice_credential["id"]
        assert lost["data"] == {"reason": "alreadyExists", "kind": "passkey"}, lost
        winner = contenders[0 if "result" in replies[0] else 1][1]
        held[sessions[winner]].append(alice_credential["id"])
        wins[winner] += 1
    for session, ids in held.items():
        for lk in (a, b):
            assert [p["id"] for p in lk.ok("user/passkeys", sessionId=session)["passkeys"]] == ids
    print(f"credential races won: {wins}")


def test_two_ceremonies_with_one_counter_value_sign_in_once(pair):
    """A cloned authenticator: two assertions with the same counter value, each on its own
    request ceremony, finished at once by the two processes. The counter check and its update
    are one step, so exactly one signs in and the other is refused as a possible clone."""
    a, b = pair
    session = signed_in(a, "alice")
    authenticator = new_authenticator()
    options = a.ok("passkey/creationOptions", sessionId=session)
    a.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=authenticator.create(options["publicKey"]))
    winners = {"A": 0, "B": 0}
    for i in range(ROUNDS):
        requests = [lk.ok("passkey/requestOptions", email="alice@example.com") for lk in (a, b)]
        count = authenticator.count
        assertions = []
        for request in requests:
            authenticator.count = count  # both assertions carry count + 1
            assertions.append(authenticator.get(request["publicKey"]))
        calls = [(lk, "passkey/login", {"ceremonyId": r["ceremonyId"], "credential": c})
                 for lk, r, c in zip((a, b), requests, assertions)]
        if i % 2:
            calls.reverse()
        replies = race(calls)
        won, lost = split(replies)
        assert won["uid"] == "alice"
        assert lost["code"] == 1950 and lost["data"]["reason"] == "passkeyInvalid", lost
        assert lost["data"]["check"] == "signCount", lost
        winners[calls[0 if "result" in replies[0] else 1][0].name] += 1
    events = a.ok("audit/list", userId="alice", limit=3 * ROUNDS + 10)["events"]
    assert sum(e["type"] == "passkeyLogin" for e in events) == ROUNDS, events
    assert sum(e["type"] == "passkeyCloneSuspected" for e in events) == ROUNDS, events
    print(f"clone races won: {winners}")


def recovery_code(lk, user):
    lk.ok("reset/requestAccountRecovery", email=f"{user}@example.com", redirectUrl="app://recover")
    messages = lk.ok("delivery/list", to=f"{user}@example.com")["messages"]
    return [m for m in messages if m["purpose"] == "accountRecovery"][-1]["code"]


def test_one_recovery_code_raced_on_two_reset_ceremonies_resets_once(pair):
    """reset/resetPasskeys with an outside authenticator: one account-recovery code, two
    reset/passkeyCreationOptions ceremonies (one per process) and two new credentials, finished
    at once. The code is single-use, so one reset wins and the user ends with exactly its
    passkey: it signs in and lists only itself, while the old passkey (imported with the user)
    and the loser's credential are unknown. One user per round (recovery sends are
    rate-limited per identifier), with no password (hashing one costs ~0.3 s)."""
    a, b = pair
    refusals = {}
    for i in range(ROUNDS):
        user = f"rescue{i}"
        old = new_authenticator()
        a.ok("admin/createUser", userId=user, email=f"{user}@example.com",
             passkeys=[{"credentialId": b64(old.credential_id), "publicKey": b64(old.cose())}])
        code = recovery_code(a, user)
        calls, new = [], []
        for lk in (a, b):
            reset_options = lk.ok("reset/passkeyCreationOptions", email=f"{user}@example.com", verificationCode=code)
            authenticator = new_authenticator()
            new.append(authenticator)
            calls.append((lk, "reset/resetPasskeys", {
                "email": f"{user}@example.com", "verificationCode": code,
                "passkey": {"ceremonyId": reset_options["ceremonyId"],
                            "credential": authenticator.create(reset_options["publicKey"])}}))
        old.user_handle = new[0].user_handle
        if i % 2:
            calls.reverse()
            new.reverse()
        replies = race(calls)
        won, lost = split(replies)
        winner, loser = new if "result" in replies[0] else new[::-1]
        assert [p["id"] for p in won["passkeys"]] == [b64(winner.credential_id)], won
        assert lost["data"]["reason"] in ("verificationCodeInvalid", "noSessionInProgress"), lost
        refusals[lost["data"]["reason"]] = refusals.get(lost["data"]["reason"], 0) + 1
        for lk, authenticator in ((b, old), (a, loser)):
            request = lk.ok("passkey/requestOptions", email=f"{user}@example.com")
            error = lk.err("passkey/login", ceremonyId=request["ceremonyId"], credential=authenticator.get(request["publicKey"]))
            assert error["data"] == {"reason": "passkeyInvalid", "check": "credential"}, error
        for lk in (a, b):
            request = lk.ok("passkey/requestOptions", email=f"{user}@example.com")
            session = lk.ok("passkey/login", ceremonyId=request["ceremonyId"],
                            credential=winner.get(request["publicKey"]))["sessionId"]
            assert [p["id"] for p in lk.ok("user/passkeys", sessionId=session)["passkeys"]] == [b64(winner.credential_id)]
    print(f"reset race refusals: {refusals}")


def test_two_ceremonies_for_the_25th_passkey_register_one(pair):
    """A user holding 24 passkeys (imported with the user) opens two creation ceremonies, one
    per process (both allowed: 24 < 25), and both are finished at once with two credentials.
    The limit is checked with the insert, so one registers the 25th and the other answers
    policyViolation (tooManyPasskeys); the user never holds 26."""
    a, b = pair
    for i in range(ROUNDS):
        user = f"collector{i}"
        imported = [new_authenticator() for _ in range(24)]
        a.ok("admin/createUser", userId=user, email=f"{user}@example.com",
             passkeys=[{"credentialId": b64(k.credential_id), "publicKey": b64(k.cose())} for k in imported])
        request = a.ok("passkey/requestOptions", email=f"{user}@example.com")
        assertion = imported[0].get(request["publicKey"])
        del assertion["response"]["userHandle"]  # as a security key with a non-discoverable credential
        session = a.ok("passkey/login", ceremonyId=request["ceremonyId"], credential=assertion)["sessionId"]
        calls, new = [], []
        for lk in (a, b):
            options = lk.ok("passkey/creationOptions", sessionId=session)
            authenticator = new_authenticator()
            new.append(b64(authenticator.credential_id))
            calls.append((lk, "passkey/create", {"ceremonyId": options["ceremonyId"],
                                                 "credential": authenticator.create(options["publicKey"])}))
        if i % 2:
            calls.reverse()
            new.reverse()
        replies = race(calls)
        won, lost = split(replies)
        winner = new[0 if "result" in replies[0] else 1]
        assert won["passkey"]["id"] == winner
        assert lost["data"] == {"reason": "policyViolation", "violations": ["tooManyPasskeys"]}, lost
        for lk in (a, b):
            listed = [p["id"] for p in lk.ok("user/passkeys", sessionId=session)["passkeys"]]
            assert len(listed) == 25 and listed[-1] == winner, listed
