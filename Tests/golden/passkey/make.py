#!/usr/bin/env python3
"""Records the golden transcripts of passkeys (Latchkey as a WebAuthn Relying Party).

usage: make.py BINARY [FILTER...]      (needs the `cryptography` package: make venv)

Each scenario drives the binary with the simulated phone's authenticator (`device/passkeyCreate`,
`device/passkeyGet`) or with an outside one (webauthn_fixture.py: fixed keys, deterministic
signatures), the binary seeded and on a manual clock, so every challenge and every signature is
the same on every run. A scenario checks each answer as it goes; its requests are then written to
NAME.in.jsonl and a replay of them to NAME.out.jsonl, which run.py compares byte for byte.
"""
import hashlib, importlib.util, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
_spec = importlib.util.spec_from_file_location("server_make", os.path.join(HERE, "..", "server", "make.py"))
server_make = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(server_make)
Session = server_make.Session  # the server recorder's session
from webauthn_fixture import FLAG_BE, FLAG_BS, FLAG_UP, FLAG_UV, Authenticator, b64, cbor, unb64  # noqa: E402


def signed_in(s, user="alice", email=None):
    s.ok("admin/createUser", userId=user, email=email or f"{user}@example.com", password="correct horse")
    return s.ok("user/login", userId=user, password="correct horse")["sessionId"]


def register(s, session, authenticator, **forge):
    options = s.ok("passkey/creationOptions", sessionId=session)
    credential = authenticator.create(options["publicKey"], **forge)
    return options, credential


def check_fails(s, method, check, /, **params):
    error = s.fails(method, "passkeyInvalid", **params)
    if error["data"].get("check") != check:
        raise AssertionError(f"{method}: expected check {check}, got {error}")
    return error


# -- the simulated phone --

def simulated_phone_lifecycle(s):
    """A signed-in user adds a passkey made by the simulated phone (synced, iCloud Keychain on), signs in with it by
    email and discoverably, then removes it; a replayed assertion answers noSessionInProgress."""
    session = signed_in(s)
    s.ok("device/create", deviceId="phone")
    options = s.ok("passkey/creationOptions", sessionId=session)
    credential = s.ok("device/passkeyCreate", deviceId="phone", publicKey=options["publicKey"])["credential"]
    s.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential, friendlyName="iPhone")
    s.ok("user/passkeys", sessionId=session)
    s.fails("device/passkeyCreate", "alreadyExists", deviceId="phone",
            publicKey=s.ok("passkey/creationOptions", sessionId=session)["publicKey"])
    request = s.ok("passkey/requestOptions", email="alice@example.com")
    assertion = s.ok("device/passkeyGet", deviceId="phone", publicKey=request["publicKey"])["credential"]
    s.ok("passkey/login", ceremonyId=request["ceremonyId"], credential=assertion)
    s.fails("passkey/login", "noSessionInProgress", ceremonyId=request["ceremonyId"], credential=assertion)
    request = s.ok("passkey/requestOptions")
    assertion = s.ok("device/passkeyGet", deviceId="phone", publicKey=request["publicKey"])["credential"]
    s.ok("passkey/login", ceremonyId=request["ceremonyId"], credential=assertion)
    passkeys = s.ok("user/passkeys", sessionId=session)["passkeys"]
    s.ok("passkey/remove", sessionId=session, passkeyId=passkeys[0]["id"])
    s.fails("passkey/remove", "notFound", sessionId=session, passkeyId=passkeys[0]["id"])
    s.ok("audit/list", userId="alice")


def simulated_phone_device_bound(s):
    """With iCloud Keychain off the simulated phone's passkey is device-bound: BE and BS clear, the counter counts up
    from 1, and an iCloud backup is refused while a computer backup carries no passkey."""
    session = signed_in(s)
    s.ok("device/create", deviceId="phone", iCloudKeychain=False, biometry="touchId")
    options = s.ok("passkey/creationOptions", sessionId=session)
    credential = s.ok("device/passkeyCreate", deviceId="phone", publicKey=options["publicKey"])["credential"]
    s.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential)
    for _ in range(2):
        request = s.ok("passkey/requestOptions", userId="alice")
        assertion = s.ok("device/passkeyGet", deviceId="phone", publicKey=request["publicKey"])["credential"]
        s.ok("passkey/login", ceremonyId=request["ceremonyId"], credential=assertion)
    s.fails("device/backup", "iCloudKeychainDisabled", deviceId="phone", kind="iCloud")
    backup = s.ok("device/backup", deviceId="phone", kind="computerEncrypted")["backupId"]
    s.ok("device/restore", backupId=backup, deviceId="new-phone")
    request = s.ok("passkey/requestOptions")
    s.fails("device/passkeyGet", "notFound", deviceId="new-phone", publicKey=request["publicKey"])
    s.ok("user/passkeys", sessionId=session)


def simulated_phone_synced_backup(s):
    """A synced passkey travels in an iCloud backup: the restored phone signs in with it (counter 0 each time)."""
    session = signed_in(s)
    s.ok("device/create", deviceId="phone")
    options = s.ok("passkey/creationOptions", sessionId=session)
    credential = s.ok("device/passkeyCreate", deviceId="phone", publicKey=options["publicKey"])["credential"]
    s.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential)
    backup = s.ok("device/backup", deviceId="phone", kind="iCloud")["backupId"]
    s.ok("device/restore", backupId=backup, deviceId="new-phone")
    for phone in ("new-phone", "phone"):
        request = s.ok("passkey/requestOptions", email="alice@example.com")
        assertion = s.ok("device/passkeyGet", deviceId=phone, publicKey=request["publicKey"])["credential"]
        s.ok("passkey/login", ceremonyId=request["ceremonyId"], credential=assertion)


def simulated_phone_biometry(s):
    """User verification goes through the phone's biometry: noMatch and cancel make and sign nothing."""
    session = signed_in(s)
    s.ok("device/create", deviceId="phone")
    options = s.ok("passkey/creationOptions", sessionId=session)
    s.ok("device/setBiometricOutcome", deviceId="phone", outcome="noMatch")
    s.fails("device/passkeyCreate", "biometryFailed", deviceId="phone", publicKey=options["publicKey"])
    s.ok("device/setBiometricOutcome", deviceId="phone", outcome="cancel")
    s.fails("device/passkeyCreate", "biometryCancelled", deviceId="phone", publicKey=options["publicKey"])
    s.ok("device/setBiometricOutcome", deviceId="phone", outcome="match")
    credential = s.ok("device/passkeyCreate", deviceId="phone", publicKey=options["publicKey"])["credential"]
    s.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential)
    request = s.ok("passkey/requestOptions", email="alice@example.com")
    s.ok("device/setBiometricOutcome", deviceId="phone", outcome="noMatch")
    s.fails("device/passkeyGet", "biometryFailed", deviceId="phone", publicKey=request["publicKey"])
    s.fails("device/passkeyGet", "invalidParams", deviceId="phone", publicKey=request["publicKey"], origin="https://example.com")


def reset_with_simulated_phone(s):
    """The seed's one-call reset: an account-recovery code and {deviceId} remove every passkey and register the one the
    simulated phone makes in the same call; a password-reset code is refused and counts."""
    session = signed_in(s)
    s.ok("events/subscribe", topics=["delivery", "accountRecoveryCallback"])
    s.ok("device/create", deviceId="old-phone")
    options = s.ok("passkey/creationOptions", sessionId=session)
    credential = s.ok("device/passkeyCreate", deviceId="old-phone", publicKey=options["publicKey"])["credential"]
    s.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential)
    s.ok("reset/requestAccountRecovery", email="alice@example.com", redirectUrl="app://recover")
    code = s.ok("delivery/list", to="alice@example.com")["messages"][-1]["code"]
    s.ok("device/create", deviceId="new-phone")
    s.fails("reset/resetPasskeys", "invalidParams", email="alice@example.com", verificationCode=code, passkey={})
    s.ok("reset/resetPasskeys", email="alice@example.com", verificationCode=code,
         passkey={"deviceId": "new-phone", "friendlyName": "New phone"})
    request = s.ok("passkey/requestOptions")
    old = s.ok("device/passkeyGet", deviceId="old-phone", publicKey=request["publicKey"])["credential"]
    check_fails(s, "passkey/login", "credential", ceremonyId=request["ceremonyId"], credential=old)
    request = s.ok("passkey/requestOptions")
    new = s.ok("device/passkeyGet", deviceId="new-phone", publicKey=request["publicKey"])["credential"]
    s.ok("passkey/login", ceremonyId=request["ceremonyId"], credential=new)
    s.fails("reset/resetPasskeys", "verificationCodeInvalid", email="alice@example.com", verificationCode=code,
            passkey={"deviceId": "new-phone"})


# -- outside authenticators --

def outside_algorithms(s):
    """Outside authenticators register ES256, EdDSA and RS256 passkeys (attestation none, and packed
    self-attestation) and sign in with each; the list shows each algorithm."""
    session = signed_in(s)
    for name, alg, fmt in (("es256", -7, "none"), ("eddsa", -8, "packed"), ("rs256", -257, "none")):
        key = Authenticator(name, alg)
        options, credential = register(s, session, key, fmt=fmt)
        s.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential, friendlyName=name)
        request = s.ok("passkey/requestOptions", email="alice@example.com")
        s.ok("passkey/login", ceremonyId=request["ceremonyId"], credential=key.get(request["publicKey"]))
    s.ok("user/passkeys", sessionId=session)


def registration_checks(s):
    """Every Relying Party check of a registration, each failing alone in its own ceremony: the first failure names
    its check, nothing is registered, and the ceremony is used up."""
    session = signed_in(s)
    key = Authenticator("forger")
    rp_hash = hashlib.sha256(b"localhost").digest()

    def auth_data(flags, cred_id=key.credential_id, cose=None, extra=b""):
        return (rp_hash + bytes([flags]) + bytes(4) + bytes(16) + len(cred_id).to_bytes(2, "big") + cred_id
                + (cose or key.cose()) + extra)

    cases = [
        ("type", dict(client_data=lambda o: key.client_data("webauthn.get", o["challenge"], "https://localhost"))),
        ("challenge", dict(client_data=lambda o: key.client_data("webauthn.create", b64(b"another challenge"), "https://localhost"))),
        ("origin", dict(origin="https://evil.example")),
        ("origin", dict(client_data=lambda o: key.client_data("webauthn.create", o["challenge"], "https://localhost", True))),
        ("encoding", dict(client_data=lambda o: b"not json")),
        ("encoding", dict(attestation_object=cbor(["fmt", "none"]))),
        ("encoding", dict(attestation_object=cbor({"fmt": "none", "attStmt": {}, "authData": b"\x00" * 36}))),
        ("encoding", dict(auth_data=auth_data(0x45, extra=b"\x00"))),
        ("rpId", dict(rp_id="example.com")),
        ("userPresence", dict(flags=FLAG_UV)),
        ("userVerification", dict(flags=FLAG_UP)),
        ("flags", dict(flags=FLAG_UP | FLAG_UV | FLAG_BS)),
        ("credentialId", dict(attested_id=b"another credential id")),
        ("algorithm", dict(cose=key.cose(alg=-35))),
        ("publicKey", dict(cose=key.cose(override={-3: bytes(32)}))),
        ("attestation", dict(fmt="fido-u2f", att_stmt={"sig": b"\x00", "x5c": [b"\x00"]})),
        ("attestation", dict(fmt="packed", att_stmt={"alg": -7, "sig": b"\x30\x00", "x5c": [b"\x00"]})),
        ("attestation", dict(fmt="packed", att_stmt={"alg": -7, "sig": key.sign(b"something else")})),
        ("attestation", dict(fmt="none", att_stmt={"alg": -7})),
    ]
    for check, forge in cases:
        options = s.ok("passkey/creationOptions", sessionId=session)
        forge = {k: (v(options["publicKey"]) if callable(v) else v) for k, v in forge.items()}
        credential = key.create(options["publicKey"], **forge)
        check_fails(s, "passkey/create", check, ceremonyId=options["ceremonyId"], credential=credential)
        s.fails("passkey/create", "noSessionInProgress", ceremonyId=options["ceremonyId"], credential=credential)
    options, credential = register(s, session, key)
    s.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential)
    other = signed_in(s, "bob")
    options, credential = register(s, other, key)
    s.fails("passkey/create", "alreadyExists", ceremonyId=options["ceremonyId"], credential=credential)
    s.ok("user/passkeys", sessionId=session)
    s.ok("audit/list", userId="alice", limit=3)


def assertion_checks(s):
    """Every Relying Party check of a sign-in, each failing alone: client data, the credential (unknown, or another
    user's when the options named a user — the same answer), the user handle, authenticator data, the signature and the
    counter (a clone: audited passkeyCloneSuspected); a wrong-kind, used or expired ceremony."""
    session = signed_in(s)
    key = Authenticator("alice-key")
    options, credential = register(s, session, key)
    s.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential)
    bob_session = signed_in(s, "bob")
    bob_key = Authenticator("bob-key")
    options, credential = register(s, bob_session, bob_key)
    s.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential)
    rp_hash = hashlib.sha256(b"localhost").digest()
    cases = [
        ("type", dict(client_data=lambda o: key.client_data("webauthn.create", o["challenge"], "https://localhost"))),
        ("challenge", dict(client_data=lambda o: key.client_data("webauthn.get", b64(b"stale"), "https://localhost"))),
        ("origin", dict(origin="https://localhost:8443")),
        ("credential", dict(raw_id=b"unknown credential")),
        ("userHandle", dict(user_handle=b64(b"someone else"))),
        ("encoding", dict(auth_data=rp_hash + b"\x05\x00\x00\x00")),
        ("encoding", dict(auth_data=rp_hash + b"\x05\x00\x00\x00\x09" + b"\x00")),
        ("rpId", dict(rp_id="example.com")),
        ("userPresence", dict(flags=FLAG_UV)),
        ("userVerification", dict(flags=FLAG_UP)),
        ("flags", dict(flags=FLAG_UP | FLAG_UV | FLAG_BS)),
        ("signature", dict(signature=key.sign(b"something else"))),
    ]
    for check, forge in cases:
        request = s.ok("passkey/requestOptions", userId="alice")
        forge = {k: (v(request["publicKey"]) if callable(v) else v) for k, v in forge.items()}
        check_fails(s, "passkey/login", check, ceremonyId=request["ceremonyId"], credential=key.get(request["publicKey"], **forge))
    request = s.ok("passkey/requestOptions", userId="alice")
    check_fails(s, "passkey/login", "credential", ceremonyId=request["ceremonyId"], credential=bob_key.get(request["publicKey"]))
    request = s.ok("passkey/requestOptions", userId="alice")
    s.ok("passkey/login", ceremonyId=request["ceremonyId"], credential=key.get(request["publicKey"]))
    request = s.ok("passkey/requestOptions", userId="alice")
    check_fails(s, "passkey/login", "signCount", ceremonyId=request["ceremonyId"], credential=key.get(request["publicKey"], count=1))
    creation = s.ok("passkey/creationOptions", sessionId=session)
    s.fails("passkey/login", "noSessionInProgress", ceremonyId=creation["ceremonyId"], credential=key.get(creation["publicKey"] | {"rpId": "localhost"}))
    request = s.ok("passkey/requestOptions", userId="alice")
    s.ok("clock/advance", seconds=300)
    s.fails("passkey/login", "sessionExpired", ceremonyId=request["ceremonyId"], credential=key.get(request["publicKey"]))
    s.ok("audit/list", userId="alice", limit=4)


def credential_shapes(s):
    """A credential of the wrong JSON shape answers invalidParams naming the member, before any check: an id of 0 or
    of more than 1023 bytes included; clientExtensionResults may be absent."""
    session = signed_in(s)
    key = Authenticator("shapes")
    options, credential = register(s, session, key)
    ceremony = options["ceremonyId"]
    broken = [
        {k: v for k, v in credential.items() if k != "rawId"},
        credential | {"rawId": b64(b"another id")},
        credential | {"type": "password"},
        credential | {"id": credential["id"] + "="},
        credential | {"response": credential["response"] | {"clientDataJSON": 7}},
        credential | {"response": {k: v for k, v in credential["response"].items() if k != "attestationObject"}},
        credential | {"id": "", "rawId": ""},
        credential | {"id": b64(bytes(1024)), "rawId": b64(bytes(1024))},
        credential | {"clientExtensionResults": []},
        credential | {"clientExtensionResults": None},  # only response.userHandle may be null
    ]
    for shape in broken:
        s.fails("passkey/create", "invalidParams", ceremonyId=ceremony, credential=shape)
    # Some clients omit clientExtensionResults: absent counts as {}.
    s.ok("passkey/create", ceremonyId=ceremony, credential={k: v for k, v in credential.items() if k != "clientExtensionResults"})


def anti_enumeration(s):
    """Request options for an identifier that matches nobody, or a user without passkeys, list one made-up credential,
    the same every time; a discoverable sign-in lists none."""
    signed_in(s)
    s.ok("passkey/requestOptions", email="nobody@example.com")
    s.ok("passkey/requestOptions", email="nobody@example.com")
    s.ok("passkey/requestOptions", email="alice@example.com")
    s.ok("passkey/requestOptions", loginName="nobody")
    s.ok("passkey/requestOptions")
    s.fails("passkey/requestOptions", "invalidParams", email="alice@example.com", userId="alice")
    request = s.ok("passkey/requestOptions", email="nobody@example.com")
    key = Authenticator("stranger")
    key.user_handle = b64(b"x")
    check_fails(s, "passkey/login", "credential", ceremonyId=request["ceremonyId"], credential=key.get(request["publicKey"]))


def imported_passkey(s):
    """admin/createUser imports a passkey registered with another Relying Party (COSE key, counter, user handle); it
    signs in; a key a registration would refuse answers invalidParams naming the entry."""
    key = Authenticator("imported", synced=False)
    key.count = 41
    handle = b64(b"user handle elsewhere")
    s.ok("admin/createUser", userId="carol", email="carol@example.com", passkeyUserHandle=handle,
         passkeys=[{"credentialId": b64(key.credential_id), "publicKey": b64(key.cose()), "friendlyName": "YubiKey", "signCount": 41}])
    key.user_handle = handle
    request = s.ok("passkey/requestOptions", email="carol@example.com")
    s.ok("passkey/login", ceremonyId=request["ceremonyId"], credential=key.get(request["publicKey"]))
    s.fails("admin/createUser", "invalidParams", userId="dave",
            passkeys=[{"credentialId": b64(b"1"), "publicKey": b64(key.cose(alg=-35))}])
    s.fails("admin/createUser", "alreadyExists", userId="erin",
            passkeys=[{"credentialId": b64(key.credential_id), "publicKey": b64(key.cose())}])


def relying_party_settings(s):
    """An application's RP: origins must sit on its RP id; with user verification only preferred, a credential
    without UV registers and signs in; another application's origin is refused."""
    s.fails("admin/configureApplication", "invalidParams", applicationId="shop", passkeyRpId="shop.example",
            passkeyOrigins=["https://shop.example", "https://evil.example"])
    s.ok("admin/configureApplication", applicationId="shop", passkeyRpId="shop.example", passkeyRpName="Shop",
         passkeyOrigins=["https://shop.example", "https://www.shop.example:8443", "android:apk-key-hash:abc"],
         passkeyUserVerification="preferred")
    session = signed_in(s)
    key = Authenticator("no-uv")
    options = s.ok("passkey/creationOptions", sessionId=session, applicationId="shop")
    credential = key.create(options["publicKey"], origin="https://www.shop.example:8443", flags=FLAG_UP)
    s.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential)
    request = s.ok("passkey/requestOptions", email="alice@example.com", applicationId="shop")
    check_fails(s, "passkey/login", "origin", ceremonyId=request["ceremonyId"], credential=key.get(request["publicKey"]))
    request = s.ok("passkey/requestOptions", email="alice@example.com", applicationId="shop")
    s.ok("passkey/login", ceremonyId=request["ceremonyId"], credential=key.get(request["publicKey"], origin="https://shop.example", flags=FLAG_UP))


def reset_with_outside_authenticator(s):
    """reset/passkeyCreationOptions checks the code without consuming it; a credential that fails its checks uses up
    the ceremony only (old passkeys stay); then the reset registers the new passkey and the old one is refused."""
    session = signed_in(s)
    old = Authenticator("old-key")
    options, credential = register(s, session, old)
    s.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential)
    s.ok("reset/requestAccountRecovery", email="alice@example.com", redirectUrl="app://recover")
    code = s.ok("delivery/list", to="alice@example.com")["messages"][-1]["code"]
    s.fails("reset/passkeyCreationOptions", "verificationCodeInvalid", email="alice@example.com", verificationCode="000000"
            if code != "000000" else "111111")
    new = Authenticator("new-key")
    options = s.ok("reset/passkeyCreationOptions", email="alice@example.com", verificationCode=code)
    check_fails(s, "reset/resetPasskeys", "origin", email="alice@example.com", verificationCode=code,
                passkey={"ceremonyId": options["ceremonyId"], "credential": new.create(options["publicKey"], origin="https://evil.example")})
    s.ok("user/passkeys", sessionId=session)
    options = s.ok("reset/passkeyCreationOptions", email="alice@example.com", verificationCode=code)
    s.ok("reset/resetPasskeys", email="alice@example.com", verificationCode=code,
         passkey={"ceremonyId": options["ceremonyId"], "credential": new.create(options["publicKey"]), "friendlyName": "New key"})
    request = s.ok("passkey/requestOptions", email="alice@example.com")
    check_fails(s, "passkey/login", "credential", ceremonyId=request["ceremonyId"], credential=old.get(request["publicKey"]))
    request = s.ok("passkey/requestOptions", email="alice@example.com")
    s.ok("passkey/login", ceremonyId=request["ceremonyId"], credential=new.get(request["publicKey"]))


def reset_sms_without_new_passkey(s):
    """By SMS, a reset without a new passkey removes every imported passkey and ends every session of the user; the code
    is then used up."""
    key = Authenticator("laptop")
    s.ok("admin/createUser", userId="alice", email="Alice@Example.com", phoneNumber="+15550001111", password="correct horse",
         passkeys=[{"credentialId": b64(key.credential_id), "publicKey": b64(key.cose()), "friendlyName": "Laptop"}])
    session = s.ok("user/login", userId="alice", password="correct horse")["sessionId"]
    s.ok("events/subscribe", topics=["delivery"])
    s.ok("reset/requestAccountRecovery", phoneNumber="+15550001111", redirectUrl="app://recover")
    code = s.ok("delivery/list", to="+15550001111")["messages"][-1]["code"]
    s.ok("reset/resetPasskeys", phoneNumber="+15550001111", verificationCode=code)
    s.fails("user/passkeys", "userSessionInvalid", sessionId=session)
    session = s.ok("user/login", userId="alice", password="correct horse")["sessionId"]
    s.ok("user/passkeys", sessionId=session)
    s.fails("reset/resetPasskeys", "verificationCodeInvalid", phoneNumber="+15550001111", verificationCode=code)


def reset_passkeys_with_password_reset_code(s):
    """A password-reset code offered to resetPasskeys is refused as a wrong try and not consumed: it still updates the
    password."""
    key = Authenticator("laptop")
    s.ok("admin/createUser", userId="alice", email="Alice@Example.com", password="correct horse",
         passkeys=[{"credentialId": b64(key.credential_id), "publicKey": b64(key.cose()), "friendlyName": "Laptop"}])
    session = s.ok("user/login", userId="alice", password="correct horse")["sessionId"]
    s.ok("reset/requestPasswordReset", email="alice@example.com", redirectUrl="app://reset")
    code = s.ok("delivery/list", to="Alice@Example.com")["messages"][-1]["code"]
    s.fails("reset/resetPasskeys", "verificationCodeInvalid", email="alice@example.com", verificationCode=code)
    s.fails("reset/passkeyCreationOptions", "verificationCodeInvalid", email="alice@example.com", verificationCode=code)
    s.ok("user/passkeys", sessionId=session)
    s.ok("reset/updatePassword", email="alice@example.com", verificationCode=code, password="brand new password")


def too_many_passkeys(s):
    """A user holds at most 25 passkeys: passkey/creationOptions and passkey/create answer policyViolation."""
    keys = [Authenticator(f"key-{n}") for n in range(25)]
    s.ok("admin/createUser", userId="alice", email="alice@example.com", password="correct horse",
         passkeys=[{"credentialId": b64(k.credential_id), "publicKey": b64(k.cose())} for k in keys[:24]])
    session = s.ok("user/login", userId="alice", password="correct horse")["sessionId"]
    options = s.ok("passkey/creationOptions", sessionId=session)
    spare = s.ok("passkey/creationOptions", sessionId=session)
    s.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=keys[24].create(options["publicKey"]))
    s.fails("passkey/creationOptions", "policyViolation", sessionId=session)
    s.fails("passkey/create", "policyViolation", ceremonyId=spare["ceremonyId"],
            credential=Authenticator("one-too-many").create(spare["publicKey"]))


def thief_walk(s):
    """Security property 10: a thief holding a stolen session opens a creation ceremony; the owner resets the password
    (which ends that session) and resets every passkey; the thief's passkey/create then answers noSessionInProgress,
    registers nothing, and the thief cannot sign in as the owner."""
    s.ok("admin/createUser", userId="alice", email="alice@example.com", password="correct horse")
    stolen = s.ok("user/login", userId="alice", password="correct horse")["sessionId"]
    thief = Authenticator("thief")
    theirs = s.ok("passkey/creationOptions", sessionId=stolen)
    s.ok("reset/requestPasswordReset", email="alice@example.com", redirectUrl="app://reset")
    code = s.ok("delivery/list", to="alice@example.com")["messages"][-1]["code"]
    s.ok("reset/updatePassword", email="alice@example.com", verificationCode=code, password="a brand new password")
    s.ok("clock/advance", seconds=31)
    s.ok("reset/requestAccountRecovery", email="alice@example.com", redirectUrl="app://recover")
    code = s.ok("delivery/list", to="alice@example.com")["messages"][-1]["code"]
    s.ok("reset/resetPasskeys", email="alice@example.com", verificationCode=code)
    s.ok("clock/advance", seconds=120)
    s.fails("passkey/create", "noSessionInProgress", ceremonyId=theirs["ceremonyId"], credential=thief.create(theirs["publicKey"]))
    owner = s.ok("user/login", userId="alice", password="a brand new password")["sessionId"]
    s.ok("user/passkeys", sessionId=owner)
    request = s.ok("passkey/requestOptions")
    check_fails(s, "passkey/login", "credential", ceremonyId=request["ceremonyId"], credential=thief.get(request["publicKey"]))
    s.ok("audit/list", userId="alice")


def ceremony_dies_with_its_session(s):
    """A creation ceremony is void once the session that opened it ends — a logout, a logout of all sessions, a
    password change in the insecure window from another session, the session's lifetime — while one whose session
    lives on (the session that changed the password) still registers."""
    s.ok("admin/createUser", userId="alice", email="alice@example.com", password="correct horse")
    key = Authenticator("mine")

    def opened():
        session = s.ok("user/login", userId="alice", password="correct horse")["sessionId"]
        return session, s.ok("passkey/creationOptions", sessionId=session)

    session, options = opened()
    s.ok("user/logout", sessionId=session)
    s.fails("passkey/create", "noSessionInProgress", ceremonyId=options["ceremonyId"], credential=key.create(options["publicKey"]))
    session, options = opened()
    other = s.ok("user/login", userId="alice", password="correct horse")["sessionId"]
    s.ok("user/logout", sessionId=other, all=True)
    s.fails("passkey/create", "noSessionInProgress", ceremonyId=options["ceremonyId"], credential=key.create(options["publicKey"]))
    s.ok("admin/configureServer", sessionLifetimeSeconds=100)
    session, options = opened()
    s.ok("clock/advance", seconds=100)
    s.fails("passkey/create", "noSessionInProgress", ceremonyId=options["ceremonyId"], credential=key.create(options["publicKey"]))
    s.ok("admin/configureServer", sessionLifetimeSeconds=2592000, gracePeriodSeconds=60, insecureWindowSeconds=600)
    victim, lost = opened()
    session, kept = opened()
    s.ok("accountRecovery/start", sessionId=session)
    s.ok("clock/advance", seconds=60)
    s.ok("accountRecovery/resetPassword", sessionId=session, newPassword="the insecure window password")
    s.fails("passkey/create", "noSessionInProgress", ceremonyId=lost["ceremonyId"], credential=key.create(lost["publicKey"]))
    s.ok("passkey/create", ceremonyId=kept["ceremonyId"], credential=key.create(kept["publicKey"]))
    s.ok("user/passkeys", sessionId=session)


def ceremony_dies_when_its_session_lifetime_is_shortened(s):
    """A session lasts sessionLifetimeSeconds at most, the lifetime in force now: shortened to 100 s while a creation
    ceremony its 100 s old session opened is still within its 300 s, the ceremony is void (noSessionInProgress), as
    every call with that session is."""
    s.ok("admin/createUser", userId="alice", email="alice@example.com", password="correct horse")
    key = Authenticator("mine")
    session = s.ok("user/login", userId="alice", password="correct horse")["sessionId"]
    options = s.ok("passkey/creationOptions", sessionId=session)
    s.ok("clock/advance", seconds=100)
    s.ok("admin/configureServer", sessionLifetimeSeconds=100)
    s.fails("passkey/create", "noSessionInProgress", ceremonyId=options["ceremonyId"], credential=key.create(options["publicKey"]))
    s.fails("user/get", "userSessionInvalid", sessionId=session)

def ceremony_stays_void_when_the_lifetime_is_lengthened_again(s):
    """A session that a shorter sessionLifetimeSeconds ended stays ended when a longer one is set again, and so does the
    creation ceremony it opened: passkey/create answers noSessionInProgress and registers nothing (the session used to
    come back, and the ceremony with it). A session still young when the lifetime was shortened ends at its start plus the
    shorter lifetime, however long the lifetime is made afterwards."""
    s.ok("admin/createUser", userId="alice", email="alice@example.com", password="correct horse")
    key = Authenticator("mine")
    session = s.ok("user/login", userId="alice", password="correct horse")["sessionId"]
    options = s.ok("passkey/creationOptions", sessionId=session)
    s.ok("clock/advance", seconds=100)
    young = s.ok("user/login", userId="alice", password="correct horse")["sessionId"]
    s.ok("admin/configureServer", sessionLifetimeSeconds=50)
    s.ok("admin/configureServer", sessionLifetimeSeconds=2592000)
    s.fails("user/get", "userSessionInvalid", sessionId=session)
    s.fails("passkey/create", "noSessionInProgress", ceremonyId=options["ceremonyId"], credential=key.create(options["publicKey"]))
    s.ok("user/passkeys", sessionId=young)
    s.ok("clock/advance", seconds=49)
    s.ok("user/get", sessionId=young)
    s.ok("clock/advance", seconds=1)
    s.fails("user/get", "userSessionInvalid", sessionId=young)


def reset_ceremony_dies_with_its_code(s):
    """A reset's ceremony lives while the verification code that opened it does: replaced by a new request, its
    reset/resetPasskeys answers noSessionInProgress and consumes, counts and registers nothing (the new code still
    works, with a ceremony of its own)."""
    session = signed_in(s)
    old = Authenticator("old-key")
    options, credential = register(s, session, old)
    s.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential)
    s.ok("reset/requestAccountRecovery", email="alice@example.com", redirectUrl="app://recover")
    first = s.ok("delivery/list", to="alice@example.com")["messages"][-1]["code"]
    stale = s.ok("reset/passkeyCreationOptions", email="alice@example.com", verificationCode=first)
    s.ok("clock/advance", seconds=31)
    s.ok("reset/requestAccountRecovery", email="alice@example.com", redirectUrl="app://recover")
    second = s.ok("delivery/list", to="alice@example.com")["messages"][-1]["code"]
    new = Authenticator("new-key")
    s.fails("reset/resetPasskeys", "noSessionInProgress", email="alice@example.com", verificationCode=second,
            passkey={"ceremonyId": stale["ceremonyId"], "credential": new.create(stale["publicKey"])})
    s.ok("user/passkeys", sessionId=session)
    fresh = s.ok("reset/passkeyCreationOptions", email="alice@example.com", verificationCode=second)
    s.ok("reset/resetPasskeys", email="alice@example.com", verificationCode=second,
         passkey={"ceremonyId": fresh["ceremonyId"], "credential": new.create(fresh["publicKey"])})


def another_users_reset_ceremony_is_foreign_at_any_age(s):
    """A reset ceremony opened with another user's code is foreign to this user's reset/resetPasskeys: noSessionInProgress
    while it is fresh and after its 300 s alike (foreign comes before expired), registering and consuming nothing (the
    same code then opens this user's own ceremony, which works); its own user's reset still answers sessionExpired."""
    signed_in(s)
    signed_in(s, user="bob")
    for email in ("alice@example.com", "bob@example.com"):
        s.ok("reset/requestAccountRecovery", email=email, redirectUrl="app://recover")
    alices = s.ok("delivery/list", to="alice@example.com")["messages"][-1]["code"]
    bobs = s.ok("delivery/list", to="bob@example.com")["messages"][-1]["code"]
    theirs = s.ok("reset/passkeyCreationOptions", email="alice@example.com", verificationCode=alices)
    key = Authenticator("bobs-key")
    credential = key.create(theirs["publicKey"])
    for advance in (300, 0):
        s.fails("reset/resetPasskeys", "noSessionInProgress", email="bob@example.com", verificationCode=bobs,
                passkey={"ceremonyId": theirs["ceremonyId"], "credential": credential})
        if advance:
            s.ok("clock/advance", seconds=advance)
    s.fails("reset/resetPasskeys", "sessionExpired", email="alice@example.com", verificationCode=alices,
            passkey={"ceremonyId": theirs["ceremonyId"], "credential": credential})
    # Bob's code was neither used up nor counted against by the foreign tries: it opens his own ceremony.
    own = s.ok("reset/passkeyCreationOptions", email="bob@example.com", verificationCode=bobs)
    s.ok("reset/resetPasskeys", email="bob@example.com", verificationCode=bobs,
         passkey={"ceremonyId": own["ceremonyId"], "credential": key.create(own["publicKey"])})


def discoverable_needs_user_handle(s):
    """A discoverable sign-in (options that named no user) needs userHandle: absent or null answers passkeyInvalid
    check userHandle; a sign-in that named the user accepts it absent."""
    session = signed_in(s)
    key = Authenticator("resident")
    options, credential = register(s, session, key)
    s.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential)
    request = s.ok("passkey/requestOptions")
    absent = key.get(request["publicKey"])
    del absent["response"]["userHandle"]
    check_fails(s, "passkey/login", "userHandle", ceremonyId=request["ceremonyId"], credential=absent)
    request = s.ok("passkey/requestOptions")
    null = key.get(request["publicKey"])
    null["response"]["userHandle"] = None
    check_fails(s, "passkey/login", "userHandle", ceremonyId=request["ceremonyId"], credential=null)
    request = s.ok("passkey/requestOptions", email="alice@example.com")
    named = key.get(request["publicKey"])
    del named["response"]["userHandle"]
    s.ok("passkey/login", ceremonyId=request["ceremonyId"], credential=named)
    request = s.ok("passkey/requestOptions")
    s.ok("passkey/login", ceremonyId=request["ceremonyId"], credential=key.get(request["publicKey"]))


def passkeys_belong_to_their_rp_id(s):
    """A passkey belongs to the RP id it was registered under: another application's options do not list it, and an
    assertion for it through another RP id (a forged authenticator hashing that RP id) answers credential, as an
    unknown id does; the 25-passkey limit counts every RP id's."""
    s.ok("admin/configureApplication", applicationId="shop", passkeyRpId="example.com", passkeyOrigins=["https://example.com"])
    session = signed_in(s)
    key = Authenticator("shop-key")
    options = s.ok("passkey/creationOptions", sessionId=session, applicationId="shop")
    s.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=key.create(options["publicKey"], origin="https://example.com"))
    s.ok("passkey/requestOptions", email="alice@example.com", applicationId="shop")
    request = s.ok("passkey/requestOptions", email="alice@example.com")
    check_fails(s, "passkey/login", "credential", ceremonyId=request["ceremonyId"],
                credential=key.get(request["publicKey"] | {"allowCredentials": []}, rp_id="localhost"))
    request = s.ok("passkey/requestOptions")
    check_fails(s, "passkey/login", "credential", ceremonyId=request["ceremonyId"], credential=key.get(request["publicKey"], rp_id="localhost"))
    s.ok("passkey/creationOptions", sessionId=session)
    request = s.ok("passkey/requestOptions", applicationId="shop")
    s.ok("passkey/login", ceremonyId=request["ceremonyId"], credential=key.get(request["publicKey"], origin="https://example.com"))


def backup_eligibility_is_fixed(s):
    """BE never changes (WebAuthn L3 §7.2): an assertion whose BE is not the stored one answers flags; an imported
    passkey given no backupEligible takes its first successful sign-in's, one given it keeps it; a passkey user
    handle another user holds is refused."""
    session = signed_in(s)
    bound = Authenticator("device-bound")
    options, credential = register(s, session, bound)
    s.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential)
    request = s.ok("passkey/requestOptions", email="alice@example.com")
    check_fails(s, "passkey/login", "flags", ceremonyId=request["ceremonyId"],
                credential=bound.get(request["publicKey"], flags=FLAG_UP | FLAG_UV | FLAG_BE))
    synced = Authenticator("synced-import", synced=True)
    given = Authenticator("given-import")
    s.ok("admin/createUser", userId="carol", email="carol@example.com", passkeyUserHandle=b64(b"carol elsewhere"),
         passkeys=[{"credentialId": b64(synced.credential_id), "publicKey": b64(synced.cose())},
                   {"credentialId": b64(given.credential_id), "publicKey": b64(given.cose()), "backupEligible": True}])
    synced.user_handle = given.user_handle = b64(b"carol elsewhere")
    request = s.ok("passkey/requestOptions", email="carol@example.com")
    s.ok("passkey/login", ceremonyId=request["ceremonyId"], credential=synced.get(request["publicKey"]))
    request = s.ok("passkey/requestOptions", email="carol@example.com")
    check_fails(s, "passkey/login", "flags", ceremonyId=request["ceremonyId"],
                credential=synced.get(request["publicKey"], flags=FLAG_UP | FLAG_UV))
    request = s.ok("passkey/requestOptions", email="carol@example.com")
    check_fails(s, "passkey/login", "flags", ceremonyId=request["ceremonyId"],
                credential=given.get(request["publicKey"], flags=FLAG_UP | FLAG_UV))
    s.fails("admin/createUser", "alreadyExists", userId="mallory", passkeyUserHandle=b64(b"carol elsewhere"))


def client_data_and_origins(s):
    """A clientDataJSON member of the wrong JSON type (crossOrigin "true") is encoding; admin/configureApplication
    refuses an origin no browser would send (upper case, a default port, a trailing slash), naming the entry; topOrigin
    (WebAuthn L3: a string) of another JSON type is encoding too."""
    session = signed_in(s)
    key = Authenticator("typed")
    options = s.ok("passkey/creationOptions", sessionId=session)
    client_data = lambda o: key.client_data("webauthn.create", o["challenge"], "https://localhost", cross_origin="true")
    check_fails(s, "passkey/create", "encoding", ceremonyId=options["ceremonyId"],
                credential=key.create(options["publicKey"], client_data=client_data(options["publicKey"])))
    for origin in ["https://LOCALHOST", "https://localhost:443", "https://localhost/", "HTTPS://localhost", "http://localhost:80"]:
        s.fails("admin/configureApplication", "invalidParams", applicationId="default", passkeyOrigins=["https://localhost", origin])
    s.ok("admin/configureApplication", applicationId="default", passkeyOrigins=["https://localhost", "https://localhost:8443"])
    options = s.ok("passkey/creationOptions", sessionId=session)
    client_data = lambda o: key.client_data("webauthn.create", o["challenge"], "https://localhost", topOrigin=5)
    check_fails(s, "passkey/create", "encoding", ceremonyId=options["ceremonyId"],
                credential=key.create(options["publicKey"], client_data=client_data(options["publicKey"])))


# -- approving an operation with a passkey --

PAYMENT = dict(
    name="payment", title="Pay ${amount} ${currency}", message="To ${iban}\nDue ${due}", data="A1*A${amount}${currency}*I${iban}*D${due}",
    attributes=[{"type": "amount", "label": "Amount", "amount": "${amount}", "currency": "${currency}"},
                {"type": "keyValue", "label": "To", "value": "${iban}"}],
    allowedMethods=["pin", "passkey"], ttlSeconds=3600)
PARAMETERS = {"amount": "1500.00", "currency": "EUR", "iban": "CZ2730300000001165254011", "due": "20260131"}
PIN = {"method": "pin", "pin": "1234"}


def payment(s, user="alice", parameters=PARAMETERS, **extra):
    return s.ok("admin/createOperation", userId=user, template="payment", parameters=parameters, **extra)


def expect_operation(s, operation, status, failures=0, approved_with=None):
    """admin/getOperation reads the operation in `status` with `failures` counted on it."""
    now = s.ok("admin/getOperation", operationId=operation["operationId"])
    got = (now["status"], now["failureCount"], now["approvedWith"])
    if got != (status, failures, approved_with):
        raise AssertionError(f"expected {(status, failures, approved_with)}, got {now}")
    return now


def expect_data(error, **data):
    for key, value in data.items():
        if error["data"].get(key) != value:
            raise AssertionError(f"expected data.{key} = {value!r}, got {error}")
    return error


def operation_approved_with_passkey(s):
    """A signed-in user approves a payment with the simulated phone's passkey: operation/passkeyOptions answers request options
    listing the user's passkey, user verification required, a challenge bound to the operation (a new one for every ceremony);
    the phone's assertion approves it (approvedWith passkey, announced on the operations topic, audited, the passkey's
    lastUsedAt set). Then the used ceremony answers noSessionInProgress, a second ceremony opened before the approval
    operationNotPending (status approved), and new options operationNotPending."""
    session = signed_in(s)
    s.ok("device/create", deviceId="phone")
    options = s.ok("passkey/creationOptions", sessionId=session)
    credential = s.ok("device/passkeyCreate", deviceId="phone", publicKey=options["publicKey"])["credential"]
    passkey = s.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential, friendlyName="iPhone")["passkey"]
    s.ok("events/subscribe", topics=["operations"])
    s.ok("admin/configureOperationTemplate", **PAYMENT)
    operation = payment(s, externalId="order-42")
    first = s.ok("operation/passkeyOptions", sessionId=session, operationId=operation["operationId"])
    request = first["publicKey"]
    assert request["userVerification"] == "required" and request["rpId"] == "localhost", request
    assert [c["id"] for c in request["allowCredentials"]] == [passkey["id"]], request
    second = s.ok("operation/passkeyOptions", sessionId=session, operationId=operation["operationId"], applicationId="default")
    assert second["publicKey"]["challenge"] != request["challenge"] and second["ceremonyId"] != first["ceremonyId"], second
    assertion = s.ok("device/passkeyGet", deviceId="phone", publicKey=request)["credential"]
    approved = s.ok("operation/passkeyApprove", ceremonyId=first["ceremonyId"], credential=assertion)
    assert (approved["status"], approved["approvedWith"], approved["failureCount"]) == ("approved", "passkey", 0), approved
    assert approved["decidedAt"] is not None and approved["registrationId"] is None, approved
    s.fails("operation/passkeyApprove", "noSessionInProgress", ceremonyId=first["ceremonyId"], credential=assertion)
    late = s.ok("device/passkeyGet", deviceId="phone", publicKey=second["publicKey"])["credential"]
    expect_data(s.fails("operation/passkeyApprove", "operationNotPending", ceremonyId=second["ceremonyId"], credential=late),
                status="approved")
    expect_data(s.fails("operation/passkeyOptions", "operationNotPending", sessionId=session, operationId=operation["operationId"]),
                status="approved")
    expect_operation(s, operation, "approved", approved_with="passkey")
    listed = s.ok("user/passkeys", sessionId=session)["passkeys"]
    assert listed[0]["lastUsedAt"] is not None, listed
    s.ok("audit/list", userId="alice", limit=3)


def operation_passkey_refusals(s):
    """What operation/passkeyOptions refuses (no such session, another user's session, another application, an unknown
    operation, passkey not among allowedMethods, an operation bound to one phone, a user with no passkey) and what
    operation/passkeyApprove refuses: an unknown ceremony or a sign-in's (passkey/login refuses an operation's), the user's assertion for one payment presented with the
    ceremony of a tampered copy (check challenge), an assertion without user verification even where the application only
    prefers it (check userVerification; passkey/login accepts it), another user's passkey (check credential, audited with no
    user) — each counting nothing on the operation, the swapped one's ceremony then used up; then the payment is approved while the tampered copy stays pending. An
    operation canceled or expired after its options answers operationNotPending; an expired ceremony sessionExpired."""
    s.ok("admin/configureApplication", applicationId="default", passkeyUserVerification="preferred")
    s.ok("admin/configureApplication", applicationId="shop")
    session = signed_in(s)
    key = Authenticator("alice-key")
    options, credential = register(s, session, key)
    s.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential)
    bob_session = signed_in(s, "bob")
    bob_key = Authenticator("bob-key")
    options, credential = register(s, bob_session, bob_key)
    s.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential)
    carol_session = signed_in(s, "carol")
    code = s.ok("admin/createActivationCode", userId="alice")["activationCode"]
    s.ok("device/create", deviceId="phone")
    s.ok("activation/start", deviceId="phone", activationCode=code)
    registration = s.ok("activation/finish", deviceId="phone", authParameter=PIN)["registrationId"]
    s.ok("admin/configureOperationTemplate", **PAYMENT)
    s.ok("admin/configureOperationTemplate", name="login", title="Sign in on the web", message="Firefox on Linux", data="A2*TFirefox")
    operation = payment(s)
    tampered = payment(s, parameters=PARAMETERS | {"amount": "15000.00", "iban": "DE89370400440532013000"})
    pin_only = s.ok("admin/createOperation", userId="alice", template="login")
    bound = payment(s, registrationId=registration)
    carols = payment(s, user="carol")
    op = operation["operationId"]

    # Options.
    s.fails("operation/passkeyOptions", "userSessionInvalid", sessionId="no-such-session", operationId=op)
    s.fails("operation/passkeyOptions", "invalidParams", operationId=op)
    expect_data(s.fails("operation/passkeyOptions", "notFound", sessionId=bob_session, operationId=op), kind="operation")
    expect_data(s.fails("operation/passkeyOptions", "notFound", sessionId=session, operationId=op, applicationId="shop"), kind="operation")
    expect_data(s.fails("operation/passkeyOptions", "notFound", sessionId=session, operationId="no-such-operation"), kind="operation")
    s.fails("operation/passkeyOptions", "authMethodNotAllowed", sessionId=session, operationId=pin_only["operationId"])
    s.fails("operation/passkeyOptions", "authMethodNotAllowed", sessionId=session, operationId=bound["operationId"])
    s.fails("operation/passkeyOptions", "authMethodNotAllowed", sessionId=carol_session, operationId=carols["operationId"])

    # Approvals.
    mine = s.ok("operation/passkeyOptions", sessionId=session, operationId=op)
    s.fails("operation/passkeyApprove", "noSessionInProgress", ceremonyId="no-such-ceremony", credential=key.get(mine["publicKey"]))
    login = s.ok("passkey/requestOptions", email="alice@example.com")
    s.fails("operation/passkeyApprove", "noSessionInProgress", ceremonyId=login["ceremonyId"], credential=key.get(login["publicKey"]))
    s.fails("passkey/login", "noSessionInProgress", ceremonyId=mine["ceremonyId"], credential=key.get(mine["publicKey"]))
    theirs = s.ok("operation/passkeyOptions", sessionId=session, operationId=tampered["operationId"])
    check_fails(s, "operation/passkeyApprove", "challenge", ceremonyId=theirs["ceremonyId"], credential=key.get(mine["publicKey"]))
    s.fails("operation/passkeyApprove", "noSessionInProgress", ceremonyId=theirs["ceremonyId"], credential=key.get(theirs["publicKey"]))
    unverified = s.ok("operation/passkeyOptions", sessionId=session, operationId=op)
    check_fails(s, "operation/passkeyApprove", "userVerification", ceremonyId=unverified["ceremonyId"],
                credential=key.get(unverified["publicKey"], flags=FLAG_UP))
    s.ok("passkey/login", ceremonyId=login["ceremonyId"], credential=key.get(login["publicKey"], flags=FLAG_UP))
    foreign = s.ok("operation/passkeyOptions", sessionId=session, operationId=op)
    check_fails(s, "operation/passkeyApprove", "credential", ceremonyId=foreign["ceremonyId"], credential=bob_key.get(foreign["publicKey"]))
    s.ok("audit/list", limit=1)  # another user's passkey: audited passkeyRejected with no user
    expect_operation(s, operation, "pending")
    expect_operation(s, tampered, "pending")
    s.ok("operation/passkeyApprove", ceremonyId=mine["ceremonyId"], credential=key.get(mine["publicKey"]))
    expect_operation(s, operation, "approved", approved_with="passkey")
    expect_operation(s, tampered, "pending")

    # The operation or the ceremony ends first.
    late = s.ok("operation/passkeyOptions", sessionId=session, operationId=tampered["operationId"])
    s.ok("admin/cancelOperation", operationId=tampered["operationId"])
    expect_data(s.fails("operation/passkeyApprove", "operationNotPending", ceremonyId=late["ceremonyId"],
                        credential=key.get(late["publicKey"])), status="canceled")
    short = payment(s, ttlSeconds=30)
    late = s.ok("operation/passkeyOptions", sessionId=session, operationId=short["operationId"])
    s.ok("clock/advance", seconds=30)
    expect_data(s.fails("operation/passkeyApprove", "operationNotPending", ceremonyId=late["ceremonyId"],
                        credential=key.get(late["publicKey"])), status="expired")
    later = payment(s)
    late = s.ok("operation/passkeyOptions", sessionId=session, operationId=later["operationId"])
    s.ok("clock/advance", seconds=300)
    s.fails("operation/passkeyApprove", "sessionExpired", ceremonyId=late["ceremonyId"], credential=key.get(late["publicKey"]))
    expect_operation(s, later, "pending")
    s.ok("audit/list", userId="alice", limit=12)


def refused_import_writes_nothing(s):
    """admin/createUser refused for one of its passkeys writes nothing: the same user is then created with good ones. At
    most 25 passkeys are imported, as many as a user may hold. Origins no browser sends (a port with a leading zero or
    past 65535, a host not in its xn-- form) are refused naming the entry."""
    keys = [Authenticator(f"import-{n}") for n in range(26)]
    good = [{"credentialId": b64(k.credential_id), "publicKey": b64(k.cose())} for k in keys]
    s.ok("admin/createUser", userId="taken", passkeys=good[25:])
    for passkeys, error in [
        ([good[0], {"credentialId": b64(b"rsa"), "publicKey": b64(keys[1].cose(alg=-35))}], "invalidParams"),
        ([good[0], good[0]], "invalidParams"),
        ([good[0], good[25]], "alreadyExists"),
        (good, "invalidParams"),
    ]:
        s.fails("admin/createUser", error, userId="frank", email="frank@example.com", password="correct horse", passkeys=passkeys)
        s.fails("user/login", "invalidCredentials", email="frank@example.com", password="correct horse")
    s.ok("admin/createUser", userId="frank", email="frank@example.com", password="correct horse", passkeys=good[:25])
    session = s.ok("user/login", email="frank@example.com", password="correct horse")["sessionId"]
    if len(s.ok("user/passkeys", sessionId=session)["passkeys"]) != 25:
        raise AssertionError("frank should hold the 25 passkeys of the import that succeeded")
    for origin in ["https://example.com:08443", "https://example.com:65536", "https://b\u00fccher.example.com"]:
        s.fails("admin/configureApplication", "invalidParams", applicationId="shop", passkeyRpId="example.com", passkeyOrigins=[origin])
    s.ok("admin/configureApplication", applicationId="shop", passkeyRpId="example.com",
         passkeyOrigins=["https://example.com:8443", "https://xn--bcher-kva.example.com", "https://example.com:65535"])


def expired_ceremony_is_known_for_a_day(s):
    """An expired ceremony answers sessionExpired — also after other ceremonies opened since (each opening forgets
    those expired a day ago) — until a day has passed; then it is forgotten and answers noSessionInProgress."""
    session = signed_in(s)
    key = Authenticator("mine")
    first = s.ok("passkey/creationOptions", sessionId=session)
    second = s.ok("passkey/creationOptions", sessionId=session)
    s.ok("clock/advance", seconds=301)
    s.ok("passkey/requestOptions", email="someone@example.com")
    s.fails("passkey/create", "sessionExpired", ceremonyId=first["ceremonyId"], credential=key.create(first["publicKey"]))
    s.ok("clock/advance", seconds=86400)
    s.ok("passkey/requestOptions", email="someone@example.com")
    s.fails("passkey/create", "noSessionInProgress", ceremonyId=second["ceremonyId"], credential=key.create(second["publicKey"]))


SCENARIOS = [simulated_phone_lifecycle, simulated_phone_device_bound, simulated_phone_synced_backup, simulated_phone_biometry,
             reset_with_simulated_phone, outside_algorithms, registration_checks, assertion_checks, credential_shapes,
             anti_enumeration, imported_passkey, relying_party_settings, reset_with_outside_authenticator, reset_sms_without_new_passkey,
             reset_passkeys_with_password_reset_code, too_many_passkeys, thief_walk, ceremony_dies_with_its_session,
             reset_ceremony_dies_with_its_code, another_users_reset_ceremony_is_foreign_at_any_age,
             discoverable_needs_user_handle, passkeys_belong_to_their_rp_id,
             backup_eligibility_is_fixed, client_data_and_origins, operation_approved_with_passkey,
             operation_passkey_refusals, refused_import_writes_nothing, expired_ceremony_is_known_for_a_day,
             ceremony_dies_when_its_session_lifetime_is_shortened, ceremony_stays_void_when_the_lifetime_is_lengthened_again]


def main():
    server_make.record(SCENARIOS, HERE, sys.argv[1:])


if __name__ == "__main__":
    main()
