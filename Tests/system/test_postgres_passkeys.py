"""Passkeys on PostgreSQL: two processes on one database (migration v3-webauthn's tables).

The database is the private cluster `make test` starts (LATCHKEY_TEST_POSTGRES); without it this
skips with a message. One process registers passkeys (the simulated phone's and an outside
EdDSA one) and the other signs in with them, discoverably and by name; a reset onto the phone
replaces both, and the old outside passkey is refused by either process.
"""
import os
import sys
import uuid

import pytest

from lkharness import reason
from test_postgres import psql, with_database

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden", "passkey"))
from webauthn_fixture import Authenticator  # noqa: E402  (a fixed outside authenticator)

URI = os.environ.get("LATCHKEY_TEST_POSTGRES")
pytestmark = pytest.mark.skipif(not URI, reason="LATCHKEY_TEST_POSTGRES is not set (make test starts a private cluster)")


@pytest.fixture
def pair(spawn, workdir):
    name = "lk_" + uuid.uuid4().hex[:12]
    psql(f"CREATE DATABASE {name}")
    uri = with_database(URI, name)
    key_file = os.path.join(workdir, "latchkey.key")
    yield spawn("--db", uri, "--key-file", key_file, name="a"), spawn("--db", uri, "--key-file", key_file, name="b")
    psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def test_passkeys_across_processes(pair):
    a, b = pair
    a.ok("admin/createUser", userId="alice", email="alice@example.com", password="correct horse")
    session = a.ok("user/login", userId="alice", password="correct horse")["sessionId"]
    a.ok("device/create", deviceId="phone")
    options = a.ok("passkey/creationOptions", sessionId=session)
    credential = a.ok("device/passkeyCreate", deviceId="phone", publicKey=options["publicKey"])["credential"]
    a.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential)
    outside = Authenticator("postgres-outside", -8)
    options = a.ok("passkey/creationOptions", sessionId=session)
    a.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=outside.create(options["publicKey"]))
    assert [p["algorithm"] for p in b.ok("user/passkeys", sessionId=session)["passkeys"]] == [-7, -8]

    # The phone's device tables are in the same database: the other process signs in with it.
    request = a.ok("passkey/requestOptions", email="alice@example.com")
    assertion = b.ok("device/passkeyGet", deviceId="phone", publicKey=request["publicKey"])["credential"]
    assert b.ok("passkey/login", ceremonyId=request["ceremonyId"], credential=assertion)["uid"] == "alice"
    assert reason(a.request("passkey/login", ceremonyId=request["ceremonyId"], credential=assertion)) == "noSessionInProgress"
    request = b.ok("passkey/requestOptions")
    assert a.ok("passkey/login", ceremonyId=request["ceremonyId"], credential=outside.get(request["publicKey"]))["uid"] == "alice"

    a.ok("reset/requestAccountRecovery", email="alice@example.com", redirectUrl="app://recover")
    code = a.ok("delivery/list", to="alice@example.com")["messages"][-1]["code"]
    passkeys = b.ok("reset/resetPasskeys", email="alice@example.com", verificationCode=code, passkey={"deviceId": "phone"})["passkeys"]
    assert len(passkeys) == 1 and passkeys[0]["algorithm"] == -7
    for process in (a, b):
        request = process.ok("passkey/requestOptions", email="alice@example.com")
        refused = process.request("passkey/login", ceremonyId=request["ceremonyId"], credential=outside.get(request["publicKey"]))
        assert reason(refused) == "passkeyInvalid" and refused["error"]["data"]["check"] == "credential"
