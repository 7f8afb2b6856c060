"""Four latchkey processes on one PostgreSQL database (issue 18).

The database is the private cluster `make test` starts (Tests/pg/cluster.sh): its URI in
LATCHKEY_TEST_POSTGRES, its directory in LATCHKEY_PG_CLUSTER. Without them these tests skip
with a message. Each test works in a fresh database of that cluster.

Covered: wrong PINs from four processes never count past the limit; four processes racing
one token use it once; kill -9 mid-run loses nothing acknowledged; the database restarting
mid-run answers storeUnavailable (ping, rpc.discover, clock/now keep answering) and then
recovers with no restart of latchkey; a subscriber in one process hears another process's
state change, and a time-driven change exactly once though four idle processes race for it;
a subscriber hears what committed while its connection was cut or the server restarted.
"""
import os
import select
import socket
import subprocess
import urllib.parse
import threading
import time
import uuid

import pytest

from lkharness import activate, check_not_internal, loopback_listener, pin, reason
from test_races import run_threads

URI = os.environ.get("LATCHKEY_TEST_POSTGRES")
CLUSTER = os.environ.get("LATCHKEY_PG_CLUSTER")
CLUSTER_SH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pg", "cluster.sh")
MAX_FAILED = 5
PROCESSES = 4

pytestmark = pytest.mark.skipif(not URI, reason="LATCHKEY_TEST_POSTGRES is not set (make test starts a private cluster)")


def psql(sql, uri=None):
    return subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", uri or URI, "-c", sql],
                          check=True, capture_output=True, text=True).stdout.strip()


def with_database(uri, name):
    """The URI with its database name replaced."""
    parts = urllib.parse.urlsplit(uri)
    # urlunsplit drops the "//" of an empty host (postgresql:///db?host=/socket/dir).
    return f"{parts.scheme}://{parts.netloc}/{name}" + (f"?{parts.query}" if parts.query else "")


@pytest.fixture
def database():
    """A fresh database on the server (the role needs CREATEDB); its URI."""
    name = "lk_" + uuid.uuid4().hex[:12]
    psql(f"CREATE DATABASE {name}")
    yield with_database(URI, name)
    psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
def group(spawn, database, workdir):
    """Four processes on the database, one key file."""
    key_file = os.path.join(workdir, "latchkey.key")

    def start(n=PROCESSES, first=0):
        procs = [spawn("--db", database, "--key-file", key_file, name=f"P{first + i}") for i in range(n)]
        for lk in procs:
            lk.ok("ping")
        return procs
    start.key_file = key_file
    start.database = database
    return start


def test_the_key_file_is_made_with_mode_0600_and_the_store_reports_postgresql(group):
    a, = group(1)
    assert a.ok("server/info")["store"] == "postgresql"
    activate(a, "key-owner")
    assert os.stat(group.key_file).st_mode & 0o777 == 0o600
    assert os.path.getsize(group.key_file) == 32
    key = open(group.key_file, "rb").read()
    # The key is nowhere in the database.
    dump = subprocess.run(["pg_dump", "--data-only", group.database], check=True, capture_output=True).stdout
    assert key not in dump and key.hex().encode() not in dump


def test_a_process_given_another_key_file_is_refused_not_served_beside_the_others(group, spawn, workdir):
    """Every process of a deployment gets a copy of the same key file; one given another (a copy missing, so a new key was made)
    would hash codes and seal secrets under a key no other process has. The database remembers which key it was first used
    with (an HMAC, never the key): the odd process answers storeUnavailable and says why on stderr; the others serve on."""
    a, = group(1)
    _, registration, _ = activate(a, "kept")
    stray = spawn("--db", group.database, "--key-file", os.path.join(workdir, "elsewhere.key"), name="stray")
    error = stray.err("admin/getRegistration", registrationId=registration)
    assert error["data"]["reason"] == "storeUnavailable", error
    assert b"first used with" in stray.stderr_bytes()
    assert a.ok("admin/getRegistration", registrationId=registration)["state"] == "active"
    # Refused for good, said once: the next call answers at once and logs nothing more.
    assert stray.err("admin/getRegistration", registrationId=registration)["data"]["reason"] == "storeUnavailable"
    assert stray.stderr_bytes().count(b"first used with") == 1
    # A database written before the check was kept (an upgrade): the first process to open it proves its key on the sealed server
    # keys before recording it, so a stray one cannot make everyone else's key the wrong one.
    psql("DELETE FROM store_key", uri=group.database)
    upgraded = spawn("--db", group.database, "--key-file", os.path.join(workdir, "another.key"), name="upgraded")
    assert upgraded.err("admin/getRegistration", registrationId=registration)["data"]["reason"] == "storeUnavailable"
    assert psql("SELECT count(*) FROM store_key", uri=group.database) == "0"
    rightful, = group(1, first=1)
    assert rightful.ok("admin/getRegistration", registrationId=registration)["state"] == "active"
    assert psql("SELECT count(*) FROM store_key", uri=group.database) == "1"


def test_wrong_pins_from_four_processes_never_count_past_the_limit(group):
    procs = group()
    dev, reg, _ = activate(procs[0], "pin-racer")
    barrier = threading.Barrier(len(procs), timeout=20)
    failed = []
    lock = threading.Lock()

    def hammer(lk):
        barrier.wait()
        locked = 0
        for _ in range(200):
            s = lk.request("authentication/start", deviceId=dev)
            check_not_internal(s, lk.name)
            if reason(s) == "registrationLocked":
                locked += 1
                if locked >= 2:
                    return
                continue
            assert reason(s) == "ok", s
            f = lk.request("authentication/finish", deviceId=dev, authParameter=pin("9999"))
            check_not_internal(f, lk.name)
            r = reason(f)
            assert r in ("authenticationFailed", "registrationLocked", "noSessionInProgress"), f
            if r == "authenticationFailed":
                with lock:
                    failed.append(f["error"]["data"]["remainingAttempts"])
            if r == "registrationLocked":
                locked += 1
                if locked >= 2:
                    return
        raise AssertionError(f"{lk.name}: never locked")

    run_threads(*[(lambda lk=lk: hammer(lk)) for lk in procs])
    assert sorted(failed) == list(range(1, MAX_FAILED)), failed
    for lk in procs:
        r = lk.ok("admin/getRegistration", registrationId=reg)
        assert r["state"] == "locked" and r["failedAttempts"] == MAX_FAILED, r


def test_four_processes_racing_one_token_use_it_once(group):
    procs = group()
    dev, _, _ = activate(procs[0], "token-racer")
    for round_ in range(6):
        procs[0].ok("authentication/start", deviceId=dev)
        token = procs[0].ok("authentication/finish", deviceId=dev, authParameter=pin("1234"),
                            tokenPurpose="addOrUpdateRecovery")["token"]
        order = procs[round_ % PROCESSES:] + procs[:round_ % PROCESSES]
        ids = [(lk, lk.send("recovery/startAddOrUpdate", {"deviceId": dev, "token": token})) for lk in order]
        answers = [reason(lk.recv(i, 30)) for lk, i in ids]
        assert sorted(answers) == ["ok"] + ["tokenInvalid"] * (PROCESSES - 1), answers


def test_kill_9_mid_run_loses_nothing_acknowledged(group):
    procs = group()
    acknowledged = []
    lock = threading.Lock()
    stop = threading.Event()

    def pump(lk, prefix):
        n = 0
        try:
            while not stop.is_set():
                user = f"{prefix}-{n:05d}"
                reply = lk.recv(lk.send("admin/createUser", {"userId": user}), timeout=30)
                if "result" in reply:
                    with lock:
                        acknowledged.append(user)
                n += 1
        except Exception:
            pass  # the process was killed under it

    threads = [threading.Thread(target=pump, args=(lk, f"kill-{lk.name}"), daemon=True) for lk in procs]
    for t in threads:
        t.start()
    time.sleep(1.0)
    procs[1].p.kill()
    procs[2].p.kill()
    time.sleep(1.0)
    stop.set()
    for t in threads:
        t.join(30)
    survivor = procs[0]
    assert len(acknowledged) > 20
    for user in acknowledged:
        assert reason(survivor.request("admin/createUser", userId=user)) == "alreadyExists", user
    # Nothing half-written: every user row is whole.
    assert psql('SELECT count(*) FROM "user" WHERE "createdAt" IS NULL', group.database) == "0"


@pytest.mark.cluster
def test_a_database_restart_answers_store_unavailable_then_recovers(group):
    if not CLUSTER:
        pytest.skip("LATCHKEY_PG_CLUSTER is not set")
    a, b = group(2)
    dev, _, _ = activate(a, "restart-survivor")
    subprocess.run(["bash", CLUSTER_SH, "pause", CLUSTER], check=True)
    try:
        r = a.request("authentication/start", deviceId=dev)
        assert r.get("error", {}).get("code") == 1005, r
        assert r["error"]["data"]["reason"] == "storeUnavailable"
        assert r["error"]["data"]["retryAfterSeconds"] >= 1
        r = b.request("admin/createUser", userId="while-down")
        assert r.get("error", {}).get("code") == 1005, r
        for lk in (a, b):
            assert "result" in lk.request("ping")
            assert "result" in lk.request("clock/now")
            assert "result" in lk.request("rpc.discover")
    finally:
        subprocess.run(["bash", CLUSTER_SH, "resume", CLUSTER], check=True)
    deadline = time.time() + 20
    while True:
        r = a.request("authentication/start", deviceId=dev)
        if "result" in r or time.time() > deadline:
            break
        assert r["error"]["code"] == 1005, r
        time.sleep(0.3)
    assert "result" in r, r
    assert reason(a.request("authentication/finish", deviceId=dev, authParameter=pin("1234"))) == "ok"
    # Nothing from the outage was half-done: the refused user does not exist.
    assert "result" in b.request("admin/createUser", userId="while-down")


def wait_for(lk, predicate, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        with lk._cond:
            found = [n for n in lk.notifications if predicate(n)]
        if found:
            return found
        time.sleep(0.05)
    return []


def recovery_changes(lk, uid, state):
    with lk._cond:
        return [n for n in lk.notifications if n.get("method") == "accountRecovery/stateChanged"
                and n["params"]["uid"] == uid and n["params"]["accountRecovery"]["state"] == state]


def test_a_subscriber_hears_another_process_and_a_time_driven_change_once(group):
    a, = group(1)
    a.ok("admin/configureServer", gracePeriodSeconds=2, insecureWindowSeconds=3600)
    a.ok("admin/createUser", userId="sam", email="sam@example.com", password="password1")
    session = a.ok("user/login", userId="sam", password="password1")["sessionId"]
    others = group(PROCESSES - 1, first=1)
    everyone = [a] + others
    for lk in everyone:
        lk.ok("events/subscribe", topics=["accountRecovery"])
    started = a.ok("accountRecovery/start", sessionId=session)["accountRecovery"]
    assert started["state"] == 1
    # Another process's state change reaches every subscriber, once.
    for lk in others:
        assert wait_for(lk, lambda n: n.get("method") == "accountRecovery/stateChanged", 5), f"{lk.name} heard nothing"
    # Every process now knows when the grace period ends (a store call reads it) and idles.
    for lk in others:
        lk.ok("accountRecovery/status", sessionId=session)
    time.sleep(4.5)  # the grace period (2 s) ends while all four idle
    for lk in everyone:
        assert len(recovery_changes(lk, "sam", 1)) == 1, (lk.name, lk.notifications)
        assert len(recovery_changes(lk, "sam", 3)) == 1, (lk.name, lk.notifications)
    # The audit trail holds the transition once.
    assert int(psql("SELECT count(*) FROM account_recovery WHERE state = 3", group.database)) == 1


def test_notifications_in_the_database_are_sealed(group):
    """NOTIFY payloads are visible to any database user: a one-time code must not show."""
    a, = group(1)
    listener = subprocess.Popen(["psql", "-X", "-q", group.database], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    listener.stdin.write("LISTEN latchkey;\nSELECT 'listening';\n")
    listener.stdin.flush()
    seen = ""
    while "listening" not in seen:  # the LISTEN has run once the query after it answers
        line = listener.stdout.readline()
        assert line, f"psql ended before listening: {seen}"
        seen += line
    a.ok("admin/createUser", userId="olivia", email="olivia@example.com")
    code = a.ok("admin/createActivationCode", userId="olivia")["activationCode"]
    time.sleep(0.3)
    listener.stdin.write("SELECT 1;\n\\q\n")
    listener.stdin.flush()
    out, _ = listener.communicate(timeout=10)
    assert "Asynchronous notification" in out, out
    assert code not in out and "olivia" not in out, out


@pytest.mark.cluster
def test_connections_cut_mid_run_leave_nothing_half_written(group):
    """The server ends every latchkey connection, again and again, while four processes write:
    every answer is a success or storeUnavailable, each process reconnects by itself, and every
    acknowledged write is there."""
    procs = group()
    acknowledged, refused = [], []
    lock = threading.Lock()
    stop = threading.Event()

    def pump(lk):
        n = 0
        while not stop.is_set():
            user = f"cut-{lk.name}-{n:05d}"
            reply = lk.recv(lk.send("admin/createUser", {"userId": user}), timeout=30)
            check_not_internal(reply, lk.name)
            with lock:
                if "result" in reply:
                    acknowledged.append(user)
                else:
                    assert reply["error"]["code"] == 1005, reply
                    refused.append(user)
            n += 1

    threads = [threading.Thread(target=pump, args=(lk,), daemon=True) for lk in procs]
    for t in threads:
        t.start()
    for _ in range(8):
        time.sleep(0.25)
        psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
             "WHERE application_name LIKE 'latchkey%' AND pid <> pg_backend_pid()")
    time.sleep(0.5)
    stop.set()
    for t in threads:
        t.join(30)
    assert len(acknowledged) > 20
    for user in acknowledged:
        assert reason(procs[0].request("admin/createUser", userId=user)) == "alreadyExists", user
    for user in refused:
        assert "result" in procs[1].request("admin/createUser", userId=user), user


class SilentRelay:
    """A TCP relay on 127.0.0.1 to the cluster's Unix socket that can fall silent: `silence()` keeps every connection open but
    passes no byte either way (a hung server, or one cut off by the network without a word: the socket never closes)."""

    def __init__(self, unix_path):
        self.unix_path = unix_path
        self.silent = threading.Event()
        self.listener = loopback_listener(self._relay)
        self.port = self.listener.getsockname()[1]
        self.sockets = [self.listener]

    def _relay(self, client):
        server = socket.socket(socket.AF_UNIX)
        self.sockets += [client, server]
        try:
            server.connect(self.unix_path)
            while True:
                if self.silent.is_set():
                    time.sleep(0.1)
                    continue
                ready, _, _ = select.select([client, server], [], [], 0.1)
                for end in ready:
                    data = end.recv(65536)
                    if not data:
                        return
                    (server if end is client else client).sendall(data)
        except OSError:
            return

    def close(self):
        for end in self.sockets:
            end.close()


def test_a_server_that_falls_silent_on_an_open_connection_is_store_unavailable_in_bounded_time(database, spawn, workdir):
    """An open connection whose server stops answering without closing it used to hold the call, and every call behind it,
    for ever: the answer is waited for 15 s, then the connection is given up, a new one tried (3 s), and the call answers
    storeUnavailable with nothing written; the process keeps serving and recovers by itself."""
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(URI).query)
    relay = SilentRelay(os.path.join(query["host"][0], ".s.PGSQL.5432"))
    try:
        name = urllib.parse.urlsplit(database).path.lstrip("/")
        lk = spawn("--db", f"postgresql://postgres@127.0.0.1:{relay.port}/{name}", "--key-file", os.path.join(workdir, "k"))
        assert "result" in lk.request("admin/createUser", userId="before")
        relay.silent.set()
        started = time.monotonic()
        reply = lk.recv(lk.send("admin/createUser", {"userId": "during"}), timeout=60)
        waited = time.monotonic() - started
        assert reason(reply) == "storeUnavailable", reply
        assert 14 < waited < 25, waited
        assert "result" in lk.request("ping")
        relay.silent.clear()
        deadline = time.monotonic() + 10
        while reason(reply := lk.request("admin/createUser", userId="during")) == "storeUnavailable" and time.monotonic() < deadline:
            time.sleep(0.2)
        assert "result" in reply, reply
        assert reason(lk.request("admin/createUser", userId="before")) == "alreadyExists"
    finally:
        relay.close()


def test_a_lock_held_past_the_lock_timeout_is_store_unavailable_at_10_s_and_the_next_call_succeeds(group):
    """Every connection waits 10 s at most for a lock (lock_timeout), below the 15 s an answer is waited for: a lock held
    longer is the server's own refusal, storeUnavailable with nothing written, and no session is left waiting to commit."""
    lk, = group(1)
    assert reason(lk.request("admin/createUser", userId="before-the-lock")) == "ok"  # the store opened, before the lock
    writers = 0x6C61_7463_686B_6577  # PostgresStore.writerLockKey: every write takes it shared
    holder = subprocess.Popen(["psql", "-X", "-q", group.database], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        holder.stdin.write(f"SELECT pg_advisory_lock({writers});\n\\echo held\n")
        holder.stdin.flush()
        while holder.stdout.readline().strip() != "held":
            pass
        started = time.monotonic()
        reply = lk.recv(lk.send("admin/createUser", {"userId": "behind-the-lock"}), timeout=40)
        assert reason(reply) == "storeUnavailable", reply
        # 10 s, or twice that when the process's idle look at due work queued behind the lock first; never the 15 s deadline.
        waited = time.monotonic() - started
        assert 9 < waited < 14 or 19 < waited < 22, waited
        waiting = psql("SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'latchkey %' AND wait_event_type = 'Lock'",
                       group.database)
        assert waiting == "0"
    finally:
        holder.communicate(f"SELECT pg_advisory_unlock_all();\n", timeout=10)
    assert reason(lk.request("admin/createUser", userId="behind-the-lock")) == "ok"


def test_the_database_holds_no_secret_in_clear(group):
    """Security property 1 on PostgreSQL: after PINs (right and wrong), a recovery code, a
    token, an activation code, a password, a session and a reset code have passed through,
    a dump of the database holds none of them, in clear or in an obvious encoding."""
    from test_secrets import INPUT, ISSUED, ONE_TIME, Secret, find_secrets

    a, = group(1)
    secrets = []
    pin_code, wrong_pin = "73915408", "26048137"
    secrets += [Secret("pin", pin_code, INPUT), Secret("wrongPin", wrong_pin, INPUT)]
    a.ok("admin/createUser", userId="sam", email="sam@example.com", password="Pw-correct-horse-91")
    secrets.append(Secret("password", "Pw-correct-horse-91", INPUT))
    code = a.ok("admin/createActivationCode", userId="sam")["activationCode"]
    secrets.append(Secret("activationCode", code, ISSUED))
    dev = a.ok("device/create")["deviceId"]
    a.ok("activation/start", deviceId=dev, activationCode=code)
    token = a.ok("activation/finish", deviceId=dev, authParameter=pin(pin_code), tokenPurpose="addOrUpdateRecovery")["token"]
    secrets.append(Secret("token", token, ISSUED))
    a.ok("authentication/start", deviceId=dev)
    assert reason(a.request("authentication/finish", deviceId=dev, authParameter=pin(wrong_pin))) == "authenticationFailed"
    recovery_code = "My-Own-Recovery-Code-42"
    secrets.append(Secret("recoveryCode", recovery_code, INPUT))
    a.ok("recovery/startAddOrUpdate", deviceId=dev, token=token)
    a.ok("recovery/finishAddOrUpdate", deviceId=dev, recoveryParameter={"method": "backup", "recoveryCode": recovery_code})
    session = a.ok("user/login", email="sam@example.com", password="Pw-correct-horse-91")["sessionId"]
    secrets.append(Secret("sessionId", session, ISSUED))
    a.ok("reset/requestPasswordReset", email="sam@example.com", redirectUrl="app://reset")
    reset_code = [m for m in a.ok("delivery/list", to="sam@example.com")["messages"] if m["purpose"] == "passwordReset"][-1]["code"]
    secrets.append(Secret("resetCode", reset_code, ONE_TIME))
    a.ok("reset/updatePassword", email="sam@example.com", verificationCode=reset_code, password="Pw-new-battery-staple-7")
    secrets.append(Secret("newPassword", "Pw-new-battery-staple-7", INPUT))

    dump = subprocess.run(["pg_dump", "--data-only", group.database], check=True, capture_output=True).stdout
    assert b"COPY public.registration" in dump or b"registration" in dump, "the dump holds no registration: wrong database?"
    leaks = find_secrets(dump, secrets)
    assert not leaks, "the database holds secrets: " + ", ".join(f"{s[0]} as {s[2]!r}" for s in leaks)


@pytest.mark.cluster
def test_a_subscriber_hears_what_committed_while_it_had_no_connection_once_in_commit_order(group):
    """Issue 28: a subscriber's listening connection is cut again and again, then the server
    restarts, while another process creates users: the subscriber hears every creation once,
    in the order they committed (one process's calls commit one after another)."""
    a, b = group(2)
    b.ok("events/subscribe", topics=["audit"])
    created = []
    stop = threading.Event()

    def cut():
        while not stop.is_set():
            psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'latchkey-listen'")
            time.sleep(0.15)

    cutter = threading.Thread(target=cut, daemon=True)
    cutter.start()
    for i in range(60):
        a.ok("admin/createUser", userId=f"heard-{i:03d}")
        created.append(f"heard-{i:03d}")
    stop.set()
    cutter.join(10)
    if CLUSTER:
        subprocess.run(["bash", CLUSTER_SH, "pause", CLUSTER], check=True)
        subprocess.run(["bash", CLUSTER_SH, "resume", CLUSTER], check=True)
        # Committed before the subscriber's process has connected again.
        for i in range(60, 70):
            deadline = time.time() + 10
            while reason(a.request("admin/createUser", userId=f"heard-{i:03d}")) == "storeUnavailable" and time.time() < deadline:
                time.sleep(0.1)
            created.append(f"heard-{i:03d}")

    def heard():
        return [n["params"]["event"]["userId"] for n in b.notifications
                if n.get("method") == "audit/event" and n["params"]["event"]["type"] == "userCreated"]

    deadline = time.time() + 10
    while len(heard()) < len(created) and time.time() < deadline:
        time.sleep(0.1)
    time.sleep(1.2)  # a second read finds nothing more
    assert heard() == created
    # The subscriber's cursor is recorded, for pruning.
    assert int(psql("SELECT count(*) FROM latchkey_outbox_reader", group.database)) >= 1


def test_an_idle_process_whose_database_refuses_it_tries_again_later_and_later_and_says_so_once(spawn, workdir):
    """An idle PostgreSQL process opens the store by itself to look for other processes' work (a process restarted after a
    crash takes over its deliveries with no call). A store that cannot be opened is tried again 20 s later, then 40, then every
    60 s, and said once; what needs no store is answered at once meanwhile."""
    lk = spawn("--db", "postgresql://latchkey@127.0.0.1:1/nowhere", "--key-file", os.path.join(workdir, "refused.key"),
               name="refused")
    lk.ok("ping")  # untimed: the process has started (and made its key file)
    started = time.monotonic()
    while time.monotonic() - started < 12:  # a look every 2 s would have said it six times
        asked = time.monotonic()
        lk.ok("ping")
        assert time.monotonic() - asked < 1
        time.sleep(0.5)  # the caller's pace, not a wait for a condition
    assert lk.stderr_bytes().count(b"cannot open the store") == 1
    assert lk.err("admin/listCallbacks")["data"]["reason"] == "storeUnavailable"
    assert lk.stderr_bytes().count(b"cannot open the store") == 2  # a call that needs the store says why, each time


def test_identifiers_of_any_length_the_contract_takes_are_kept_and_a_longer_one_is_named(group, spawn):
    """PostgreSQL bounds an index entry at about 2 700 bytes: an id past it answered internalError there, and was kept on SQLite.
    Ids are 1 to 256 characters on every store; the longest, of 4-byte characters, in an index two ids share, works."""
    longest = "\U0001F600" * 256  # 1 024 bytes
    for lk in (group(1)[0], spawn("--in-memory")):
        lk.ok("admin/configureApplication", applicationId=longest)
        lk.ok("admin/createUser", userId=longest, loginName=longest)
        lk.ok("admin/configureOperationTemplate", name="pay", title="Pay", message="Pay", data="A1", applicationId=longest,
              allowedMethods=["pin"])
        assert lk.ok("admin/createOperation", userId=longest, template="pay", applicationId=longest)["status"] == "pending"
        assert lk.ok("device/create", deviceId=longest)["deviceId"] == longest
        for method, params in (("admin/createUser", {"userId": longest + "x"}), ("admin/createUser", {"loginName": "x" * 257}),
                               ("device/create", {"deviceId": "x" * 257}), ("admin/configureApplication", {"applicationId": "x" * 257}),
                               ("admin/createUser", {"email": "e" + "\u0301" * 1500 + "@x.com"})):
            error = lk.err(method, **params)
            assert error["code"] == -32602, (method, error)
            assert [e["path"] for e in error["data"]["errors"]] == list(params), error
