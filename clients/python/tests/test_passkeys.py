"""Passkeys through a whole life cycle against the real binary ($LATCHKEY_BIN), with the
software authenticator (latchkey.authenticator) as the browser: register after a password
sign-in, sign in by name and discoverably, a clone refused by the counter, reset with a code
from delivery/list onto a new passkey, the old one refused, synced passkeys, and user
verification only preferred.

Skips, saying so, while the binary has no passkey/creationOptions (rpc.discover tells)."""

import pytest
from support import DEFAULT_ARGS, refused

from latchkey import Latchkey, LatchkeyError

pytest.importorskip("cryptography", reason="the software authenticator needs `cryptography`")
from latchkey.authenticator import (ES256, SoftwareAuthenticator, WebAuthnError,  # noqa: E402
                                    b64url_decode)

EMAIL, PASSWORD, ORIGIN = "ann@example.com", "correct horse battery", "https://localhost"


@pytest.fixture
def lk(binary):
    with Latchkey.spawn(binary, DEFAULT_ARGS, timeout=60) as client:
        methods = {m["name"] for m in client.call("rpc.discover")["methods"]}
        if "passkey/creationOptions" not in methods:
            pytest.skip("this latchkey has no passkey methods yet (rpc.discover lists no "
                        "passkey/creationOptions)")
        yield client


def signed_in(lk, email=EMAIL):
    return lk.call("user/login", {"email": email, "password": PASSWORD})["sessionId"]


def register(lk, session, key, name="Laptop"):
    options = lk.call("passkey/creationOptions", {"sessionId": session})
    credential = key.create(options)
    passkey = lk.call("passkey/create", {"ceremonyId": options["ceremonyId"], "credential": credential,
                                         "friendlyName": name})["passkey"]
    return options, credential, passkey


def login(lk, key, **who):
    options = lk.call("passkey/requestOptions", who)
    return lk.call("passkey/login", {"ceremonyId": options["ceremonyId"], "credential": key.get(options)})


def test_life_cycle(lk):
    user_id = lk.call("admin/createUser", {"email": EMAIL, "password": PASSWORD})["userId"]
    session = signed_in(lk)
    key = SoftwareAuthenticator(ORIGIN)

    # -- register after a password sign-in ----------------------------------------------------
    options, credential, passkey = register(lk, session, key)
    public_key = options["publicKey"]
    assert public_key["rp"]["id"] == "localhost"
    assert public_key["user"]["name"] == EMAIL and len(b64url_decode(public_key["user"]["id"])) == 32
    assert [p["alg"] for p in public_key["pubKeyCredParams"]] == [-7, -8, -257]
    assert public_key["authenticatorSelection"]["residentKey"] == "required"
    assert public_key["attestation"] == "none" and public_key["excludeCredentials"] == []
    assert passkey["id"] == credential["id"] and passkey["friendlyName"] == "Laptop"
    assert passkey["algorithm"] == ES256 and passkey["lastUsedAt"] is None
    assert passkey["backupEligible"] is False and passkey["backedUp"] is False
    assert passkey["aaguid"] == "00000000-0000-0000-0000-000000000000"
    # The ceremony is single-use; a second creation offers the passkey as excluded.
    refused("noSessionInProgress", lk.call, "passkey/create",
            {"ceremonyId": options["ceremonyId"], "credential": credential})
    again = lk.call("passkey/creationOptions", {"sessionId": session})
    assert [c["id"] for c in again["publicKey"]["excludeCredentials"]] == [credential["id"]]
    with pytest.raises(WebAuthnError, match="InvalidStateError"):
        key.create(again)

    # -- sign in by name, then with no name (discoverable) -------------------------------------
    by_name = lk.call("passkey/requestOptions", {"email": EMAIL})
    assert [c["id"] for c in by_name["publicKey"]["allowCredentials"]] == [credential["id"]]
    assert by_name["publicKey"]["rpId"] == "localhost"
    first = lk.call("passkey/login", {"ceremonyId": by_name["ceremonyId"], "credential": key.get(by_name)})
    assert first["uid"] == user_id and first["sessionId"] != session
    twin = key.clone()                                     # a copy of the key, counter at 1
    assert login(lk, key)["uid"] == user_id                # discoverable: counter 2
    assert login(lk, key, email=EMAIL)["uid"] == user_id   # counter 3
    listed = lk.call("user/passkeys", {"sessionId": first["sessionId"]})["passkeys"]
    assert [p["id"] for p in listed] == [credential["id"]] and listed[0]["lastUsedAt"]

    # -- a clone (its counter behind) is refused and audited ------------------------------------
    error = refused("passkeyInvalid", login, lk, twin, email=EMAIL)
    assert error.data["check"] == "signCount"
    events = [e["type"] for e in lk.call("audit/list", {"userId": user_id})["events"]]
    assert "passkeyCloneSuspected" in events and "passkeyLogin" in events
    # A replayed assertion (another ceremony's challenge) and one from another origin are refused.
    used = key.get(lk.call("passkey/requestOptions", {"email": EMAIL}))
    other = lk.call("passkey/requestOptions", {"email": EMAIL})
    error = refused("passkeyInvalid", lk.call, "passkey/login", {"ceremonyId": other["ceremonyId"], "credential": used})
    assert error.data["check"] == "challenge"
    other = lk.call("passkey/requestOptions", {"email": EMAIL})
    error = refused("passkeyInvalid", lk.call, "passkey/login",
                    {"ceremonyId": other["ceremonyId"], "credential": key.get(other, origin="https://app.localhost")})
    assert error.data["check"] == "origin"

    # -- reset with the code from the mailbox, onto a new passkey -------------------------------
    assert lk.call("reset/requestAccountRecovery", {"email": EMAIL, "redirectUrl": "app://reset"}) == {}
    message = lk.call("delivery/list", {"to": EMAIL})["messages"][-1]
    assert message["purpose"] == "accountRecovery"
    code = message["code"]
    options = lk.call("reset/passkeyCreationOptions", {"email": EMAIL, "verificationCode": code})
    new_key = SoftwareAuthenticator(ORIGIN)                # the old one was lost
    new_credential = new_key.create(options)
    reset = lk.call("reset/resetPasskeys", {"email": EMAIL, "verificationCode": code, "passkey": {
        "ceremonyId": options["ceremonyId"], "credential": new_credential, "friendlyName": "New phone"}})
    assert [p["id"] for p in reset["passkeys"]] == [new_credential["id"]]
    with pytest.raises(LatchkeyError) as used:  # used up
        lk.call("reset/passkeyCreationOptions", {"email": EMAIL, "verificationCode": code})
    assert used.value.reason in ("verificationCodeInvalid", "verificationCodeExpired"), used.value

    # -- the old passkey is refused, the new one signs in ----------------------------------------
    error = refused("passkeyInvalid", login, lk, key)     # discoverable: the old key offers itself
    assert error.data["check"] == "credential"
    with pytest.raises(WebAuthnError, match="NotAllowedError"):
        login(lk, key, email=EMAIL)                        # by name: only the new one is allowed
    session = login(lk, new_key, email=EMAIL)["sessionId"]
    assert login(lk, new_key)["uid"] == user_id

    # -- remove it ---------------------------------------------------------------------------
    assert lk.call("passkey/remove", {"sessionId": session, "passkeyId": new_credential["id"]})["passkeys"] == []
    refused("passkeyInvalid", login, lk, new_key)


def test_synced_passkey_and_requests_that_tell_nothing(lk):
    lk.call("admin/createUser", {"email": EMAIL, "password": PASSWORD})
    key = SoftwareAuthenticator(ORIGIN, backup_eligible=True, backed_up=True, counter="zero")
    _, credential, passkey = register(lk, signed_in(lk), key, name="Synced")
    assert passkey["backupEligible"] is True and passkey["backedUp"] is True
    for _ in range(2):  # a counter that stays 0 is no clone
        login(lk, key, email=EMAIL)
    # An unknown identifier answers options that look the same each time.
    a = lk.call("passkey/requestOptions", {"email": "nobody@example.com"})["publicKey"]["allowCredentials"]
    b = lk.call("passkey/requestOptions", {"email": "nobody@example.com"})["publicKey"]["allowCredentials"]
    assert len(a) == 1 and a == b


def test_user_verification_required_or_preferred(lk):
    lk.call("admin/createUser", {"email": EMAIL, "password": PASSWORD})
    session = signed_in(lk)
    plain = SoftwareAuthenticator(ORIGIN, user_verification=False)
    options = lk.call("passkey/creationOptions", {"sessionId": session})
    assert options["publicKey"]["authenticatorSelection"]["userVerification"] == "required"
    with pytest.raises(WebAuthnError, match="NotAllowedError"):
        plain.create(options)                               # the browser refuses
    options["publicKey"]["authenticatorSelection"]["userVerification"] = "preferred"  # a lying page
    error = refused("passkeyInvalid", lk.call, "passkey/create",
                    {"ceremonyId": options["ceremonyId"], "credential": plain.create(options)})
    assert error.data["check"] == "userVerification"        # the server refuses too

    lk.call("admin/configureApplication", {"applicationId": "default", "passkeyUserVerification": "preferred"})
    plain = SoftwareAuthenticator(ORIGIN, user_verification=False)
    options, _, _ = register(lk, session, plain, name="No UV")
    assert options["publicKey"]["authenticatorSelection"]["userVerification"] == "preferred"
    assert login(lk, plain, email=EMAIL)["sessionId"]


def test_a_reset_refuses_a_credential_id_registered_already_the_users_own_too(lk, monkeypatch):
    """"A credential id registered already, to anyone → `alreadyExists`": the reset's own user's passkeys too, though the
    reset would remove them (an authenticator makes a new id for a new credential; the same id is a forged or replayed one)."""
    import latchkey.authenticator as authenticator
    lk.call("admin/createUser", {"email": EMAIL, "password": PASSWORD})
    key = SoftwareAuthenticator(ORIGIN)
    _, credential, _ = register(lk, signed_in(lk), key)
    assert lk.call("reset/requestAccountRecovery", {"email": EMAIL, "redirectUrl": "app://reset"}) == {}
    code = lk.call("delivery/list", {"to": EMAIL})["messages"][-1]["code"]
    options = lk.call("reset/passkeyCreationOptions", {"email": EMAIL, "verificationCode": code})
    with monkeypatch.context() as patch:  # a new key under the old credential's id
        patch.setattr(authenticator.os, "urandom", lambda n: b64url_decode(credential["id"]))
        forged = SoftwareAuthenticator(ORIGIN).create(options)
    assert forged["id"] == credential["id"]
    error = refused("alreadyExists", lk.call, "reset/resetPasskeys",
                    {"email": EMAIL, "verificationCode": code, "passkey": {"ceremonyId": options["ceremonyId"], "credential": forged}})
    assert error.data["kind"] == "passkey"
    # Nothing was reset: the old passkey still signs in, the code still opens a new ceremony.
    assert login(lk, key, email=EMAIL)["sessionId"]
    assert lk.call("reset/passkeyCreationOptions", {"email": EMAIL, "verificationCode": code})["ceremonyId"]
