"""The software authenticator (latchkey.authenticator) checked by a Relying Party nobody here
wrote: PyPI `webauthn` (py_webauthn) makes the options and verifies every response; `cbor2`
checks that the CBOR is canonical. No binary needed. Skips when those packages are missing
(make venv has them)."""

import json
import os

import pytest

webauthn = pytest.importorskip("webauthn", reason="needs PyPI webauthn (pip install webauthn)")
cbor2 = pytest.importorskip("cbor2", reason="needs PyPI cbor2 (pip install cbor2)")
from webauthn.helpers import options_to_json  # noqa: E402
from webauthn.helpers.exceptions import (InvalidAuthenticationResponse,  # noqa: E402
                                         InvalidRegistrationResponse)
from webauthn.helpers.structs import (AuthenticatorSelectionCriteria,  # noqa: E402
                                      PublicKeyCredentialDescriptor, ResidentKeyRequirement,
                                      UserVerificationRequirement)

from latchkey.authenticator import (EDDSA, ES256, SoftwareAuthenticator,  # noqa: E402
                                    WebAuthnError, b64url, b64url_decode, cbor_decode,
                                    cbor_encode)

RP_ID, ORIGIN = "localhost", "https://localhost"


def creation_options(uv="required", algs=None, exclude=()):
    options = webauthn.generate_registration_options(
        rp_id=RP_ID, rp_name="Latchkey", user_name="ann@example.com", user_id=os.urandom(32),
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED, require_resident_key=True,
            user_verification=UserVerificationRequirement(uv)),
        exclude_credentials=[PublicKeyCredentialDescriptor(id=i) for i in exclude],
        **({"supported_pub_key_algs": algs} if algs else {}))
    return json.loads(options_to_json(options)), options.challenge


def request_options(allow=(), uv="required"):
    options = webauthn.generate_authentication_options(
        rp_id=RP_ID, allow_credentials=[PublicKeyCredentialDescriptor(id=i) for i in allow],
        user_verification=UserVerificationRequirement(uv))
    return json.loads(options_to_json(options)), options.challenge


def register(key, **kwargs):
    from webauthn.helpers.cose import COSEAlgorithmIdentifier as Alg
    kwargs.setdefault("algs", [Alg.ECDSA_SHA_256, Alg.EDDSA])  # Latchkey's order
    options, challenge = creation_options(**kwargs)
    response = key.create({"ceremonyId": "c-1", "publicKey": options})
    verified = webauthn.verify_registration_response(
        credential=response, expected_challenge=challenge, expected_rp_id=RP_ID,
        expected_origin=ORIGIN, require_user_verification=key.user_verification)
    return response, verified


def login(key, verified, current_count, allow=None, require_uv=True, uv="required"):
    options, challenge = request_options(allow=[verified.credential_id] if allow is None else allow, uv=uv)
    response = key.get(options)
    result = webauthn.verify_authentication_response(
        credential=response, expected_challenge=challenge, expected_rp_id=RP_ID,
        expected_origin=ORIGIN, credential_public_key=verified.credential_public_key,
        credential_current_sign_count=current_count, require_user_verification=require_uv)
    return response, result


def test_cbor_is_canonical_and_reads_back():
    value = {"fmt": "none", "attStmt": {}, "authData": b"\x01" * 40, 1: 2, -1: [1, -300, "é"],
             3: True, "a": None, 70000: 2**40}
    raw = cbor_encode(value)
    assert raw == cbor2.dumps(value, canonical=True)
    assert cbor_decode(raw) == cbor2.loads(raw) == value
    with pytest.raises(ValueError):
        cbor_decode(raw + b"\x00")
    with pytest.raises(ValueError):
        cbor_decode(b"\xa2\x01\x01\x01\x02")  # duplicate key
    assert cbor_decode(b"\x01\xff", allow_trailing=True) == (1, b"\xff")


def test_registration_and_logins_verify_with_py_webauthn():
    key = SoftwareAuthenticator(ORIGIN)
    response, verified = register(key)
    assert verified.fmt == "none" and verified.sign_count == 0
    assert verified.user_verified and not verified.credential_backed_up
    assert verified.credential_device_type == "single_device"
    assert response["id"] == response["rawId"] == b64url(verified.credential_id)
    assert response["authenticatorAttachment"] == "platform"
    assert response["clientExtensionResults"] == {}
    assert response["response"]["publicKeyAlgorithm"] == ES256
    assert "=" not in json.dumps(response)

    # Exactly the bytes a browser makes.
    client_data = b64url_decode(response["response"]["clientDataJSON"])
    assert client_data.startswith(b'{"type":"webauthn.create","challenge":"')
    assert client_data.endswith(b'","origin":"https://localhost","crossOrigin":false}')
    attestation = b64url_decode(response["response"]["attestationObject"])
    assert attestation == cbor2.dumps(cbor2.loads(attestation), canonical=True)
    assert list(cbor2.loads(attestation)) == ["fmt", "attStmt", "authData"]
    cose = cbor2.loads(verified.credential_public_key)
    assert list(cose) == [1, 3, -1, -2, -3] and cose[3] == ES256

    # Counting from 1, each login one more; the server's check of the counter passes.
    count = 0
    for expected in (1, 2, 3):
        _, result = login(key, verified, count)
        assert result.new_sign_count == expected
        count = result.new_sign_count

    # A discoverable sign-in (no allowCredentials) picks the newest and sends the user handle.
    options, _ = request_options()
    assertion = key.get(options)
    assert assertion["id"] == response["id"]
    assert assertion["response"]["userHandle"] == b64url(key.credentials[verified.credential_id].user_handle)


def test_a_clone_is_caught_by_the_counter():
    key = SoftwareAuthenticator(ORIGIN)
    _, verified = register(key)
    twin = key.clone()
    _, first = login(key, verified, 0)          # the original signs with 1
    _, second = login(key, verified, first.new_sign_count)  # and 2
    with pytest.raises(InvalidAuthenticationResponse, match="sign count"):
        login(twin, verified, second.new_sign_count)  # the clone still says 1


def test_synced_passkey_flags_and_counter_zero():
    key = SoftwareAuthenticator(ORIGIN, backup_eligible=True, backed_up=True, counter="zero")
    _, verified = register(key)
    assert verified.credential_device_type == "multi_device" and verified.credential_backed_up
    for _ in range(2):
        _, result = login(key, verified, 0)
        assert result.new_sign_count == 0


def test_eddsa_and_the_first_algorithm_offered():
    from webauthn.helpers.cose import COSEAlgorithmIdentifier as Alg
    key = SoftwareAuthenticator(ORIGIN)
    response, verified = register(key, algs=[Alg.EDDSA, Alg.ECDSA_SHA_256])
    assert response["response"]["publicKeyAlgorithm"] == EDDSA
    assert cbor2.loads(verified.credential_public_key)[3] == EDDSA
    _, result = login(key, verified, 0)
    assert result.new_sign_count == 1
    with pytest.raises(WebAuthnError, match="NotSupportedError"):
        SoftwareAuthenticator(ORIGIN, algorithms=(EDDSA,)).create(creation_options(algs=[Alg.ECDSA_SHA_256])[0])


def test_without_user_verification():
    key = SoftwareAuthenticator(ORIGIN, user_verification=False)
    with pytest.raises(WebAuthnError, match="NotAllowedError"):
        key.create(creation_options(uv="required")[0])
    response, verified = register(key, uv="preferred")
    assert not verified.user_verified
    flags = b64url_decode(response["response"]["authenticatorData"])[32]
    assert flags & 0x04 == 0 and flags & 0x01
    _, result = login(key, verified, 0, require_uv=False, uv="preferred")
    assert not result.user_verified
    with pytest.raises(InvalidAuthenticationResponse):  # an RP that requires it refuses
        login(key, verified, 1, require_uv=True, uv="preferred")
    with pytest.raises(WebAuthnError, match="NotAllowedError"):  # and the browser too
        login(key, verified, 1, uv="required")


def test_what_a_browser_refuses():
    key = SoftwareAuthenticator(ORIGIN)
    response, verified = register(key)
    # An excluded credential it holds: InvalidStateError, nothing made.
    options, _ = creation_options(exclude=[verified.credential_id])
    with pytest.raises(WebAuthnError, match="InvalidStateError"):
        key.create(options)
    # An RP id that is not the origin's host or a parent: SecurityError.
    with pytest.raises(WebAuthnError, match="SecurityError"):
        key.create(creation_options()[0], origin="https://evil.example")
    # A credential it does not hold: NotAllowedError.
    with pytest.raises(WebAuthnError, match="NotAllowedError"):
        key.get(request_options(allow=[b"\x01" * 16])[0])
    # A subdomain origin may use a parent RP id; the RP sees the other origin.
    options, challenge = request_options(allow=[verified.credential_id])
    other = key.get(options, origin="https://app.localhost")
    with pytest.raises(InvalidAuthenticationResponse):
        webauthn.verify_authentication_response(
            credential=other, expected_challenge=challenge, expected_rp_id=RP_ID,
            expected_origin=ORIGIN, credential_public_key=verified.credential_public_key,
            credential_current_sign_count=0)
    # Another challenge does not verify.
    _, wrong = request_options()
    with pytest.raises(InvalidAuthenticationResponse):
        webauthn.verify_authentication_response(
            credential=key.get(options), expected_challenge=wrong, expected_rp_id=RP_ID,
            expected_origin=ORIGIN, credential_public_key=verified.credential_public_key,
            credential_current_sign_count=0)
    # A registration with another RP id hash does not verify either.
    with pytest.raises(InvalidRegistrationResponse):
        options, challenge = creation_options()
        webauthn.verify_registration_response(
            credential=SoftwareAuthenticator("https://example.com").create(
                {**options, "rp": {"id": "example.com", "name": "x"}}),
            expected_challenge=challenge, expected_rp_id=RP_ID, expected_origin=ORIGIN)


def test_vector_shared_with_the_js_authenticator():
    """Fixed key, credential id and challenge: the registration bytes (no signature in `none`)
    are the same as the JavaScript authenticator's (js/test/authenticator.test.mjs)."""
    from cryptography.hazmat.primitives.asymmetric import ec
    from latchkey.authenticator import Credential
    key = SoftwareAuthenticator(ORIGIN)
    private = ec.derive_private_key(int.from_bytes(bytes(range(1, 33)), "big"), ec.SECP256R1())
    credential = Credential(id=bytes(range(16)), rp_id=RP_ID, user_handle=b"\x07" * 32,
                            user_name="ann@example.com", algorithm=ES256, private_key=private)
    attested = key.aaguid + len(credential.id).to_bytes(2, "big") + credential.id + credential.public_key_cose
    auth_data = key.authenticator_data(RP_ID, True, 0, attested)
    attestation = cbor_encode({"fmt": "none", "attStmt": {}, "authData": auth_data})
    client_data = key.client_data("webauthn.create", b64url(b"\x05" * 32), ORIGIN)
    import hashlib
    assert hashlib.sha256(attestation).hexdigest() == VECTOR_ATTESTATION_SHA256
    assert b64url(client_data) == VECTOR_CLIENT_DATA


VECTOR_ATTESTATION_SHA256 = "c5dec2a56910aef0863de2612ac6a66ee6e328c692cde85b495b2e59ca82dfd0"
VECTOR_CLIENT_DATA = ("eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiQlFVRkJRVUZCUVVGQlFVRkJRVUZCUVVGQlFVRkJRVUZCUVVGQlFVRkJRVSIs"
                      "Im9yaWdpbiI6Imh0dHBzOi8vbG9jYWxob3N0IiwiY3Jvc3NPcmlnaW4iOmZhbHNlfQ")
