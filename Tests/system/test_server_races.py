"""Devices outside the process, two latchkey processes on one SQLite file: a challenge is
single-use across processes (two verifies racing one challenge: one success at most, the other
noSessionInProgress), and racing wrong second factors never count past the limit.

The device here is the smallest outside device there is: P-256 keys from the `cryptography`
package (make venv) and the contract's six-line payload.
"""
import base64
import hashlib

import pytest

ec = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.ec")
hashes = pytest.importorskip("cryptography.hazmat.primitives.hashes")

from lkharness import check_not_internal, reason  # noqa: E402
from test_races import race  # noqa: E402

ROUNDS = 12


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Key:
    def __init__(self):
        self.private = ec.generate_private_key(ec.SECP256R1())
        n = self.private.public_key().public_numbers()
        self.public = b64(b"\x04" + n.x.to_bytes(32, "big") + n.y.to_bytes(32, "big"))

    def sign(self, operation, subject, challenge, role, context=""):
        data = "\n".join(["LATCHKEY-V1", operation, subject, challenge, role, context]).encode()
        return b64(self.private.sign(data, ec.ECDSA(hashes.SHA256())))


def outside_device(lk, user):
    """Activates device and PIN keys through server/; answers (registrationId, keys)."""
    lk.ok("admin/createUser", userId=user, email=f"{user}@example.com")
    code = lk.ok("admin/createActivationCode", userId=user)["activationCode"]
    prepared = lk.ok("server/activation/prepare", activationCode=code, installationId="install-" + user)
    keys = {"device": Key(), "pin": Key()}
    wire = {role: {"publicKey": key.public, "proof": key.sign("activate", prepared["activationId"], prepared["challenge"], role)}
            for role, key in keys.items()}
    registration = lk.ok("server/activation/commit", activationId=prepared["activationId"], keys=wire)["registrationId"]
    return registration, keys


def verify_params(registration, keys, challenge, pin_key=None):
    signatures = {role: (pin_key if role == "pin" and pin_key else key).sign("authenticate", registration, challenge["challenge"], role,
                                                                             challenge["contextHash"])
                  for role, key in keys.items()}
    return {"registrationId": registration, "challengeId": challenge["challengeId"], "signatures": signatures}


@pytest.fixture
def pair(spawn, db_path):
    a = spawn("--db", db_path, name="A")
    a.ok("admin/listCallbacks")  # a call on the store: A has created the schema before B opens the file (ping opens nothing)
    b = spawn("--db", db_path, name="B")
    b.ok("admin/listCallbacks")
    return a, b


def test_one_challenge_verified_once_across_processes(pair):
    a, b = pair
    registration, keys = outside_device(a, "alice")
    for round in range(ROUNDS):
        challenge = (a if round % 2 else b).ok("server/authentication/challenge", registrationId=registration)
        params = verify_params(registration, keys, challenge)
        ra, rb = race(a, b, "server/authentication/verify", params, first=round % 2)
        outcomes = sorted(["ok" if "result" in r else reason(r) for r in (ra, rb)])
        assert outcomes == ["noSessionInProgress", "ok"], outcomes


def test_racing_wrong_pins_never_count_past_the_limit(pair):
    a, b = pair
    registration, keys = outside_device(a, "bob")
    wrong = Key()
    seen = []
    for round in range(4):
        ca = a.ok("server/authentication/challenge", registrationId=registration) if round < 3 else None
        cb = b.ok("server/authentication/challenge", registrationId=registration) if round < 3 else None
        if ca is None:
            break
        ra, rb = race(a, b, "server/authentication/verify", verify_params(registration, keys, ca, wrong),
                      verify_params(registration, keys, cb, wrong), first=round % 2)
        for r in (ra, rb):
            check_not_internal(r)
            seen.append(reason(r))
    status = a.ok("server/registration/status", registrationId=registration)
    assert status["remainingAttemptsPIN"] == 0
    assert status["state"] == "locked"
    assert seen.count("authenticationFailed") == 4, seen
    assert seen.count("registrationLocked") == 2, seen
    # Locked: the right PIN does not help, and nothing counts further.
    assert reason(a.request("server/authentication/challenge", registrationId=registration)) == "registrationLocked"
