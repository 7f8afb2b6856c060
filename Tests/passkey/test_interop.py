"""Passkeys with an independent implementation on each side (issue 26).

1. Latchkey's simulated phone (device/passkeyCreate, device/passkeyGet) against a Relying Party
   nobody here wrote: PyPI `webauthn` (py_webauthn) verifies its registrations and assertions,
   synced (iCloud Keychain on), device-bound (off) and EdDSA (options offering only -8).
2. Authenticators nobody here wrote against Latchkey as the Relying Party: soft-webauthn's
   SoftWebauthnDevice, and credentials assembled from python-fido2's own pieces (COSE keys,
   attested credential data, authenticator data, attestation object, client data) the way a
   client does, for ES256, EdDSA and RS256. Tampered ones are refused by the right check.
3. Latchkey's options and the phone's credentials parse under py_webauthn's JSON helpers.
"""
import base64
import hashlib
import json
import os
import uuid

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa

import webauthn
from webauthn.helpers import (
    decode_credential_public_key,
    options_to_json,
    parse_authentication_credential_json,
    parse_authentication_options_json,
    parse_registration_credential_json,
    parse_registration_options_json,
)
from webauthn.helpers.exceptions import InvalidAuthenticationResponse, InvalidRegistrationResponse
from webauthn.helpers.structs import (
    AuthenticatorAttachment,
    AuthenticatorTransport,
    CredentialDeviceType,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from soft_webauthn import SoftWebauthnDevice
from fido2 import cose as fido2_cose
from fido2.client import ClientData
from fido2.ctap2 import AttestationObject, AttestedCredentialData, AuthenticatorData
from fido2.server import Fido2Server
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

ORIGIN = "https://localhost"
RP_ID = "localhost"
PASSKEY_INVALID = 1950


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def signed_in(lk, user="alice"):
    lk.ok("admin/createUser", userId=user, email=f"{user}@example.com", password="correct horse")
    return lk.ok("user/login", userId=user, password="correct horse")["sessionId"]


def passkey_invalid(lk, method, check, **params):
    error = lk.err(method, **params)
    assert error["code"] == PASSKEY_INVALID, error
    assert error["data"]["reason"] == "passkeyInvalid", error
    assert error["data"]["check"] == check, error
    return error


# ---------------------------------------------------------------------------------------------
# 1. The simulated phone's credentials verify under py_webauthn
# ---------------------------------------------------------------------------------------------

PHONES = {
    # name: (device/create params, algorithms the options offer, expected COSE alg, synced)
    "synced-es256": ({}, None, -7, True),
    "device-bound-es256": ({"iCloudKeychain": False}, None, -7, False),
    "synced-eddsa-only": ({}, [-8], -8, True),
    "device-bound-eddsa-only": ({"iCloudKeychain": False}, [-8], -8, False),
}


@pytest.mark.parametrize("fixture", ["lk", "lk_random"])
@pytest.mark.parametrize("phone", sorted(PHONES))
def test_simulated_phone_verifies_under_py_webauthn(request, fixture, phone):
    lk = request.getfixturevalue(fixture)
    device_params, only_algs, alg, synced = PHONES[phone]
    session = signed_in(lk)
    lk.ok("device/create", deviceId="phone", **device_params)

    options = lk.ok("passkey/creationOptions", sessionId=session)
    public_key = dict(options["publicKey"])
    if only_algs is not None:
        public_key["pubKeyCredParams"] = [{"type": "public-key", "alg": a} for a in only_algs]
    credential = lk.ok("device/passkeyCreate", deviceId="phone", publicKey=public_key)["credential"]

    registration = webauthn.verify_registration_response(
        credential=credential,
        expected_challenge=unb64(options["publicKey"]["challenge"]),
        expected_origin=ORIGIN,
        expected_rp_id=RP_ID,
        require_user_verification=True,
    )
    assert registration.credential_id == unb64(credential["rawId"])
    assert registration.fmt == "none"
    assert registration.user_verified is True
    assert registration.aaguid == "00000000-0000-0000-0000-000000000000"
    assert decode_credential_public_key(registration.credential_public_key).alg == alg
    assert registration.credential_device_type == (
        CredentialDeviceType.MULTI_DEVICE if synced else CredentialDeviceType.SINGLE_DEVICE)
    assert registration.credential_backed_up is synced
    # A synced passkey's counter is always 0; a device-bound one counts from 1.
    assert registration.sign_count == (0 if synced else 1)

    # The same credential registers at Latchkey, which reads it the way py_webauthn did.
    passkey = lk.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential)["passkey"]
    assert passkey["id"] == credential["id"]
    assert passkey["algorithm"] == alg
    assert passkey["backupEligible"] is synced and passkey["backedUp"] is synced
    assert passkey["aaguid"] == registration.aaguid

    public_key_bytes, sign_count = registration.credential_public_key, registration.sign_count
    for identifier in ({"email": "alice@example.com"}, {}, {"userId": "alice"}):
        request_options = lk.ok("passkey/requestOptions", **identifier)
        assertion = lk.ok("device/passkeyGet", deviceId="phone",
                          publicKey=request_options["publicKey"])["credential"]
        challenge = unb64(request_options["publicKey"]["challenge"])
        # Negative controls: the same assertion under another challenge, or an older key
        # state, is refused by py_webauthn, so the verification below is not vacuous.
        with pytest.raises(InvalidAuthenticationResponse):
            webauthn.verify_authentication_response(
                credential=assertion, expected_challenge=os.urandom(32), expected_origin=ORIGIN,
                expected_rp_id=RP_ID, credential_public_key=public_key_bytes,
                credential_current_sign_count=sign_count, require_user_verification=True)
        verified = webauthn.verify_authentication_response(
            credential=assertion,
            expected_challenge=challenge,
            expected_origin=ORIGIN,
            expected_rp_id=RP_ID,
            credential_public_key=public_key_bytes,
            credential_current_sign_count=sign_count,
            require_user_verification=True,
        )
        assert verified.credential_id == registration.credential_id
        assert verified.user_verified is True
        assert verified.credential_backed_up is synced
        if synced:
            assert verified.new_sign_count == 0
        else:
            assert verified.new_sign_count == sign_count + 1
        sign_count = verified.new_sign_count
        assert unb64(assertion["response"]["userHandle"]) == unb64(options["publicKey"]["user"]["id"])
        login = lk.ok("passkey/login", ceremonyId=request_options["ceremonyId"], credential=assertion)
        assert login["uid"] == "alice"


@pytest.mark.parametrize("offered,picked", [([-8, -7], -8), ([-257, -8, -7], -8), ([-35, -7, -8], -7), ([-257], None)])
def test_simulated_phone_picks_the_first_algorithm_it_supports(lk, offered, picked):
    """The phone takes the first of pubKeyCredParams it supports (ES256, EdDSA), as py_webauthn
    reads the key it made; options offering neither are refused."""
    session = signed_in(lk)
    lk.ok("device/create", deviceId="phone")
    options = lk.ok("passkey/creationOptions", sessionId=session)
    public_key = {**options["publicKey"], "pubKeyCredParams": [{"type": "public-key", "alg": a} for a in offered]}
    if picked is None:
        error = lk.err("device/passkeyCreate", deviceId="phone", publicKey=public_key)
        assert error["data"]["reason"] == "invalidParams", error
        assert [e["path"] for e in error["data"]["errors"]] == ["publicKey.pubKeyCredParams"], error
        return
    credential = lk.ok("device/passkeyCreate", deviceId="phone", publicKey=public_key)["credential"]
    registration = webauthn.verify_registration_response(
        credential=credential, expected_challenge=unb64(options["publicKey"]["challenge"]),
        expected_origin=ORIGIN, expected_rp_id=RP_ID, require_user_verification=True)
    assert decode_credential_public_key(registration.credential_public_key).alg == picked
    assert lk.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential)["passkey"]["algorithm"] == picked


def test_py_webauthn_refuses_the_phone_under_the_wrong_rp(lk):
    """Negative control for the test above: py_webauthn does check what it is given."""
    session = signed_in(lk)
    lk.ok("device/create", deviceId="phone")
    options = lk.ok("passkey/creationOptions", sessionId=session)
    credential = lk.ok("device/passkeyCreate", deviceId="phone", publicKey=options["publicKey"])["credential"]
    challenge = unb64(options["publicKey"]["challenge"])
    for kwargs in ({"expected_origin": "https://evil.example", "expected_rp_id": RP_ID},
                   {"expected_origin": ORIGIN, "expected_rp_id": "example.com"}):
        with pytest.raises(InvalidRegistrationResponse):
            webauthn.verify_registration_response(credential=credential, expected_challenge=challenge,
                                                  require_user_verification=True, **kwargs)


@pytest.mark.parametrize("phone", sorted(PHONES))
def test_simulated_phone_verifies_under_fido2_server(lk_random, phone):
    """A second outside Relying Party: python-fido2's Fido2Server, given the challenge Latchkey
    issued as its state, verifies the phone's registration and assertions (it leaves the counter
    to its caller: checked here)."""
    lk = lk_random
    device_params, only_algs, alg, synced = PHONES[phone]
    session = signed_in(lk)
    lk.ok("device/create", deviceId="phone", **device_params)
    server = Fido2Server({"id": RP_ID, "name": "Latchkey"})

    options = lk.ok("passkey/creationOptions", sessionId=session)
    public_key = dict(options["publicKey"])
    if only_algs is not None:
        public_key["pubKeyCredParams"] = [{"type": "public-key", "alg": a} for a in only_algs]
    credential = lk.ok("device/passkeyCreate", deviceId="phone", publicKey=public_key)["credential"]
    state = {"challenge": options["publicKey"]["challenge"], "user_verification": "required"}
    auth_data = server.register_complete(state, ClientData(unb64(credential["response"]["clientDataJSON"])),
                                         AttestationObject(unb64(credential["response"]["attestationObject"])))
    stored = auth_data.credential_data
    assert stored.credential_id == unb64(credential["rawId"])
    assert stored.public_key[3] == alg
    assert bool(auth_data.flags & 0x08) is synced and bool(auth_data.flags & 0x10) is synced  # BE, BS
    lk.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential)

    counter = auth_data.counter
    for _ in range(2):
        request_options = lk.ok("passkey/requestOptions", email="alice@example.com")
        assertion = lk.ok("device/passkeyGet", deviceId="phone", publicKey=request_options["publicKey"])["credential"]
        response = assertion["response"]
        state = {"challenge": request_options["publicKey"]["challenge"], "user_verification": "required"}
        server.authenticate_complete(state, [stored], unb64(assertion["rawId"]),
                                     ClientData(unb64(response["clientDataJSON"])),
                                     AuthenticatorData(unb64(response["authenticatorData"])),
                                     unb64(response["signature"]))
        new_counter = AuthenticatorData(unb64(response["authenticatorData"])).counter
        assert new_counter == 0 if synced else new_counter > counter
        counter = new_counter
        with pytest.raises(ValueError):  # negative control: another challenge
            server.authenticate_complete({**state, "challenge": b64(os.urandom(32))}, [stored],
                                         unb64(assertion["rawId"]), ClientData(unb64(response["clientDataJSON"])),
                                         AuthenticatorData(unb64(response["authenticatorData"])),
                                         unb64(response["signature"]))
        assert lk.ok("passkey/login", ceremonyId=request_options["ceremonyId"], credential=assertion)["uid"] == "alice"


# ---------------------------------------------------------------------------------------------
# 2a. soft-webauthn's SoftWebauthnDevice against Latchkey
# ---------------------------------------------------------------------------------------------

def soft_creation_options(public_key):
    """Latchkey's PublicKeyCredentialCreationOptionsJSON in the form SoftWebauthnDevice takes
    (navigator.credentials.create()'s argument: byte strings as bytes)."""
    return {"publicKey": {
        "rp": dict(public_key["rp"]),
        "user": {**public_key["user"], "id": unb64(public_key["user"]["id"])},
        "challenge": unb64(public_key["challenge"]),
        "pubKeyCredParams": [dict(p) for p in public_key["pubKeyCredParams"]],
        "timeout": public_key["timeout"],
        "excludeCredentials": [{**c, "id": unb64(c["id"])} for c in public_key["excludeCredentials"]],
        "authenticatorSelection": dict(public_key["authenticatorSelection"]),
        "attestation": public_key["attestation"],
    }}


def soft_request_options(public_key):
    return {"publicKey": {
        "rpId": public_key["rpId"],
        "challenge": unb64(public_key["challenge"]),
        "timeout": public_key["timeout"],
        "userVerification": public_key["userVerification"],
        "allowCredentials": [{**c, "id": unb64(c["id"])} for c in public_key["allowCredentials"]],
    }}


def soft_registration_json(answer):
    """SoftWebauthnDevice.create()'s PublicKeyCredential as RegistrationResponseJSON."""
    raw = answer["rawId"]
    assert base64.urlsafe_b64decode(answer["id"]) == raw  # soft-webauthn pads its id
    return {"id": b64(raw), "rawId": b64(raw), "type": answer["type"],
            "response": {"clientDataJSON": b64(answer["response"]["clientDataJSON"]),
                         "attestationObject": b64(answer["response"]["attestationObject"])},
            "clientExtensionResults": {}}


def soft_authentication_json(answer):
    raw = answer["rawId"]
    response = answer["response"]
    return {"id": b64(raw), "rawId": b64(raw), "type": answer["type"],
            "response": {"clientDataJSON": b64(response["clientDataJSON"]),
                         "authenticatorData": b64(response["authenticatorData"]),
                         "signature": b64(response["signature"]),
                         "userHandle": b64(response["userHandle"])},
            "clientExtensionResults": {}}


def allow_without_uv(lk):
    # SoftWebauthnDevice sets UP but never UV (flags 0x41 / 0x01): a `preferred` RP accepts it.
    lk.ok("admin/configureApplication", applicationId="default", passkeyUserVerification="preferred")


def test_soft_webauthn_registers_and_signs_in(lk):
    allow_without_uv(lk)
    session = signed_in(lk)
    device = SoftWebauthnDevice()
    options = lk.ok("passkey/creationOptions", sessionId=session)
    credential = soft_registration_json(device.create(soft_creation_options(options["publicKey"]), ORIGIN))
    passkey = lk.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential,
                    friendlyName="soft-webauthn")["passkey"]
    assert passkey["id"] == b64(device.credential_id)
    assert passkey["algorithm"] == -7
    assert passkey["backupEligible"] is False and passkey["backedUp"] is False
    assert passkey["aaguid"] == "00000000-0000-0000-0000-000000000000"
    assert device.user_handle == unb64(options["publicKey"]["user"]["id"])

    for identifier in ({"email": "alice@example.com"}, {}):
        request_options = lk.ok("passkey/requestOptions", **identifier)
        assertion = soft_authentication_json(device.get(soft_request_options(request_options["publicKey"]), ORIGIN))
        login = lk.ok("passkey/login", ceremonyId=request_options["ceremonyId"], credential=assertion)
        assert login["uid"] == "alice"
        # A replay of the same assertion: the ceremony is used up.
        error = lk.err("passkey/login", ceremonyId=request_options["ceremonyId"], credential=assertion)
        assert error["data"]["reason"] == "noSessionInProgress", error
    listed = lk.ok("user/passkeys", sessionId=session)["passkeys"]
    assert [p["id"] for p in listed] == [passkey["id"]]
    assert listed[0]["lastUsedAt"] is not None


def test_soft_webauthn_is_refused_when_it_requires_user_verification(lk):
    """The default application requires UV; soft-webauthn never sets it."""
    session = signed_in(lk)
    options = lk.ok("passkey/creationOptions", sessionId=session)
    credential = soft_registration_json(SoftWebauthnDevice().create(soft_creation_options(options["publicKey"]), ORIGIN))
    passkey_invalid(lk, "passkey/create", "userVerification", ceremonyId=options["ceremonyId"], credential=credential)


@pytest.mark.parametrize("forgery,check", [("challenge", "challenge"), ("origin", "origin")])
def test_soft_webauthn_tampered_registration_is_refused(lk, forgery, check):
    allow_without_uv(lk)
    session = signed_in(lk)
    options = lk.ok("passkey/creationOptions", sessionId=session)
    soft_options = soft_creation_options(options["publicKey"])
    origin = ORIGIN
    if forgery == "challenge":
        soft_options["publicKey"]["challenge"] = os.urandom(32)
    else:
        origin = "https://evil.example"
    credential = soft_registration_json(SoftWebauthnDevice().create(soft_options, origin))
    passkey_invalid(lk, "passkey/create", check, ceremonyId=options["ceremonyId"], credential=credential)
    # Nothing was registered, and the ceremony was used up by the attempt.
    assert lk.ok("user/passkeys", sessionId=session)["passkeys"] == []
    error = lk.err("passkey/create", ceremonyId=options["ceremonyId"], credential=credential)
    assert error["data"]["reason"] == "noSessionInProgress", error


@pytest.mark.parametrize("forgery,check", [("challenge", "challenge"), ("origin", "origin"),
                                           ("signature", "signature")])
def test_soft_webauthn_tampered_assertion_is_refused(lk, forgery, check):
    allow_without_uv(lk)
    session = signed_in(lk)
    device = SoftWebauthnDevice()
    options = lk.ok("passkey/creationOptions", sessionId=session)
    lk.ok("passkey/create", ceremonyId=options["ceremonyId"],
          credential=soft_registration_json(device.create(soft_creation_options(options["publicKey"]), ORIGIN)))
    request_options = lk.ok("passkey/requestOptions", email="alice@example.com")
    soft_options = soft_request_options(request_options["publicKey"])
    origin = ORIGIN
    if forgery == "challenge":
        soft_options["publicKey"]["challenge"] = os.urandom(32)
    elif forgery == "origin":
        origin = "https://evil.example"
    assertion = soft_authentication_json(device.get(soft_options, origin))
    if forgery == "signature":
        # Another client data (the signature covers its hash) with the true challenge and origin.
        client_data = json.loads(unb64(assertion["response"]["clientDataJSON"]))
        client_data["crossOrigin"] = False
        assertion["response"]["clientDataJSON"] = b64(json.dumps(client_data).encode())
    passkey_invalid(lk, "passkey/login", check, ceremonyId=request_options["ceremonyId"], credential=assertion)
    # The untampered authenticator still signs in afterwards (with a new ceremony).
    request_options = lk.ok("passkey/requestOptions", email="alice@example.com")
    assertion = soft_authentication_json(device.get(soft_request_options(request_options["publicKey"]), ORIGIN))
    assert lk.ok("passkey/login", ceremonyId=request_options["ceremonyId"], credential=assertion)["uid"] == "alice"


# ---------------------------------------------------------------------------------------------
# 2b. A credential assembled from python-fido2's pieces, the way a client does
# ---------------------------------------------------------------------------------------------

class Fido2Authenticator:
    """One credential built with python-fido2's CoseKey, AttestedCredentialData,
    AuthenticatorData, AttestationObject (CTAP form, then WebAuthn string keys) and ClientData."""

    UP, UV = AuthenticatorData.FLAG.USER_PRESENT, AuthenticatorData.FLAG.USER_VERIFIED
    AT = AuthenticatorData.FLAG.ATTESTED

    def __init__(self, alg):
        self.alg = alg
        if alg == -7:
            self.key = ec.generate_private_key(ec.SECP256R1())
            self.cose = fido2_cose.ES256.from_cryptography_key(self.key.public_key())
        elif alg == -8:
            self.key = ed25519.Ed25519PrivateKey.generate()
            self.cose = fido2_cose.EdDSA.from_cryptography_key(self.key.public_key())
        else:
            self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            self.cose = fido2_cose.RS256.from_cryptography_key(self.key.public_key())
        self.credential_id = os.urandom(32)
        self.aaguid = uuid.uuid4()
        self.counter = 0
        self.user_handle = None

    def sign(self, data):
        if self.alg == -7:
            return self.key.sign(data, ec.ECDSA(hashes.SHA256()))
        if self.alg == -8:
            return self.key.sign(data)
        return self.key.sign(data, padding.PKCS1v15(), hashes.SHA256())

    def create(self, public_key, origin=ORIGIN, fmt="packed", challenge=None):
        self.user_handle = public_key["user"]["id"]
        client_data = ClientData.build(type="webauthn.create", challenge=challenge or public_key["challenge"],
                                       origin=origin, crossOrigin=False)
        self.counter += 1
        auth_data = AuthenticatorData.create(
            hashlib.sha256(public_key["rp"]["id"].encode()).digest(), self.UP | self.UV | self.AT, self.counter,
            AttestedCredentialData.create(self.aaguid.bytes, self.credential_id, self.cose))
        att_stmt = {}
        if fmt == "packed":
            att_stmt = {"alg": self.alg, "sig": self.sign(auth_data + client_data.hash)}
        attestation = AttestationObject.create(fmt, auth_data, att_stmt).with_string_keys()
        return {"id": b64(self.credential_id), "rawId": b64(self.credential_id), "type": "public-key",
                "response": {"clientDataJSON": client_data.b64, "attestationObject": b64(attestation),
                             "transports": ["usb", "nfc"]},
                "authenticatorAttachment": "cross-platform", "clientExtensionResults": {}}

    def get(self, public_key, origin=ORIGIN, challenge=None, counter=None):
        client_data = ClientData.build(type="webauthn.get", challenge=challenge or public_key["challenge"],
                                       origin=origin, crossOrigin=False)
        if counter is None:
            self.counter += 1
            counter = self.counter
        auth_data = AuthenticatorData.create(hashlib.sha256(public_key["rpId"].encode()).digest(),
                                             self.UP | self.UV, counter)
        return {"id": b64(self.credential_id), "rawId": b64(self.credential_id), "type": "public-key",
                "response": {"clientDataJSON": client_data.b64, "authenticatorData": b64(auth_data),
                             "signature": b64(self.sign(auth_data + client_data.hash)),
                             "userHandle": self.user_handle},
                "authenticatorAttachment": "cross-platform", "clientExtensionResults": {}}


@pytest.mark.parametrize("fmt", ["packed", "none"])
@pytest.mark.parametrize("alg", [-7, -8, -257])
def test_fido2_credentials_register_and_sign_in(lk_random, alg, fmt):
    lk = lk_random
    session = signed_in(lk)
    authenticator = Fido2Authenticator(alg)
    options = lk.ok("passkey/creationOptions", sessionId=session)
    credential = authenticator.create(options["publicKey"], fmt=fmt)
    # python-fido2 reads back what it built (a sanity check of the assembly).
    parsed = AttestationObject(unb64(credential["response"]["attestationObject"]))
    assert parsed.fmt == fmt and parsed.auth_data.credential_data.public_key == authenticator.cose
    passkey = lk.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential)["passkey"]
    assert passkey["algorithm"] == alg
    assert passkey["aaguid"] == str(authenticator.aaguid)
    assert passkey["transports"] == ["usb", "nfc"]
    assert passkey["backupEligible"] is False

    for _ in range(2):
        request_options = lk.ok("passkey/requestOptions", userId="alice")
        assert [c["id"] for c in request_options["publicKey"]["allowCredentials"]] == [credential["id"]]
        assertion = authenticator.get(request_options["publicKey"])
        assert lk.ok("passkey/login", ceremonyId=request_options["ceremonyId"], credential=assertion)["uid"] == "alice"

    # A counter that does not grow is a possible clone.
    request_options = lk.ok("passkey/requestOptions", userId="alice")
    assertion = authenticator.get(request_options["publicKey"], counter=authenticator.counter)
    passkey_invalid(lk, "passkey/login", "signCount", ceremonyId=request_options["ceremonyId"], credential=assertion)


@pytest.mark.parametrize("forgery,check", [("challenge", "challenge"), ("origin", "origin")])
def test_fido2_tampered_credentials_are_refused(lk_random, forgery, check):
    lk = lk_random
    session = signed_in(lk)
    good = Fido2Authenticator(-7)
    options = lk.ok("passkey/creationOptions", sessionId=session)
    lk.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=good.create(options["publicKey"]))

    forge = {"challenge": b64(os.urandom(32))} if forgery == "challenge" else {"origin": "https://localhost:8443"}
    options = lk.ok("passkey/creationOptions", sessionId=session)
    passkey_invalid(lk, "passkey/create", check, ceremonyId=options["ceremonyId"],
                    credential=Fido2Authenticator(-8).create(options["publicKey"], **forge))
    request_options = lk.ok("passkey/requestOptions", email="alice@example.com")
    passkey_invalid(lk, "passkey/login", check, ceremonyId=request_options["ceremonyId"],
                    credential=good.get(request_options["publicKey"], **forge))
    assert len(lk.ok("user/passkeys", sessionId=session)["passkeys"]) == 1


def test_what_real_clients_send_is_accepted(lk_random):
    """Shapes that real browsers and security keys produce, beyond the minimal JSON forms:
    a Level 3 `credential.toJSON()` registration (response.authenticatorData, publicKey,
    publicKeyAlgorithm; clientExtensionResults.credProps), a security key's authenticator
    extension data (ED flag, credProtect), client data with an extra member in another order
    (Chrome adds `other_keys_can_be_added_here`), and an assertion whose userHandle is absent
    or null (a security key with a non-discoverable credential sends none)."""
    lk = lk_random
    session = signed_in(lk)
    browser = Fido2Authenticator(-7)
    options = lk.ok("passkey/creationOptions", sessionId=session)
    credential = browser.create(options["publicKey"])
    attestation = AttestationObject(unb64(credential["response"]["attestationObject"]))
    credential["response"].update(
        authenticatorData=b64(bytes(attestation.auth_data)),
        publicKey=b64(browser.key.public_key().public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)),
        publicKeyAlgorithm=-7)
    credential["clientExtensionResults"] = {"credProps": {"rk": True}}
    lk.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential)

    key = Fido2Authenticator(-8)
    options = lk.ok("passkey/creationOptions", sessionId=session)
    client_data = ClientData.build(type="webauthn.create", challenge=options["publicKey"]["challenge"],
                                   origin=ORIGIN, crossOrigin=False)
    auth_data = AuthenticatorData.create(
        hashlib.sha256(RP_ID.encode()).digest(), key.UP | key.UV | key.AT | AuthenticatorData.FLAG.EXTENSION_DATA, 7,
        AttestedCredentialData.create(key.aaguid.bytes, key.credential_id, key.cose), extensions={"credProtect": 2})
    assert AuthenticatorData(auth_data).extensions == {"credProtect": 2}
    key.user_handle, key.counter = options["publicKey"]["user"]["id"], 7
    lk.ok("passkey/create", ceremonyId=options["ceremonyId"], credential={
        "id": b64(key.credential_id), "rawId": b64(key.credential_id), "type": "public-key",
        "response": {"clientDataJSON": client_data.b64,
                     "attestationObject": b64(AttestationObject.create("none", auth_data, {}).with_string_keys())},
        "clientExtensionResults": {}})

    request_options = lk.ok("passkey/requestOptions", email="alice@example.com")
    public_key = request_options["publicKey"]
    client_data = json.dumps({"challenge": public_key["challenge"], "origin": ORIGIN, "type": "webauthn.get",
                              "other_keys_can_be_added_here": "do not compare clientDataJSON against a template"}).encode()
    browser.counter += 1
    auth_data = AuthenticatorData.create(hashlib.sha256(RP_ID.encode()).digest(), browser.UP | browser.UV, browser.counter)
    assertion = browser.get(public_key)
    assertion["response"].update(clientDataJSON=b64(client_data), authenticatorData=b64(auth_data),
                                 signature=b64(browser.sign(auth_data + hashlib.sha256(client_data).digest())))
    assert lk.ok("passkey/login", ceremonyId=request_options["ceremonyId"], credential=assertion)["uid"] == "alice"

    for user_handle in ("absent", None):
        request_options = lk.ok("passkey/requestOptions", email="alice@example.com")
        assertion = key.get(request_options["publicKey"])
        if user_handle == "absent":
            del assertion["response"]["userHandle"]
        else:
            assertion["response"]["userHandle"] = None
        assert lk.ok("passkey/login", ceremonyId=request_options["ceremonyId"], credential=assertion)["uid"] == "alice"


N_P256 = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def high_or_low_s(high):
    """An ES256 signature with its S in the upper or lower half: both are valid ECDSA, and
    authenticators emit either (WebAuthn asks for no low-S normalisation)."""
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

    def forge(assertion, public_key, authenticator):
        r, s = decode_dss_signature(unb64(assertion["response"]["signature"]))
        if (s > N_P256 // 2) != high:
            s = N_P256 - s
        assertion["response"]["signature"] = b64(encode_dss_signature(r, s))
    return forge


def client_data_change(**change):
    """Client data with members changed, signed again by the authenticator (so only the
    client data's content can be what is refused)."""
    def forge(assertion, public_key, authenticator):
        client_data = json.loads(unb64(assertion["response"]["clientDataJSON"]))
        for member, value in change.items():
            client_data[member] = value(public_key["challenge"]) if callable(value) else value
        encoded = json.dumps(client_data).encode()
        auth_data = unb64(assertion["response"]["authenticatorData"])
        assertion["response"]["clientDataJSON"] = b64(encoded)
        assertion["response"]["signature"] = b64(authenticator.sign(auth_data + hashlib.sha256(encoded).digest()))
    return forge


@pytest.mark.parametrize("forge,check", [
    (high_or_low_s(True), None),
    (high_or_low_s(False), None),
    (client_data_change(origin="https://localhost/"), "origin"),
    (client_data_change(origin="https://localhost:443"), "origin"),
    (client_data_change(origin="https://LOCALHOST"), "origin"),
    (client_data_change(origin="http://localhost"), "origin"),
    (client_data_change(crossOrigin=True), "origin"),
    (client_data_change(challenge=lambda c: c + "="), "challenge"),
    (client_data_change(challenge=lambda c: base64.b64encode(unb64(c)).decode()), "challenge"),
    (client_data_change(type="webauthn.create"), "type"),
], ids=["high-S", "low-S", "origin-trailing-slash", "origin-default-port", "origin-uppercase", "origin-http",
        "cross-origin", "challenge-padded", "challenge-standard-base64", "type-create"])
def test_assertion_variants_from_an_outside_authenticator(lk_random, forge, check):
    """What Latchkey makes of an outside authenticator's assertion, re-signed after each change:
    either ECDSA S half signs in; an origin that is not byte-for-byte an allowed one, a
    challenge in another encoding and the wrong type are refused by their checks."""
    lk = lk_random
    session = signed_in(lk)
    authenticator = Fido2Authenticator(-7)
    options = lk.ok("passkey/creationOptions", sessionId=session)
    lk.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=authenticator.create(options["publicKey"]))
    request_options = lk.ok("passkey/requestOptions", email="alice@example.com")
    assertion = authenticator.get(request_options["publicKey"])
    forge(assertion, request_options["publicKey"], authenticator)
    if check is None:
        assert lk.ok("passkey/login", ceremonyId=request_options["ceremonyId"], credential=assertion)["uid"] == "alice"
    else:
        passkey_invalid(lk, "passkey/login", check, ceremonyId=request_options["ceremonyId"], credential=assertion)


# ---------------------------------------------------------------------------------------------
# 3. Latchkey's options and the phone's credentials under py_webauthn's JSON helpers
# ---------------------------------------------------------------------------------------------

def test_creation_options_parse_under_py_webauthn(lk):
    session = signed_in(lk)
    lk.ok("device/create", deviceId="phone")
    first = lk.ok("passkey/creationOptions", sessionId=session)
    credential = lk.ok("device/passkeyCreate", deviceId="phone", publicKey=first["publicKey"])["credential"]
    lk.ok("passkey/create", ceremonyId=first["ceremonyId"], credential=credential)

    public_key = lk.ok("passkey/creationOptions", sessionId=session)["publicKey"]
    parsed = parse_registration_options_json(public_key)
    assert parsed.rp.id == RP_ID and parsed.rp.name == "Latchkey"
    assert len(parsed.user.id) == 32 and parsed.user.id == unb64(public_key["user"]["id"])
    assert parsed.user.name == parsed.user.display_name == "alice@example.com"
    assert len(parsed.challenge) == 32
    assert [p.alg for p in parsed.pub_key_cred_params] == [-7, -8, -257]
    assert parsed.timeout == 300000
    assert [c.id for c in parsed.exclude_credentials] == [unb64(credential["rawId"])]
    assert parsed.exclude_credentials[0].transports == [AuthenticatorTransport.HYBRID, AuthenticatorTransport.INTERNAL]
    assert parsed.authenticator_selection.resident_key == ResidentKeyRequirement.REQUIRED
    assert parsed.authenticator_selection.require_resident_key is True
    assert parsed.authenticator_selection.user_verification == UserVerificationRequirement.REQUIRED
    assert parsed.attestation == "none"

    # py_webauthn's own JSON of the parsed options says what Latchkey said, member by member.
    again = json.loads(options_to_json(parsed))
    for member in ("rp", "user", "challenge", "pubKeyCredParams", "timeout", "excludeCredentials", "attestation"):
        assert again[member] == public_key[member], member
    for member, value in public_key["authenticatorSelection"].items():
        assert again["authenticatorSelection"][member] == value, member


@pytest.mark.parametrize("identifier", [{"email": "alice@example.com"}, {}, {"email": "nobody@example.com"}])
def test_request_options_parse_under_py_webauthn(lk, identifier):
    session = signed_in(lk)
    lk.ok("device/create", deviceId="phone")
    options = lk.ok("passkey/creationOptions", sessionId=session)
    credential = lk.ok("device/passkeyCreate", deviceId="phone", publicKey=options["publicKey"])["credential"]
    lk.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential)

    public_key = lk.ok("passkey/requestOptions", **identifier)["publicKey"]
    parsed = parse_authentication_options_json(public_key)
    assert parsed.rp_id == RP_ID
    assert len(parsed.challenge) == 32
    assert parsed.timeout == 300000
    assert parsed.user_verification == UserVerificationRequirement.REQUIRED
    allowed = [c.id for c in parsed.allow_credentials]
    if identifier == {}:
        assert allowed == []
    elif identifier["email"] == "alice@example.com":
        assert allowed == [unb64(credential["rawId"])]
    else:
        assert len(allowed) == 1 and allowed != [unb64(credential["rawId"])]  # the made-up entry
    again = json.loads(options_to_json(parsed))
    for member in ("rpId", "challenge", "timeout", "userVerification", "allowCredentials"):
        assert again[member] == public_key[member], member


def test_phone_credentials_parse_under_py_webauthn(lk):
    session = signed_in(lk)
    lk.ok("device/create", deviceId="phone")
    options = lk.ok("passkey/creationOptions", sessionId=session)
    credential = lk.ok("device/passkeyCreate", deviceId="phone", publicKey=options["publicKey"])["credential"]
    registration = parse_registration_credential_json(credential)
    assert registration.id == credential["id"] and registration.raw_id == unb64(credential["rawId"])
    assert registration.type == "public-key"
    assert registration.authenticator_attachment == AuthenticatorAttachment.PLATFORM
    assert registration.response.transports == [AuthenticatorTransport.HYBRID, AuthenticatorTransport.INTERNAL]
    client_data = json.loads(registration.response.client_data_json)
    assert client_data == {"type": "webauthn.create", "challenge": options["publicKey"]["challenge"],
                           "origin": ORIGIN, "crossOrigin": False}
    lk.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=credential)

    request_options = lk.ok("passkey/requestOptions")
    assertion = lk.ok("device/passkeyGet", deviceId="phone", publicKey=request_options["publicKey"])["credential"]
    authentication = parse_authentication_credential_json(assertion)
    assert authentication.raw_id == registration.raw_id
    assert authentication.authenticator_attachment == AuthenticatorAttachment.PLATFORM
    assert authentication.response.user_handle == unb64(options["publicKey"]["user"]["id"])
    assert json.loads(authentication.response.client_data_json)["type"] == "webauthn.get"
