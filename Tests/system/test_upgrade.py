"""A store written by the release before, opened by this one.

That release stored a user session under the plain SHA-256 of `session\\0<id>`; this one stores it under the store's keyed
hash (security property 1), which cannot be made from the old digest. A session opened before the upgrade must still open
until it ends (PROTOCOL: "Sessions last sessionLifetimeSeconds (30 days) at most"), or a user in an account recovery's
insecure window, who has no password to sign in with, could never finish it.

The test makes the sessions with this build, then puts their rows back in the old release's form (the row's id only), as an
upgraded store holds them, on a SQLite file and on PostgreSQL.

The other way round, a store a newer version has migrated is refused (storeUnavailable, retry after an hour), neither used nor
migrated: what it keeps may mean what this version cannot read.
"""
import base64
import hashlib
import json
import os
import sqlite3
import subprocess
import time

import cbor2
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from test_postgres import database  # noqa: F401  (a fresh database of the private cluster)

URI = os.environ.get("LATCHKEY_TEST_POSTGRES")


def old_release_session_id(session_id):
    return hashlib.sha256(b"session\0" + session_id.encode()).hexdigest()


def sqlite_rows(db_path):
    def rows(sql, *args):
        with sqlite3.connect(db_path) as db:
            return [row[0] for row in db.execute(sql, args)]
    return rows


def postgres_rows(uri):
    def rows(sql, *args):
        for arg in args:
            sql = sql.replace("?", "'" + arg.replace("'", "''") + "'", 1)
        out = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", uri, "-c", sql],
                             check=True, capture_output=True, text=True).stdout.strip()
        return out.split("\n") if out else []
    return rows


@pytest.fixture(params=["sqlite", "postgres"])
def store(request, workdir, db_path):
    """(the --db/--key-file arguments, a SQL runner answering the first column of its rows)."""
    if request.param == "sqlite":
        return ["--db", db_path], sqlite_rows(db_path)
    if not URI:
        pytest.skip("LATCHKEY_TEST_POSTGRES is not set (make test starts a private cluster)")
    database = request.getfixturevalue("database")
    return ["--db", database, "--key-file", os.path.join(workdir, "latchkey.key")], postgres_rows(database)


def login(lk, rows):
    """A new session, and the id of the row this build stored it under."""
    before = set(rows("SELECT id FROM user_session"))
    session = lk.ok("user/login", userId="alice", password="correct horse")["sessionId"]
    stored, = set(rows("SELECT id FROM user_session")) - before
    return session, stored


def test_a_session_opened_before_the_upgrade_opens_until_it_ends(spawn, store):
    args, rows = store
    lk = spawn(*args)
    lk.ok("admin/configureServer", gracePeriodSeconds=1, insecureWindowSeconds=3600, sessionLifetimeSeconds=86400)
    lk.ok("admin/createUser", userId="alice", email="alice@example.com", password="correct horse")
    recovering, recovering_row = login(lk, rows)
    other, other_row = login(lk, rows)
    assert lk.ok("accountRecovery/start", sessionId=recovering)["accountRecovery"]["state"] == 1
    lk.close()
    for session, row in ((recovering, recovering_row), (other, other_row)):
        assert rows("UPDATE user_session SET id = ? WHERE id = ? RETURNING id", old_release_session_id(session), row)

    lk = spawn(*args)
    assert lk.ok("user/passkeys", sessionId=other) == {"passkeys": []}
    lk.ok("user/logout", sessionId=other)
    assert lk.err("user/get", sessionId=other)["data"]["reason"] == "userSessionInvalid"
    assert lk.err("user/get", sessionId="x" * 43)["data"]["reason"] == "userSessionInvalid"
    # The insecure window's user, who has no password to sign in with, finishes the recovery with the session of before.
    deadline = time.monotonic() + 10
    while lk.ok("user/get", sessionId=recovering)["accountRecovery"]["state"] != 3:
        assert time.monotonic() < deadline, "the grace period of 1 s never ended"
        time.sleep(0.05)
    assert lk.ok("accountRecovery/resetPassword", sessionId=recovering, newPassword="new password 1")["accountRecovery"]["state"] == 0
    lk.ok("user/login", userId="alice", password="new password 1")


def test_a_store_a_newer_version_migrated_is_refused_not_used(spawn, store):
    args, rows = store
    lk = spawn(*args)
    lk.ok("admin/createUser", userId="alice", password="correct horse")
    lk.close()
    migrations = "grdb_migrations (identifier)" if args[1].endswith(".sqlite") else "latchkey_migration (name)"
    rows(f"INSERT INTO {migrations} VALUES ('v99-from-the-future') RETURNING 1")
    users = rows("SELECT id FROM \"user\"")

    lk = spawn(*args)
    for _ in range(2):  # said once, answered at once after
        error = lk.err("user/login", userId="alice", password="correct horse")
        assert error["data"] == {"reason": "storeUnavailable", "retryAfterSeconds": 3600}
    lk.close()
    assert rows("SELECT id FROM \"user\"") == users and [str(n) for n in rows("SELECT count(*) FROM user_session")] == ["0"]
    assert lk.stderr_bytes().count(b"v99-from-the-future") == 1


#: The passkey the phone registered through the application `bank` (RP id bank.example) in the release before.
BANK_PASSKEY = "iydvkLwKwWCeHfXboRFnPDQhlT8"
UPGRADE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "upgrade")


def release3_store(workdir):
    """A SQLite store (and its key file) as the release before this wave left it: see upgrade/README.md."""
    path = os.path.join(workdir, "release3.sqlite")
    with open(os.path.join(UPGRADE, "release3_store.sql")) as dump, sqlite3.connect(path) as db:
        db.executescript(dump.read())
    with open(os.path.join(UPGRADE, "release3_store.key")) as hex_key:
        key = bytes.fromhex(hex_key.read().strip())
    fd = os.open(path + ".key", os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, key)
    os.close(fd)
    os.chmod(path, 0o600)
    return path


def bank_passkey(path):
    """The phone's bank passkey as its keychain holds it (CBOR), read before this build opens the store: that release kept it in
    clear."""
    with sqlite3.connect(path) as db:
        synced, = db.execute("SELECT value FROM device_item WHERE id = 'phone/passkeys.synced'").fetchone()
    return next(p for p in cbor2.loads(synced) if p[2] == "bank.example")


def bank_assertion(passkey, options, user_handle):
    """An assertion by `passkey` for the RP id bank.example, over `options`' challenge from the origin https://localhost, with
    `user_handle`."""
    key = ec.derive_private_key(int.from_bytes(passkey[5], "big"), ec.SECP256R1())
    client_data = json.dumps({"type": "webauthn.get", "challenge": options["challenge"], "origin": "https://localhost"}).encode()
    authenticator_data = hashlib.sha256(b"bank.example").digest() + bytes([0x1D]) + (1).to_bytes(4, "big")
    signature = key.sign(authenticator_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))

    def b64(raw):
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
    return {"id": b64(passkey[1]), "rawId": b64(passkey[1]), "type": "public-key", "clientExtensionResults": {},
            "response": {"clientDataJSON": b64(client_data), "authenticatorData": b64(authenticator_data),
                         "signature": b64(signature), "userHandle": b64(user_handle)}}


def test_a_simulated_phone_the_release_before_activated_works_after_the_upgrade(spawn, workdir):
    """That release kept the phone's secret items in clear; this one seals them, and must still open those (the phone's state lives
    in the store, PROTOCOL: "every process on one store sees the same devices")."""
    path = release3_store(workdir)
    bank = bank_passkey(path)
    lk = spawn("--db", path)
    assert lk.ok("device/isActivatedLocally", deviceId="phone") == {"activated": True}
    # The first call on a simulated phone seals every item that release wrote in clear, not only those it reads: the backup's
    # too, which may never be restored.
    with sqlite3.connect(path) as db:
        left = db.execute("SELECT count(*) FROM device_item WHERE name LIKE 'unsealed/%'").fetchone()[0]
        left += db.execute("SELECT count(*) FROM device_backup_item WHERE name LIKE 'unsealed/%'").fetchone()[0]
        backup = dict(db.execute("SELECT name, length(value) FROM device_backup_item"))
    assert left == 0 and backup["recovery.maskedKey"] == 32 + 28
    lk.ok("authentication/start", deviceId="phone")
    finish = lk.ok("authentication/finish", deviceId="phone", authParameter={"method": "pin", "pin": "1357"})
    assert finish["responseType"] == "authenticated"
    assert lk.ok("device/isRecoveryActivated", deviceId="phone") == {"activated": True}
    options = lk.ok("passkey/requestOptions", email="alice@example.com")
    assertion = lk.ok("device/passkeyGet", deviceId="phone", publicKey=options["publicKey"])
    assert lk.ok("passkey/login", ceremonyId=options["ceremonyId"], credential=assertion["credential"])["uid"] == "alice"
    # Asserted for its own RP id through another application's ceremony (no browser sends that), it is answered as an unknown id
    # is ("credential: the same answer for an unknown id, another user's and another RP id's"), and stays unbound.
    # Nor does a check before the RP id's tell it apart (a user handle that is not its own).
    for user_handle in (bank[3], b"not alice"):
        ceremony = lk.ok("passkey/requestOptions")
        forged = bank_assertion(bank, ceremony["publicKey"], user_handle)
        failed = lk.err("passkey/login", ceremonyId=ceremony["ceremonyId"], credential=forged)
        assert failed["data"] == {"reason": "passkeyInvalid", "check": "credential"}
    # A passkey registered through another application signs in there (the release before kept no RP id: its first sign-in proves
    # it, PROTOCOL: "a passkey belongs to the RP id it was registered under"), and is then that RP id's alone.
    def bank_options():
        return lk.ok("passkey/requestOptions", email="alice@example.com", applicationId="bank")
    options = bank_options()
    assert BANK_PASSKEY in [c["id"] for c in options["publicKey"]["allowCredentials"]]
    assertion = lk.ok("device/passkeyGet", deviceId="phone", publicKey=options["publicKey"], origin="https://bank.example")
    assert lk.ok("passkey/login", ceremonyId=options["ceremonyId"], credential=assertion["credential"])["uid"] == "alice"
    assert [c["id"] for c in bank_options()["publicKey"]["allowCredentials"]] == [BANK_PASSKEY]
    default = lk.ok("passkey/requestOptions", email="alice@example.com")["publicKey"]["allowCredentials"]
    assert BANK_PASSKEY not in [c["id"] for c in default] and len(default) == 1
    # The backup holds the recovery key in clear too: the restored phone has it, sealed now.
    lk.ok("device/restore", backupId="bak_ygtngkminfqcrlzs", deviceId="restored")
    assert lk.ok("device/isRecoveryActivated", deviceId="restored") == {"activated": True}
    lk.ok("recovery/start", deviceId="restored")
    with sqlite3.connect(path) as db:
        restored = dict(db.execute("SELECT name, length(value) FROM device_item WHERE deviceId = 'restored'"))
        # Each item the phone read, and the backup's, is sealed in its row now: none is left marked, and a 32-byte key takes a
        # nonce and a tag more.
        marked = db.execute("SELECT count(*) FROM device_item WHERE name LIKE 'unsealed/%'").fetchone()[0]
        marked += db.execute("SELECT count(*) FROM device_backup_item WHERE name LIKE 'unsealed/%'").fetchone()[0]
        kept = dict(db.execute("SELECT name, length(value) FROM device_item WHERE deviceId = 'phone'"))
        backup = dict(db.execute("SELECT name, length(value) FROM device_backup_item"))
    assert restored["recovery.maskedKey"] == 32 + 28
    assert marked == 0
    assert kept["activation.possessionKey"] == kept["recovery.maskedKey"] == 32 + 28
    assert backup["recovery.maskedKey"] == 32 + 28


def release_before_database(spawn, workdir, database):
    """Makes `database` as the release before would have left it: a user, and no record of the key (which `deployment.key` in
    `workdir` holds). Returns a query function on it, and the deployment's key file."""
    rows = postgres_rows(database)
    deployment = os.path.join(workdir, "deployment.key")
    lk = spawn("--db", database, "--key-file", deployment)
    lk.ok("admin/createUser", userId="alice", password="correct horse")
    lk.close()
    rows("DELETE FROM store_key RETURNING 1")
    return rows, deployment


def test_a_key_file_made_now_is_not_given_to_a_postgresql_store_in_use_that_cannot_prove_one(spawn, workdir):
    """A database the release before wrote holds users, no record of its key and no sealed key to prove one on. A process whose key
    file was missing, and which made one just now, must not record that key for it: every process with the deployment's key would
    be refused after. It answers storeUnavailable and removes the file it made; the deployment's key is then recorded."""
    if not URI:
        pytest.skip("LATCHKEY_TEST_POSTGRES is not set (make test starts a private cluster)")
    from test_postgres import database as make  # noqa: F811
    for database in make.__wrapped__():
        rows, deployment = release_before_database(spawn, workdir, database)
        assert rows("SELECT count(*) FROM application_key") == rows("SELECT count(*) FROM registration_key") == ["0"]

        made = os.path.join(workdir, "made-now.key")
        lk = spawn("--db", database, "--key-file", made)
        error = lk.err("user/login", userId="alice", password="correct horse")
        assert error["data"] == {"reason": "storeUnavailable", "retryAfterSeconds": 3600}
        lk.close()
        assert not os.path.exists(made) and not os.path.exists(made + ".pending")
        assert rows("SELECT count(*) FROM store_key") == ["0"]
        assert b"made just now" in lk.stderr_bytes()

        lk = spawn("--db", database, "--key-file", deployment)
        assert lk.ok("user/login", userId="alice", password="correct horse")["uid"] == "alice"
        assert rows("SELECT count(*) FROM store_key") == ["1"]


# A database no process reaches: nothing listens on port 1.
UNREACHABLE = "postgresql://latchkey@127.0.0.1:1/latchkey?connect_timeout=2"


def test_a_key_made_for_a_postgresql_store_is_taken_by_no_one_until_the_store_accepts_it(spawn, workdir):
    """A process whose key file is missing proposes a key beside it (PATH.pending) and puts it at PATH only once the database
    accepts it. A process starting meanwhile with the same path, or after the first died, takes the proposal for what it is: the
    release before's database (users, no key to prove) refuses it as a key made now, rather than be bound for good to a key no one
    may keep; a new database accepts it, and it is then at PATH."""
    if not URI:
        pytest.skip("LATCHKEY_TEST_POSTGRES is not set (make test starts a private cluster)")
    from test_postgres import database as make  # noqa: F811
    path = os.path.join(workdir, "made-now.key")
    for database in make.__wrapped__():
        rows, deployment = release_before_database(spawn, workdir, database)

        # The first process cannot reach the database yet (it is down, say), and is killed before it can.
        first = spawn("--db", UNREACHABLE, "--key-file", path)
        first.ok("ping")
        assert os.path.exists(path + ".pending") and not os.path.exists(path)
        meanwhile = spawn("--db", database, "--key-file", path)
        error = meanwhile.err("user/login", userId="alice", password="correct horse")
        assert error["data"] == {"reason": "storeUnavailable", "retryAfterSeconds": 3600}
        first.kill()
        assert rows("SELECT count(*) FROM store_key") == ["0"]
        assert not os.path.exists(path) and not os.path.exists(path + ".pending")
        lk = spawn("--db", database, "--key-file", deployment)
        assert lk.ok("user/login", userId="alice", password="correct horse")["uid"] == "alice"

    for database in make.__wrapped__():  # a new database
        first = spawn("--db", UNREACHABLE, "--key-file", path)
        first.ok("ping")
        with open(path + ".pending", "rb") as f:
            proposed = f.read()
        first.kill()
        assert not os.path.exists(path)
        later = spawn("--db", database, "--key-file", path)
        later.ok("admin/createUser", userId="bob", password="correct horse")
        with open(path, "rb") as f:
            assert f.read() == proposed
        assert os.stat(path).st_mode & 0o777 == 0o600 and not os.path.exists(path + ".pending")
        assert postgres_rows(database)("SELECT count(*) FROM store_key") == ["1"]
