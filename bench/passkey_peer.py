#!/usr/bin/env python3
"""A passkey sign-in's CPU: latchkey against the same Relying Party written in Python (issue 37).

    python bench/passkey_peer.py                 # the side-by-side run (the default)
    python bench/passkey_peer.py --callgrind     # instructions per sign-in and per PIN authentication
    python bench/passkey_peer.py --serve DB      # the Python peer alone, on stdio (what the run starts)

Needs `cryptography` and `webauthn` (py_webauthn, with its `cbor2`): the project's venv has them
(make venv; then .build/venv/bin/python bench/passkey_peer.py).

**The peer** (`--serve DB`) is a WebAuthn Relying Party of its own: py_webauthn and sqlite3 behind
the same newline-delimited JSON-RPC 2.0 on stdin/stdout, answering `passkey/requestOptions` (for a
named user, by email) and `passkey/login` in latchkey's result shapes, and doing latchkey's work:

- requestOptions, one transaction: expired ceremonies deleted, the user read by email, their
  passkeys read (none: one made-up credential id, HMAC-SHA256 of the email under the store's key),
  a ceremony row (uuid4 id, 32 random bytes of challenge) written; the options made by py_webauthn
  (generate_authentication_options, options_to_json_dict).
- login, one transaction: the ceremony read and deleted (it is single-use), the credential and its
  user read, the assertion verified by py_webauthn's verify_authentication_response (type,
  challenge, origin, RP id hash, UP, UV required, counter, the ES256 signature), `userHandle` and
  backup eligibility checked as latchkey does, the counter, backup state and last use written, a
  session row written (its id stored as a keyed hash, never in clear), an audit row written.

Its SQLite file is in WAL mode with synchronous=NORMAL, as latchkey's. `admin/createUser` takes
latchkey's import shape (`userId`, `email`, `passkeyUserHandle`, `passkeys: [{credentialId,
publicKey, signCount}]`) so the benchmark can give it the passkey it registered on latchkey.
`peer/stats` answers the CPU spent inside its handlers (`time.process_time_ns`, without the stdio
and the JSON), the in-process figure.

**The run** starts latchkey (LATCHKEY_BIN, default ../.build/release/latchkey relative to bench/)
on a SQLite file `--db <tmp>/lk.sqlite` and the peer as `passkey_peer.py --serve <tmp>/peer.sqlite`,
both with the system clock. It registers a passkey on latchkey as a user would (admin/createUser
with a password, user/login, passkey/creationOptions, a "none"-attestation ES256 credential from the
software authenticator of clients/python/latchkey/authenticator.py with UV set, passkey/create) and
imports the same credential into the peer. Then one client signs in on both, one request at a time:
`passkey/requestOptions {email}`, the assertion signed by the authenticator (ES256, DER, the
counter counting up, so it grows on both servers), `passkey/login`, each answer checked. After
PEER_WARMUP sign-ins on each, PEER_ROUNDS rounds of PEER_PER_ROUND sign-ins alternate between the
servers (latchkey first in even rounds, the peer first in odd ones), and around each round the
client reads the server's own process CPU: utime + stime from /proc/PID/stat (clock ticks, the
figure of the issue), and the sum over its threads of /proc/PID/task/*/schedstat (nanoseconds, a
finer cross-check). Printed: CPU µs per sign-in for each server side by side, the ratio
latchkey / Python (goal of the issue: <= 0.5), the median over rounds, the wall time per sign-in
as the client sees it, and the peer's in-handler CPU. The client's own signing is in neither
server's CPU.

**--callgrind** counts instructions with `valgrind --tool=callgrind` on a copy of LATCHKEY_BIN
stripped with `strip --strip-debug` (valgrind 3.19 cannot read Swift 6's DWARF; the symbols stay),
under `--in-memory --seed 1 --clock manual`, fed a pre-recorded NDJSON file on stdin:

- per passkey sign-in: the file registers a passkey (as above) and then makes CALLGRIND_SIGNINS
  sign-ins (default 100) with assertions signed outside, recorded once from a live seeded
  process (the seed makes every challenge and ceremony id the same on the replay, so the recorded
  assertions verify again); (instr(N) - instr(0)) / N, the run with 0 being the same file without
  the sign-ins.
- per PIN authentication of the simulated phone (authentication/start + authentication/finish with
  the right PIN, CALLGRIND_PINS of them, default 20) the same way, with the inclusive cost of the
  PBKDF2 function (the outermost function whose name holds "pbkdf2", from callgrind_annotate
  --inclusive=yes) reported apart; for the sign-in, the ECDSA verify's likewise.

Each replay's stdout must equal the recorded answers byte for byte, or the count is refused.
CALLGRIND_KEEP=1 keeps the callgrind files in bench/out/.

Environment: LATCHKEY_BIN; PEER_ROUNDS (default 40), PEER_PER_ROUND (default 25), PEER_WARMUP
(default 50); PEER_TMPDIR (where the two SQLite files go, default the system's temporary
directory); CALLGRIND_SIGNINS, CALLGRIND_PINS, CALLGRIND_KEEP. Writes bench/out/passkey_peer.json
(or passkey_peer_callgrind.json) and the servers' stderr to bench/out/passkey_peer.stderr.log.
"""
from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "out")
RP_ID = "localhost"
ORIGIN = "https://localhost"
EMAIL = "peer-bench@example.com"
USER_ID = "peer-bench"
PASSWORD = "correct horse battery"
CEREMONY_SECONDS = 300
SESSION_SECONDS = 30 * 24 * 3600


# ==============================================================================================
# The Python Relying Party (--serve DB)
# ==============================================================================================

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, user_handle BLOB NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS passkeys (
    id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id), public_key BLOB NOT NULL,
    sign_count INTEGER NOT NULL, backup_eligible INTEGER, backed_up INTEGER NOT NULL,
    transports TEXT NOT NULL, created_at INTEGER NOT NULL, last_used_at INTEGER);
CREATE INDEX IF NOT EXISTS passkeys_user ON passkeys(user_id);
CREATE TABLE IF NOT EXISTS ceremonies (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, user_id TEXT, named INTEGER NOT NULL,
    challenge BLOB NOT NULL, expires_at INTEGER NOT NULL, created_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS ceremonies_expiry ON ceremonies(expires_at);
CREATE TABLE IF NOT EXISTS sessions (
    id BLOB PRIMARY KEY, user_id TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS audit (
    seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, type TEXT NOT NULL, user_id TEXT, detail TEXT);
"""


class RPCFailure(Exception):
    def __init__(self, code: int, reason: str, message: str, **data):
        super().__init__(message)
        self.error = {"code": code, "message": message, "data": {"reason": reason, **data}}


def serve(db_path: str) -> int:
    """The peer: NDJSON JSON-RPC 2.0 on stdin/stdout until EOF."""
    import base64
    import hashlib
    import hmac
    import secrets
    import sqlite3
    import uuid

    from webauthn import generate_authentication_options, verify_authentication_response
    from webauthn.helpers.exceptions import InvalidAuthenticationResponse
    from webauthn.helpers.structs import (AuthenticatorTransport, PublicKeyCredentialDescriptor,
                                          UserVerificationRequirement)
    try:
        from webauthn.helpers.options_to_json_dict import options_to_json_dict
    except ImportError:  # py_webauthn before 2.2
        from webauthn import options_to_json

        def options_to_json_dict(options):
            return json.loads(options_to_json(options))

    def b64url(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")

    def unb64url(text: str) -> bytes:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))

    key_path = db_path + ".key"  # the store's keyed-hash key, beside it (as latchkey keeps one)
    if not os.path.exists(key_path):
        fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, secrets.token_bytes(32))
        os.close(fd)
    with open(key_path, "rb") as f:
        store_key = f.read()

    db = sqlite3.connect(db_path, isolation_level=None)  # transactions are explicit
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    db.executescript(SCHEMA)
    transports = [AuthenticatorTransport.HYBRID, AuthenticatorTransport.INTERNAL]

    class Transaction:
        """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK when the body raises something but RPCFailure
        marked `commit` (a used-up ceremony stays used up)."""

        def __enter__(self):
            db.execute("BEGIN IMMEDIATE")
            return db

        def __exit__(self, kind, value, tb):
            if kind is None or (kind is RPCFailure and getattr(value, "commit", False)):
                db.execute("COMMIT")
            else:
                db.execute("ROLLBACK")
            return False

    def create_user(params):
        handle = unb64url(params["passkeyUserHandle"]) if "passkeyUserHandle" in params else secrets.token_bytes(32)
        now = int(time.time())
        with Transaction():
            db.execute("INSERT INTO users (id, email, user_handle) VALUES (?, ?, ?)",
                       (params["userId"], params["email"].lower(), handle))
            for p in params.get("passkeys", []):
                db.execute("INSERT INTO passkeys (id, user_id, public_key, sign_count, backup_eligible, backed_up,"
                           " transports, created_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?)",
                           (p["credentialId"], params["userId"], unb64url(p["publicKey"]), p.get("signCount", 0),
                            p.get("backupEligible"), "hybrid\ninternal", now))
        return {"userId": params["userId"]}

    def request_options(params):
        email = params["email"].lower()
        now = int(time.time())
        with Transaction():
            db.execute("DELETE FROM ceremonies WHERE expires_at < ?", (now,))
            user = db.execute("SELECT id FROM users WHERE email = ?", (email,)).fetchone()
            allow = []
            if user is not None:
                for pid, kinds in db.execute("SELECT id, transports FROM passkeys WHERE user_id = ? ORDER BY created_at",
                                             (user[0],)):
                    allow.append(PublicKeyCredentialDescriptor(
                        id=unb64url(pid), transports=[AuthenticatorTransport(t) for t in kinds.split("\n") if t]))
            if not allow:
                decoy = hmac.new(store_key, b"passkey-decoy\0email:" + email.encode(), hashlib.sha256).digest()[:20]
                allow = [PublicKeyCredentialDescriptor(id=decoy, transports=transports)]
            ceremony_id = str(uuid.uuid4())
            challenge = secrets.token_bytes(32)
            db.execute("INSERT INTO ceremonies (id, kind, user_id, named, challenge, expires_at, created_at)"
                       " VALUES (?, 'get', ?, 1, ?, ?, ?)",
                       (ceremony_id, user[0] if user else None, challenge, now + CEREMONY_SECONDS, now))
        options = generate_authentication_options(
            rp_id=RP_ID, challenge=challenge, timeout=CEREMONY_SECONDS * 1000, allow_credentials=allow,
            user_verification=UserVerificationRequirement.REQUIRED)
        return {"ceremonyId": ceremony_id, "publicKey": options_to_json_dict(options)}

    def invalid(check: str, message: str) -> RPCFailure:
        failure = RPCFailure(1950, "passkeyInvalid", message, check=check)
        failure.commit = True  # the ceremony is used up all the same
        return failure

    def login(params):
        credential = params["credential"]
        now = int(time.time())
        with Transaction():
            ceremony = db.execute("SELECT kind, user_id, named, challenge, expires_at FROM ceremonies WHERE id = ?",
                                  (params["ceremonyId"],)).fetchone()
            if ceremony is None or ceremony[0] != "get":
                raise RPCFailure(1200, "noSessionInProgress", "No passkey ceremony of this kind is open")
            if now >= ceremony[4]:
                raise RPCFailure(1201, "sessionExpired", "The passkey ceremony is older than 300 seconds")
            db.execute("DELETE FROM ceremonies WHERE id = ?", (params["ceremonyId"],))
            row = db.execute("SELECT p.user_id, p.public_key, p.sign_count, p.backup_eligible, u.user_handle"
                             " FROM passkeys p JOIN users u ON u.id = p.user_id WHERE p.id = ?",
                             (credential.get("id"),)).fetchone()
            if row is None or (ceremony[2] and row[0] != ceremony[1]):
                raise invalid("credential", "no registered passkey has this id")
            user_id, public_key, sign_count, backup_eligible, user_handle = row
            given = credential.get("response", {}).get("userHandle")
            if given is not None and unb64url(given) != user_handle:
                raise invalid("userHandle", "userHandle is not the passkey's user's")
            try:
                verified = verify_authentication_response(
                    credential=credential, expected_challenge=ceremony[3], expected_rp_id=RP_ID,
                    expected_origin=ORIGIN, credential_public_key=public_key,
                    credential_current_sign_count=sign_count, require_user_verification=True)
            except InvalidAuthenticationResponse as e:
                db.execute("INSERT INTO audit (at, type, user_id, detail) VALUES (?, 'passkeyRejected', ?, ?)",
                           (now, user_id, str(e)))
                raise invalid("signature", "the assertion does not verify") from None
            eligible = verified.credential_device_type == "multi_device"
            if backup_eligible is not None and bool(backup_eligible) != eligible:
                raise invalid("flags", "BE is not the passkey's")
            db.execute("UPDATE passkeys SET sign_count = ?, backup_eligible = ?, backed_up = ?, last_used_at = ?"
                       " WHERE id = ?",
                       (verified.new_sign_count, eligible, verified.credential_backed_up, now, credential["id"]))
            session_id = b64url(secrets.token_bytes(32))
            db.execute("INSERT INTO sessions (id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
                       (hmac.new(store_key, b"session\0" + session_id.encode(), hashlib.sha256).digest(), user_id,
                        now, now + SESSION_SECONDS))
            db.execute("INSERT INTO audit (at, type, user_id, detail) VALUES (?, 'passkeyLogin', ?, ?)",
                       (now, user_id, credential["id"]))
        return {"sessionId": session_id, "uid": user_id}

    stats = {"handlerCpuNs": 0, "requests": 0}
    handlers = {
        "admin/createUser": create_user,
        "passkey/requestOptions": request_options,
        "passkey/login": login,
        "peer/stats": lambda params: dict(stats),
        "ping": lambda params: {"echo": params.get("echo")},
    }

    read = sys.stdin.buffer.readline
    out = sys.stdout.buffer
    while True:
        line = read()
        if not line:
            break
        if not line.strip():
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            msg = None
        if not isinstance(msg, dict):
            reply = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid request",
                                                             "data": {"reason": "invalidRequest"}}}
        else:
            handler = handlers.get(msg.get("method"))
            if handler is None:
                reply = {"jsonrpc": "2.0", "id": msg.get("id"),
                         "error": {"code": -32601, "message": "Method not found", "data": {"reason": "methodNotFound"}}}
            else:
                t0 = time.process_time_ns()
                try:
                    reply = {"jsonrpc": "2.0", "id": msg.get("id"), "result": handler(msg.get("params") or {})}
                except RPCFailure as failure:
                    reply = {"jsonrpc": "2.0", "id": msg.get("id"), "error": failure.error}
                except (KeyError, TypeError, ValueError, AttributeError) as e:
                    reply = {"jsonrpc": "2.0", "id": msg.get("id"), "error": {
                        "code": -32602, "message": f"Invalid params ({type(e).__name__})",
                        "data": {"reason": "invalidParams"}}}
                stats["handlerCpuNs"] += time.process_time_ns() - t0
                stats["requests"] += 1
            if "id" not in msg:
                continue  # a notification: no reply
        out.write(json.dumps(reply, separators=(",", ":")).encode() + b"\n")
        out.flush()
    db.close()
    return 0


# ==============================================================================================
# The client
# ==============================================================================================

class Unexpected(Exception):
    """A server answered something the benchmark did not expect."""


class Server:
    """One server process driven over stdio, one request at a time; every line written is kept
    (`sent`), and every reply line read (`received`), for the callgrind recordings."""

    def __init__(self, name: str, argv: list[str], log) -> None:
        self.name = name
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                  start_new_session=True)
        self.pid = self.p.pid
        self.fd = self.p.stdin.fileno()
        self.out = self.p.stdout
        self.next_id = 0
        self.sent: list[bytes] = []
        self.received: list[bytes] = []

    def request(self, method: str, **params) -> dict:
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params:
            msg["params"] = params
        data = (json.dumps(msg, separators=(",", ":")) + "\n").encode()
        self.sent.append(data)
        os.write(self.fd, data)
        while True:
            raw = self.out.readline()
            if not raw:
                raise Unexpected(f"{self.name} exited (status {self.p.poll()}) before answering {method}")
            self.received.append(raw)
            reply = json.loads(raw)
            if reply.get("id") == self.next_id:
                return reply

    def ok(self, method: str, **params):
        reply = self.request(method, **params)
        if "error" in reply:
            raise Unexpected(f"{self.name}: {method} failed: {reply['error']}")
        return reply["result"]

    def close(self) -> int | None:
        try:
            self.p.stdin.close()
            return self.p.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.p.kill()
            return self.p.wait(timeout=10)
        finally:
            self.p.stdout.close()


def latchkey_binary() -> str:
    binary = os.path.abspath(os.environ.get("LATCHKEY_BIN") or os.path.join(HERE, "..", ".build", "release", "latchkey"))
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        print(f"error: latchkey binary not found or not executable: {binary}\n"
              "  build it (swift build -c release) or set LATCHKEY_BIN", file=sys.stderr)
        sys.exit(2)
    return binary


def authenticator():
    sys.path.insert(0, os.path.join(HERE, "..", "clients", "python"))
    from latchkey.authenticator import ES256, SoftwareAuthenticator
    # A device-bound ES256 passkey with user verification: UV set, BE/BS clear, counter 1, 2, ...
    return SoftwareAuthenticator(origin=ORIGIN, user_verification=True, algorithms=(ES256,), counter="count")


def register_on_latchkey(lk: Server, auth) -> tuple[bytes, object]:
    """A passkey registered as a user would; returns (the user handle, the authenticator's credential)."""
    lk.ok("admin/createUser", userId=USER_ID, email=EMAIL, password=PASSWORD)
    session = lk.ok("user/login", email=EMAIL, password=PASSWORD)["sessionId"]
    options = lk.ok("passkey/creationOptions", sessionId=session)
    credential = auth.create(options)
    lk.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential, friendlyName="bench")
    held = next(iter(auth.credentials.values()))
    return held.user_handle, held


def sign_in(server: Server, auth) -> None:
    options = server.ok("passkey/requestOptions", email=EMAIL)
    credential = auth.get(options)
    result = server.ok("passkey/login", ceremonyId=options["ceremonyId"], credential=credential)
    if result.get("uid") != USER_ID or not result.get("sessionId"):
        raise Unexpected(f"{server.name}: passkey/login answered {result}")


def process_cpu(pid: int) -> tuple[int, int, int]:
    """(utime + stime and stime alone in clock ticks from /proc/PID/stat, the threads' run time in ns from schedstat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])  # fields 14 and 15 of proc(5): utime, stime
    system_ticks = int(fields[12])
    ns = 0
    for path in glob.glob(f"/proc/{pid}/task/*/schedstat"):
        try:
            with open(path) as f:
                ns += int(f.read().split()[0])
        except (OSError, IndexError, ValueError):
            pass  # a thread that ended in between
    return ticks, system_ticks, ns


def median(values: list[float]) -> float:
    s = sorted(values)
    n = len(s)
    return float("nan") if n == 0 else (s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2)


def write_result(name: str, data: dict) -> str:
    os.makedirs(OUT_DIR, exist_ok=True)
    path = os.path.join(OUT_DIR, f"{name}.json")
    with open(path, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    return path


def side_by_side() -> int:
    rounds = int(os.environ.get("PEER_ROUNDS", "40"))
    per_round = int(os.environ.get("PEER_PER_ROUND", "25"))
    warmup = int(os.environ.get("PEER_WARMUP", "50"))
    binary = latchkey_binary()
    tick_us = 1e6 / os.sysconf("SC_CLK_TCK")
    os.makedirs(OUT_DIR, exist_ok=True)
    auth = authenticator()
    with tempfile.TemporaryDirectory(prefix="lk-peer-", dir=os.environ.get("PEER_TMPDIR")) as tmp, \
            open(os.path.join(OUT_DIR, "passkey_peer.stderr.log"), "ab") as log:
        lk = Server("latchkey", [binary, "--db", os.path.join(tmp, "lk.sqlite")], log)
        peer = Server("python", [sys.executable, os.path.abspath(__file__), "--serve", os.path.join(tmp, "peer.sqlite")], log)
        servers = [lk, peer]
        try:
            info = lk.ok("server/info")
            handle, held = register_on_latchkey(lk, auth)
            from latchkey.authenticator import b64url
            peer.ok("admin/createUser", userId=USER_ID, email=EMAIL, passkeyUserHandle=b64url(handle),
                    passkeys=[{"credentialId": b64url(held.id), "publicKey": b64url(held.public_key_cose),
                               "signCount": held.sign_count, "backupEligible": False}])
            for _ in range(warmup):
                for server in servers:
                    sign_in(server, auth)
            totals = {s.name: {"ticks": 0, "system_ticks": 0, "ns": 0, "wall_ns": 0, "rounds_ns": []} for s in servers}
            handler_before = peer.ok("peer/stats")
            for r in range(rounds):
                for server in (servers if r % 2 == 0 else servers[::-1]):
                    ticks0, system0, ns0 = process_cpu(server.pid)
                    t0 = time.perf_counter_ns()
                    for _ in range(per_round):
                        sign_in(server, auth)
                    t1 = time.perf_counter_ns()
                    ticks1, system1, ns1 = process_cpu(server.pid)
                    tot = totals[server.name]
                    tot["ticks"] += ticks1 - ticks0
                    tot["system_ticks"] += system1 - system0
                    tot["ns"] += ns1 - ns0
                    tot["wall_ns"] += t1 - t0
                    tot["rounds_ns"].append((ns1 - ns0) / per_round)
            handler_after = peer.ok("peer/stats")
        finally:
            for server in servers:
                server.close()
    n = rounds * per_round
    figures = {}
    for name, tot in totals.items():
        figures[name] = {
            "cpu_us_per_signin_stat": tot["ticks"] * tick_us / n,
            "system_us_per_signin_stat": tot["system_ticks"] * tick_us / n,
            "cpu_us_per_signin_schedstat": tot["ns"] / 1000 / n,
            "cpu_us_per_signin_round_median": median(tot["rounds_ns"]) / 1000,
            "wall_us_per_signin": tot["wall_ns"] / 1000 / n,
            "cpu_ticks": tot["ticks"],
        }
    handler_us = (handler_after["handlerCpuNs"] - handler_before["handlerCpuNs"]) / 1000 / n
    figures["python"]["handler_cpu_us_per_signin"] = handler_us
    lkf, pyf = figures["latchkey"], figures["python"]

    def ratio(key):
        return lkf[key] / pyf[key] if pyf[key] else float("nan")
    print(f"== passkey sign-in CPU, latchkey vs a Python relying party (py_webauthn + sqlite3), "
          f"{n} sign-ins each ({rounds} alternated rounds of {per_round}, {warmup} warm-up)")
    print(f"  latchkey {info.get('version')} ({binary}), store {info.get('store')}; python {sys.version.split()[0]}")
    print(f"  {'per sign-in (requestOptions + login)':<44} {'latchkey':>10} {'python':>10} {'ratio':>7}")
    rows = [("CPU µs, /proc/PID/stat utime+stime", "cpu_us_per_signin_stat"),
            ("  of which in the kernel (stime)", "system_us_per_signin_stat"),
            ("CPU µs, schedstat (ns, all threads)", "cpu_us_per_signin_schedstat"),
            ("CPU µs, median of the rounds (schedstat)", "cpu_us_per_signin_round_median"),
            ("wall µs at the client (incl. its signing)", "wall_us_per_signin")]
    for label, key in rows:
        print(f"  {label:<44} {lkf[key]:10.1f} {pyf[key]:10.1f} {ratio(key):7.2f}")
    print(f"  {'python in its handlers only (process_time)':<44} {'':>10} {handler_us:10.1f}")
    print(f"  ratio latchkey / python (CPU, /proc/PID/stat): {ratio('cpu_us_per_signin_stat'):.2f} (goal <= 0.5)")
    path = write_result("passkey_peer", {
        "binary": binary, "version": info.get("version"), "signins": n, "rounds": rounds, "per_round": per_round,
        "warmup": warmup, "clock_tick_us": tick_us, "latchkey": lkf, "python": pyf,
        "ratio_stat": ratio("cpu_us_per_signin_stat"), "ratio_schedstat": ratio("cpu_us_per_signin_schedstat"),
    })
    print(f"  results: {path}")
    return 0


# ==============================================================================================
# --callgrind: instructions per sign-in and per PIN authentication
# ==============================================================================================

SEEDED = ["--in-memory", "--seed", "1", "--clock", "manual"]


def record(binary: str, log, setup, step, n: int) -> tuple[bytes, bytes, bytes, bytes]:
    """Drives a seeded process live: setup(server), then step(server) n times. Returns the input
    and the output of the setup alone, and of the setup plus the n steps."""
    server = Server("latchkey", [binary, *SEEDED], log)
    try:
        setup(server)
        base_in, base_out = b"".join(server.sent), b"".join(server.received)
        for _ in range(n):
            step(server)
        return base_in, base_out, b"".join(server.sent), b"".join(server.received)
    finally:
        server.close()


def replay(argv: list[str], data: bytes, expected: bytes, what: str) -> None:
    res = subprocess.run(argv, input=data, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=3600)
    if res.returncode != 0 or res.stdout != expected:
        raise Unexpected(f"{what}: the replay (status {res.returncode}) did not answer what was recorded; "
                         "is the binary's --seed deterministic?")


def callgrind(stripped: str, data: bytes, expected: bytes, name: str) -> tuple[int, str]:
    """Instructions of one run of `stripped` over `data`; its stdout must be `expected`."""
    out_file = os.path.join(OUT_DIR, f"callgrind.{name}.out")
    res = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}", stripped, *SEEDED],
                         input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=3600)
    with open(os.path.join(OUT_DIR, f"callgrind.{name}.log"), "wb") as f:
        f.write(res.stderr)
    if res.returncode != 0 or res.stdout != expected:
        raise Unexpected(f"callgrind {name}: status {res.returncode}, stdout {'as recorded' if res.stdout == expected else 'NOT as recorded'}"
                         f" (log in bench/out/callgrind.{name}.log)")
    with open(out_file) as f:
        for line in f:
            m = re.match(r"(?:summary|totals):\s*(\d+)", line)
            if m:
                return int(m.group(1)), out_file
    raise Unexpected(f"callgrind {name}: no summary line in {out_file}")


def inclusive(out_file: str, pattern: str) -> tuple[int, str] | None:
    """The largest inclusive cost of a function whose name matches `pattern` (case-insensitive),
    from callgrind_annotate --inclusive=yes: (instructions, its name)."""
    res = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out_file],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=600)
    best = None
    for line in res.stdout.splitlines():
        m = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(?:\S+:)?(\S.*?)(?:\s+\[[^\]]*\])?\s*$", line)
        if not m or not re.search(pattern, m.group(2), re.IGNORECASE):
            continue
        cost = int(m.group(1).replace(",", ""))
        if best is None or cost > best[0]:
            best = (cost, m.group(2))
    return best and (best[0], demangled(best[1]))


def demangled(name: str) -> str:
    """A Swift symbol as swift-demangle --simplified writes it, when the toolchain is on PATH."""
    tool = shutil.which("swift-demangle")
    if tool and name.startswith(("$s", "_$s")):
        res = subprocess.run([tool, "--simplified", name], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True, timeout=60)
        if res.returncode == 0 and res.stdout.strip():
            return res.stdout.strip()
    return name


def callgrind_mode() -> int:
    if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
        print("error: valgrind not found (apt-get install valgrind)", file=sys.stderr)
        return 2
    binary = latchkey_binary()
    signins = int(os.environ.get("CALLGRIND_SIGNINS", "100"))
    pins = int(os.environ.get("CALLGRIND_PINS", "20"))
    keep = os.environ.get("CALLGRIND_KEEP", "0") == "1"
    os.makedirs(OUT_DIR, exist_ok=True)
    stripped = os.path.join(OUT_DIR, "callgrind_latchkey")
    subprocess.run(["strip", "--strip-debug", "-o", stripped, binary], check=True)
    auth = authenticator()

    def pin_setup(s: Server) -> None:
        s.ok("admin/createUser", userId="pin-bench", email="pin-bench@example.com")
        code = s.ok("admin/createActivationCode", userId="pin-bench")["activationCode"]
        s.ok("device/create", deviceId="pin-phone", biometry="none")
        s.ok("activation/start", deviceId="pin-phone", activationCode=code)
        s.ok("activation/finish", deviceId="pin-phone", authParameter={"method": "pin", "pin": "1234"})

    def pin_step(s: Server) -> None:
        s.ok("authentication/start", deviceId="pin-phone")
        s.ok("authentication/finish", deviceId="pin-phone", authParameter={"method": "pin", "pin": "1234"})

    cases = [
        ("signin", signins, lambda s: register_on_latchkey(s, auth), lambda s: sign_in(s, auth),
         [("ECDSA verify", r"ecdsa.*verify")]),
        ("pin", pins, pin_setup, pin_step, [("PBKDF2", r"pbkdf2")]),
    ]
    print(f"== instructions (callgrind) per passkey sign-in and per PIN authentication, "
          f"latchkey {' '.join(SEEDED)}")
    print(f"  binary: {binary} (debug sections stripped: {stripped})")
    results = {}
    with open(os.path.join(OUT_DIR, "passkey_peer.stderr.log"), "ab") as log:
        for name, n, setup, step, parts in cases:
            base_in, base_out, full_in, full_out = record(binary, log, setup, step, n)
            for suffix, data in (("0", base_in), (str(n), full_in)):
                with open(os.path.join(OUT_DIR, f"callgrind_{name}_{suffix}.jsonl"), "wb") as f:
                    f.write(data)
            replay([binary, *SEEDED], full_in, full_out, name)  # deterministic before it is counted
            zero, zero_file = callgrind(stripped, base_in, base_out, f"{name}.0")
            many, many_file = callgrind(stripped, full_in, full_out, f"{name}.{n}")
            per = (many - zero) / n
            res = {"n": n, "instructions_0": zero, "instructions_n": many, "per_operation": per}
            what = "passkey sign-in (requestOptions + login)" if name == "signin" else \
                "PIN authentication (authentication/start + finish)"
            print(f"  {what}: {zero:,} instructions for 0, {many:,} for {n}: {per:,.0f} each")
            for label, pattern in parts:
                a, b = inclusive(zero_file, pattern), inclusive(many_file, pattern)
                if b is None:
                    print(f"    {label}: no function matching /{pattern}/ in the profile")
                    continue
                share = (b[0] - (a[0] if a else 0)) / n
                res[label] = {"function": b[1], "per_operation": share}
                print(f"    {label} ({b[1]}, inclusive): {share:,.0f} each ({100 * share / per:.0f}%); "
                      f"the rest {per - share:,.0f}")
            results[name] = res
            if not keep:
                for path in (zero_file, many_file):
                    os.remove(path)
    path = write_result("passkey_peer_callgrind", {"binary": binary, "args": SEEDED, **results})
    print(f"  results: {path}")
    return 0


def main(argv: list[str]) -> int:
    if argv[1:2] == ["--serve"] and len(argv) == 3:
        return serve(argv[2])
    if argv[1:] == ["--callgrind"]:
        return callgrind_mode()
    if argv[1:]:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        print("usage: passkey_peer.py [--callgrind | --serve DB]", file=sys.stderr)
        return 2
    return side_by_side()


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except Unexpected as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)
