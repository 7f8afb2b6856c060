"""Round trips of write transactions on PostgreSQL (issues 28 and 36).

At --log-level trace the PostgreSQL store logs one line per transaction with the round trips it
made. Every operation states at its start what its transaction reads (a read set: rows by id,
rows by filter, rows found through a column of another row), and the store sends that set in
one round trip; the writes go with COMMIT in the second. A simulated phone states its own read
set from its deviceId: its record, its keychain, and through the registration id in the keychain
the server rows its call reads (an operation's call adds the operation). Nothing is kept from one request for the next, so a device's
first call in a process costs what its later calls cost, and two processes on one device answer
alike.
"""
import os
import re
import time

import pytest

from lkharness import activate, pin
from receivers import Receiver
from test_postgres import database  # noqa: F401  (the fixture: a fresh database, dropped after)

URI = os.environ.get("LATCHKEY_TEST_POSTGRES")

pytestmark = pytest.mark.skipif(not URI, reason="LATCHKEY_TEST_POSTGRES is not set (make test starts a private cluster)")

TRACE = re.compile(rb'attempts=(\d+) kind=write roundTrips=(\d+) ')


def write_round_trips(path, since):
    """The round trips of each write transaction logged after byte `since` of the stderr file,
    first attempts only (a transaction run again after a serialization failure pays again)."""
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


class Counted:
    """A traced process whose calls each note the round trips of the write transactions they made."""

    def __init__(self, lk, stderr):
        self.lk = lk
        self.stderr = stderr
        self.seen = []  # (method, [round trips of each write transaction])
        self.authentications = []  # [start's, finish's] round trips of each authentication

    def call(self, method, **params):
        mark = os.path.getsize(self.stderr)
        reply = self.lk.request(method, **params)
        self.lk.ok("ping")  # the call's trace lines are written before this answer
        self.seen.append((method, write_round_trips(self.stderr, mark)))
        return reply

    def ok(self, method, **params):
        reply = self.call(method, **params)
        assert "result" in reply, f"{method}: {reply}"
        return reply["result"]

    def authenticate(self, device, factor):
        """A PIN (or other factor) authentication, start and finish; notes its round trips."""
        self.ok("authentication/start", deviceId=device)
        self.ok("authentication/finish", deviceId=device, authParameter=factor)
        self.authentications.append(self.seen[-2][1] + self.seen[-1][1])


def test_an_authentication_costs_two_round_trips_a_transaction_from_the_first(spawn, database, workdir):
    lk = traced(spawn, database, workdir, "traced")
    dev, _, _ = activate(lk, "trips")
    stderr = os.path.join(workdir, "traced.stderr")
    for _ in range(3):
        mark = os.path.getsize(stderr)
        lk.ok("authentication/start", deviceId=dev)
        lk.ok("authentication/finish", deviceId=dev, authParameter=pin("1234"))
        lk.ok("ping")  # the trace lines of both calls are written before this answer
        assert write_round_trips(stderr, mark) == [2, 2], "round trips of an authentication's start and finish"


def test_a_process_that_has_not_seen_the_device_answers_the_same(spawn, database, workdir):
    a = traced(spawn, database, workdir, "a")
    b = traced(spawn, database, workdir, "b")
    dev, reg, _ = activate(a, "stale")
    a.ok("authentication/start", deviceId=dev)
    a.ok("authentication/finish", deviceId=dev, authParameter=pin("1234"))
    # b starts; a finishes b's challenge.
    started = b.ok("authentication/start", deviceId=dev)
    assert started["remainingAttemptsPIN"] == 5
    pushed = b.ok("admin/pushAuthentication", registrationId=reg, contextTitle="Pay", ttlSeconds=300)
    wrong = a.request("authentication/finish", deviceId=dev, authParameter=pin("9999"))
    assert wrong["error"]["data"]["reason"] == "authenticationFailed", wrong
    # The counted failure shows on the next start, wherever it runs, with the push picked up.
    again = a.ok("authentication/start", deviceId=dev)
    assert again["remainingAttemptsPIN"] == 4
    assert again["authenticationId"] == pushed["authenticationId"]
    done = b.ok("authentication/finish", deviceId=dev, authParameter=pin("1234"))
    assert done["responseType"] == "authenticated"
    assert b.ok("admin/getAuthentication", authenticationId=pushed["authenticationId"])["status"] == "approved"


def last_code(lk, to):
    return lk.ok("delivery/list", to=to)["messages"][-1]["code"]


def phone_flows(lk):
    """Activation, PIN authentication, a pushed one, authMethod add, recovery set and finish."""
    lk.ok("admin/configureServer", sessionLifetimeSeconds=3600)
    lk.ok("admin/createUser", userId="alice", email="alice@example.com", password="correct horse")
    code = lk.ok("admin/createActivationCode", userId="alice")["activationCode"]
    lk.ok("device/create", deviceId="d1")
    lk.ok("activation/start", deviceId="d1", activationCode=code)
    done = lk.ok("activation/finish", deviceId="d1", authParameter=pin("1234"), tokenPurpose="addOrUpdateRecovery")
    registration = done["registrationId"]
    lk.ok("recovery/startAddOrUpdate", deviceId="d1", token=done["token"])
    lk.ok("recovery/finishAddOrUpdate", deviceId="d1", recoveryParameter={"method": "backup", "recoveryCode": "correct horse battery"})
    for _ in range(2):
        lk.authenticate("d1", pin("1234"))
    lk.ok("admin/pushAuthentication", registrationId=registration, contextTitle="Pay", ttlSeconds=300)
    lk.authenticate("d1", pin("1234"))  # picks the push up
    lk.call("authentication/finish", deviceId="d1", authParameter=pin("1234"))  # no session in progress
    lk.ok("authMethod/startAddOrUpdate", deviceId="d1")
    lk.ok("authMethod/finishAddOrUpdate", deviceId="d1", activationParameter={"method": "faceId"}, authParameter=pin("1234"))
    lk.authenticate("d1", {"method": "faceId"})
    backup = lk.ok("device/backup", deviceId="d1", kind="iCloud")["backupId"]
    lk.ok("device/restore", backupId=backup, deviceId="d2")
    lk.ok("device/restore", backupId=backup)  # a drawn deviceId: checked with COMMIT
    lk.ok("device/create")
    lk.ok("recovery/start", deviceId="d2")
    lk.ok("recovery/finish", deviceId="d2", recoveryParameter={"method": "backup", "recoveryCode": "correct horse battery"},
          authParameter=pin("4321"))
    lk.authenticate("d2", pin("4321"))
    lk.ok("session/cancel", deviceId="d2")
    lk.call("authentication/start", deviceId="d1")  # the old phone: its registration was recovered away
    lk.ok("admin/lockRegistration", registrationId=registration)


def onboarding(lk):
    lk.ok("admin/createUser", userId="bob", email="bob@example.com", password="correct horse")
    lk.ok("device/create", deviceId="b1")
    lk.ok("onboarding/start", deviceId="b1", credentials={"email": "bob@example.com"}, canRestoreSession=True)
    lk.ok("onboarding/status", deviceId="b1")
    lk.call("onboarding/resendOtp", deviceId="b1")  # resendLimited: within 30 s of the first
    lk.ok("onboarding/activate", deviceId="b1", otp=last_code(lk, "bob@example.com"))
    lk.ok("activation/finish", deviceId="b1", authParameter=pin("1357"))
    lk.ok("admin/completeVerification", userId="bob", approved=True)
    lk.authenticate("b1", pin("1357"))
    lk.ok("registration/deactivate", deviceId="b1")


def users_and_passkeys(lk):
    session = lk.ok("user/login", email="alice@example.com", password="correct horse")["sessionId"]
    lk.call("user/login", email="alice@example.com", password="wrong horse")
    lk.ok("user/get", sessionId=session)
    for phone in ("p1", "p2"):
        lk.ok("device/create", deviceId=phone)
        options = lk.ok("passkey/creationOptions", sessionId=session)
        made = lk.ok("device/passkeyCreate", deviceId=phone, publicKey=options["publicKey"])["credential"]
        lk.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=made)
    for named in ({"email": "alice@example.com"}, {}):
        request = lk.ok("passkey/requestOptions", **named)
        signed = lk.ok("device/passkeyGet", deviceId="p1", publicKey=request["publicKey"])["credential"]
        signed_in = lk.ok("passkey/login", ceremonyId=request["ceremonyId"], credential=signed)
        lk.call("passkey/login", ceremonyId=request["ceremonyId"], credential=signed)  # used up
    # An operation approved by passkey (options bound to the session, the assertion to the operation).
    lk.ok("admin/configureOperationTemplate", name="byPasskey", allowedMethods=["passkey"], **TEMPLATE)
    operation = lk.ok("admin/createOperation", userId="alice", template="byPasskey", parameters=PAYMENT)["operationId"]
    options = lk.ok("operation/passkeyOptions", sessionId=session, operationId=operation)
    signed = lk.ok("device/passkeyGet", deviceId="p1", publicKey=options["publicKey"])["credential"]
    lk.ok("operation/passkeyApprove", ceremonyId=options["ceremonyId"], credential=signed)
    passkeys = lk.ok("user/passkeys", sessionId=signed_in["sessionId"])["passkeys"]
    lk.ok("passkey/remove", sessionId=session, passkeyId=passkeys[0]["id"])
    lk.ok("accountRecovery/start", sessionId=session)
    lk.ok("accountRecovery/status", sessionId=session)
    lk.ok("accountRecovery/cancel", sessionId=session)
    lk.ok("user/logout", sessionId=session)
    lk.ok("reset/requestPasswordReset", email="alice@example.com", redirectUrl="app://reset")
    lk.ok("reset/updatePassword", email="alice@example.com", verificationCode=last_code(lk, "alice@example.com"),
          password="brand new password")
    # Another user: a second code to the same address within 30 s would not be sent.
    lk.ok("admin/createUser", userId="dave", email="dave@example.com", password="correct horse")
    lk.ok("reset/requestAccountRecovery", email="dave@example.com", redirectUrl="app://recover")
    code = last_code(lk, "dave@example.com")
    lk.ok("reset/passkeyCreationOptions", email="dave@example.com", verificationCode=code)
    lk.ok("reset/resetPasskeys", email="dave@example.com", verificationCode=code, passkey={"deviceId": "p1"})
    # An identifier that names nobody reads a decoy user in its place (security property 11): in the same read set.
    lk.ok("passkey/requestOptions", email="nobody@example.com")
    lk.ok("reset/requestAccountRecovery", email="nobody@example.com", redirectUrl="app://recover")
    lk.call("reset/passkeyCreationOptions", email="nobody@example.com", verificationCode="123456")
    lk.call("reset/passkeyCreationOptions", email="nobody-at-all@example.com", verificationCode="123456")
    lk.ok("device/create", deviceId="n1")
    lk.ok("onboarding/start", deviceId="n1", credentials={"email": "nobody@example.com"})


def outside_device(lk):
    """server/: activation, then authentication challenge and verify, with keys made here."""
    from test_server_races import Key, verify_params
    lk.ok("admin/createUser", userId="carol", email="carol@example.com")
    code = lk.ok("admin/createActivationCode", userId="carol")["activationCode"]
    prepared = lk.ok("server/activation/prepare", activationCode=code, installationId="install-carol")
    keys = {"device": Key(), "pin": Key()}
    wire = {role: {"publicKey": key.public, "proof": key.sign("activate", prepared["activationId"], prepared["challenge"], role)}
            for role, key in keys.items()}
    registration = lk.ok("server/activation/commit", activationId=prepared["activationId"], keys=wire)["registrationId"]
    for _ in range(2):
        challenge = lk.ok("server/authentication/challenge", registrationId=registration)
        lk.ok("server/authentication/verify", **verify_params(registration, keys, challenge))
    lk.ok("server/registration/status", registrationId=registration)
    return registration, keys


TEMPLATE = {"title": "Pay ${amount} ${currency}", "message": "To ${iban}", "data": "A1*A${amount}${currency}*I${iban}"}
PAYMENT = {"amount": "10.00", "currency": "EUR", "iban": "CZ2730300000001165254011"}


def operations(lk, outside):
    """Operations: made from a template, listed, approved and rejected by the simulated phone,
    approved and rejected by a phone outside (server/operation/*), approved offline (the QR payload,
    the phone's code, the server's check), got, listed and cancelled."""
    lk.ok("admin/configureOperationTemplate", name="payment", **TEMPLATE)
    lk.ok("admin/createUser", userId="erin", email="erin@example.com")
    code = lk.ok("admin/createActivationCode", userId="erin")["activationCode"]
    lk.ok("device/create", deviceId="e1")
    lk.ok("activation/start", deviceId="e1", activationCode=code)
    lk.ok("activation/finish", deviceId="e1", authParameter=pin("2468"))

    def create(user):
        return lk.ok("admin/createOperation", userId=user, template="payment", parameters=PAYMENT)["operationId"]

    operation = create("erin")
    lk.ok("operation/list", deviceId="e1")
    lk.call("operation/approve", deviceId="e1", operationId=operation, authParameter=pin("1111"))  # a wrong PIN counts
    lk.ok("operation/approve", deviceId="e1", operationId=operation, authParameter=pin("2468"))
    lk.ok("operation/reject", deviceId="e1", operationId=create("erin"), reason="unknown")
    operation = create("erin")
    qr = lk.ok("admin/operationQrCode", operationId=operation)["qrPayload"]
    shown = lk.ok("operation/offlineApprove", deviceId="e1", qrPayload=qr, authParameter=pin("2468"))["code"]
    lk.call("admin/verifyOfflineOperation", operationId=operation, code="00000000-00000000")  # wrong: counts on the operation
    lk.ok("admin/verifyOfflineOperation", operationId=operation, code=shown)
    lk.ok("admin/getOperation", operationId=operation)
    lk.ok("admin/cancelOperation", operationId=create("erin"))
    lk.ok("admin/listOperations", userId="erin")

    registration, keys = outside
    for decision in ("approve", "reject"):
        operation = create("carol")
        lk.ok("server/operation/list", registrationId=registration)
        challenge = lk.ok("server/operation/challenge", registrationId=registration, operationId=operation)
        digest = challenge["operationHash"]
        params = {"registrationId": registration, "challengeId": challenge["challengeId"], "operationId": operation, "operationHash": digest}
        if decision == "approve":
            signatures = {role: key.sign("approveOperation", registration, challenge["challenge"], role, digest) for role, key in keys.items()}
            lk.ok("server/operation/approve", signatures=signatures, **params)
        else:
            device = keys["device"].sign("rejectOperation", registration, challenge["challenge"], "device", "unknown:" + digest)
            lk.ok("server/operation/reject", reason="unknown", signatures={"device": device}, **params)


def callback(lk, receiver):
    """A callback configured, then replaced: the operations' changes are written as its events, in
    the round trip of COMMIT, and the process's worker fans them out, claims and records their
    deliveries to a receiver on loopback."""
    made = lk.ok("admin/configureCallback", url=receiver.url("/first"), events=["operation.statusChanged"])["callbackId"]
    lk.ok("admin/configureCallback", callbackId=made, url=receiver.url(), events=["operation.statusChanged", "registration.stateChanged"])
    return made


def callback_removed(lk, receiver, made):
    receiver.wait_count(10, timeout=30)
    for _ in range(100):  # the worker records what ended within moments
        if not [d for d in lk.ok("admin/listCallbackDeliveries", callbackId=made)["deliveries"] if d["status"] == "pending"]:
            break
        time.sleep(0.05)
    lk.ok("admin/listCallbacks")
    lk.ok("admin/removeCallback", callbackId=made)


def test_no_write_transaction_makes_more_than_two_round_trips(spawn, database, workdir):
    """A walk through every family that writes: no write transaction's first attempt makes more
    than two round trips (its reads, then its writes with COMMIT), the callback worker's included,
    but a named passkey sign-in's options three, a reset code's check four, and a PIN authentication four (two of two)."""
    lk = Counted(traced(spawn, database, workdir, "walk"), os.path.join(workdir, "walk.stderr"))
    receiver = Receiver()
    try:
        phone_flows(lk)
        onboarding(lk)
        users_and_passkeys(lk)
        outside = outside_device(lk)
        made = callback(lk, receiver)
        operations(lk, outside)
        callback_removed(lk, receiver, made)
    finally:
        receiver.close()
        report = os.environ.get("LATCHKEY_ROUND_TRIPS_REPORT")  # each call's write transactions, for a note
        if report:
            with open(report, "w") as f:
                f.writelines(f"{method} {' '.join(map(str, trips))}\n" for method, trips in lk.seen)
    assert lk.authentications and all(trips == [2, 2] for trips in lk.authentications), lk.authentications
    # Security property 11 (bench/enumeration.py with ENUM_STORE=postgres tells a row more apart). Options for a named passkey
    # sign-in read the passkeys of whomever the lookup found, the decoy user's for an identifier that names no one, once it has
    # answered: three round trips. A reset code's check reads the user's code once the lookup has answered, and the user's sessions,
    # passkeys and account recovery once the code has proved right (the decoy's, read before, could be a caller's own heavy
    # account): four when it is right, three when not.
    most = {"passkey/requestOptions": 3, "reset/updatePassword": 4, "reset/passkeyCreationOptions": 4, "reset/resetPasskeys": 4}
    over = [(method, trips) for method, trips in lk.seen if any(t > most.get(method, 2) for t in trips)]
    assert not over, f"write transactions over their round trips: {over}"
    # Every write transaction the process logged, between calls too (the worker's own thread): over two only for the calls above.
    everything = write_round_trips(lk.stderr, 0)
    assert everything and max(everything) <= 4, sorted(everything)[-5:]
    assert sum(t > 2 for t in everything) == sum(t > 2 for _, trips in lk.seen for t in trips), "a transaction outside the calls made more"
    families = {method.split("/")[0] for method, trips in lk.seen if trips}
    assert {"activation", "authentication", "authMethod", "recovery", "onboarding", "user", "passkey", "reset", "server",
            "operation"} <= families
    assert {"admin/createOperation", "server/operation/approve", "operation/approve", "admin/verifyOfflineOperation",
            "operation/passkeyApprove", "admin/configureCallback"} <= {method for method, trips in lk.seen if trips}


SHAPE = re.compile(rb'attempts=1 kind=(\w+) roundTrips=(\d+) rows=(\d+) statements=(\d+) ')


def transaction_shapes(path, since):
    """(kind, round trips, rows answered, statements) of each transaction's first attempt logged after byte `since`."""
    with open(path, "rb") as f:
        f.seek(since)
        return [tuple(m.groups()) for m in map(SHAPE.search, f.read().splitlines()) if m]


def shaped(lk, stderr, method, **params):
    """One call's reply, and the shapes of the transactions logged in its window (`transaction_shapes`)."""
    mark = os.path.getsize(stderr)
    reply = lk.request(method, **params)
    lk.ok("ping")  # the call's trace lines are written before this answer
    return reply, transaction_shapes(stderr, mark)


def user_with_passkeys(lk, name, count):
    """A user `name` (email `name@example.com`) with `count` passkeys, each made by a simulated phone of its own."""
    lk.ok("admin/createUser", userId=name, email=f"{name}@example.com", password="correct horse")
    if not count:
        return
    session = lk.ok("user/login", email=f"{name}@example.com", password="correct horse")["sessionId"]
    for n in range(count):
        lk.ok("device/create", deviceId=f"{name}-phone-{n}")
        options = lk.ok("passkey/creationOptions", sessionId=session)
        made = lk.ok("device/passkeyCreate", deviceId=f"{name}-phone-{n}", publicKey=options["publicKey"])["credential"]
        lk.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=made)


def alike(measure, tries=3):
    """`measure(attempt)` -> (known, unknown) shapes, equal within `tries`: a process on a shared store looks for other processes'
    work every 2 s (a read transaction of its own, logged in whichever call's window it falls), which a second pair escapes; an
    imbalance of the calls' own is there every time."""
    for attempt in range(tries):
        known, unknown = measure(attempt)
        assert known[1], known
        if known == unknown:
            return
    assert known == unknown, (known, unknown)


def test_an_identifier_that_names_no_one_is_read_as_one_that_names_someone(spawn, database, workdir):
    """Security property 11 on PostgreSQL: where an unknown identifier gets the answer a known one gets, each transaction makes as
    many round trips and statements and is answered as many rows either way. (A read set that named the decoy user beside the
    lookup had a known identifier's transaction answered a row more, its user's, which the rank-sum test told apart: z of 5 to 14
    over 300 calls in bench/enumeration.py with ENUM_STORE=postgres; a withheld message journaled nothing where a sent one wrote
    the outbox.)"""
    lk = traced(spawn, database, workdir, "alike")
    stderr = os.path.join(workdir, "alike.stderr")
    for n in range(72):  # four for each case below, each tried up to three times: a reset code is sent once in 30 s to each identifier
        user_with_passkeys(lk, f"u{n}", 1 if n < 12 else 0)  # a passkey for those the first case may take

    def shape(method, **params):
        reply, shapes = shaped(lk, stderr, method, **params)
        return reply.get("error", {}).get("data"), shapes

    def onboarding(email):
        device = f"d-{email}"
        lk.ok("device/create", deviceId=device)
        return {"deviceId": device, "credentials": {"email": email}}

    def wrong_code(email, asked=True):
        if asked:  # a code pending: the user's, or the identifier's that names no one
            lk.ok("reset/requestAccountRecovery", email=email, redirectUrl="app://recover")
        return {"email": email, "verificationCode": "000000"}

    cases = [
        ("passkey/requestOptions", lambda email: {"email": email}),
        ("reset/passkeyCreationOptions", wrong_code),
        ("reset/passkeyCreationOptions", lambda email: wrong_code(email, asked=False)),
        ("reset/requestAccountRecovery", lambda email: {"email": email, "redirectUrl": "app://recover"}),
        ("reset/requestPasswordReset", lambda email: {"email": email, "redirectUrl": "app://reset"}),
        ("onboarding/start", onboarding),
    ]
    fresh = iter(range(72))
    for method, params in cases:
        for _ in range(4):  # the decoy user of each unknown call is the user the call before it found
            def pair(attempt):
                n = next(fresh)
                return shape(method, **params(f"u{n}@example.com")), shape(method, **params(f"nobody{n}@example.com"))
            alike(pair)


def test_a_code_check_reads_nothing_of_the_decoy_user_a_caller_can_make_heavy(spawn, database, workdir):
    """The decoy user an unknown identifier's check stands in with is whoever the process found last: a caller's own account, made
    the decoy by a lookup just before. A check that read the stand-in's sessions before the code proved right answered an unknown
    identifier every one of them (a caller logged in a thousand times made it a thousand rows, ten times a known one's time)."""
    lk = traced(spawn, database, workdir, "heavy")
    stderr = os.path.join(workdir, "heavy.stderr")
    lk.ok("admin/createUser", userId="caller", email="caller@example.com", password="correct horse")
    lk.ok("admin/createUser", userId="someone", email="someone@example.com", password="correct horse")
    for _ in range(20):
        lk.ok("user/login", email="caller@example.com", password="correct horse")

    def check(email):
        lk.ok("passkey/requestOptions", email="caller@example.com")  # the caller's own account is the decoy now
        reply, shapes = shaped(lk, stderr, "reset/passkeyCreationOptions", email=email, verificationCode="000000")
        return reply["error"]["data"], shapes

    for n in range(3):
        alike(lambda attempt: (check("someone@example.com"), check(f"nobody{n}-{attempt}@example.com")))


def test_sign_in_options_read_one_passkey_of_the_decoy_user_a_caller_can_make_heavy(spawn, database, workdir):
    """Options for an identifier that names no one read the decoy user's passkeys in place of a user's. The decoy is whoever the
    process found last, a caller's own account made the decoy by a lookup just before: read whole, its passkeys (up to 25) made
    an unknown identifier's options cost what that account holds. Its first passkey only is read."""
    lk = traced(spawn, database, workdir, "heavy-passkeys")
    stderr = os.path.join(workdir, "heavy-passkeys.stderr")

    user_with_passkeys(lk, "caller", 6)
    user_with_passkeys(lk, "someone", 1)

    def options(email):
        lk.ok("passkey/requestOptions", email="caller@example.com")  # the caller's own account is the decoy now
        reply, shapes = shaped(lk, stderr, "passkey/requestOptions", email=email)
        return len(reply["result"]["publicKey"]["allowCredentials"]), shapes

    for n in range(3):
        alike(lambda attempt: (options("someone@example.com"), options(f"nobody{n}-{attempt}@example.com")))
