"""An enrolment change destroys the phone's biometric factor keys, not its passkeys.

PROTOCOL.md, "Biometric keys are bound to the enrolled biometrics": `device/changeBiometricEnrolment`
destroys every touchId and faceId key the device holds; "Passkeys on the device are not
affected". The passkey made before the change still signs in after it (the platform
authenticator verifies the user with the new enrolment, as a phone does), while the Face ID
factor of the same phone's registration is refused with biometryKeyInvalidated.
"""
from lkharness import LK, activate, pin


def make_passkey(lk, session_id, device_id):
    options = lk.ok("passkey/creationOptions", sessionId=session_id)
    made = lk.ok("device/passkeyCreate", deviceId=device_id, publicKey=options["publicKey"])
    return lk.ok("passkey/create", ceremonyId=options["ceremonyId"], credential=made["credential"])["passkey"]


def sign_in_with_passkey(lk, email, device_id):
    options = lk.ok("passkey/requestOptions", email=email)
    signed = lk.ok("device/passkeyGet", deviceId=device_id, publicKey=options["publicKey"])
    return lk.request("passkey/login", ceremonyId=options["ceremonyId"], credential=signed["credential"])


def test_a_passkey_signs_in_after_the_enrolment_changed_while_the_face_id_factor_is_refused():
    lk = LK("--in-memory")
    try:
        email = "alice@example.com"
        device_id, registration_id, _ = activate(lk, "alice", email=email, password="correct horse")
        session = lk.ok("user/login", userId="alice", password="correct horse")["sessionId"]
        # Face ID as a second factor of the registration, proved with the PIN.
        lk.ok("authMethod/startAddOrUpdate", deviceId=device_id)
        lk.ok("authMethod/finishAddOrUpdate", deviceId=device_id, activationParameter={"method": "faceId"},
              authParameter=pin("1234"))
        passkey = make_passkey(lk, session, device_id)

        changed = lk.ok("device/changeBiometricEnrolment", deviceId=device_id)
        assert changed["invalidatedAuthMethods"] == ["faceId"]

        # The factor key is gone: the finish is refused and the method deactivated.
        lk.ok("authentication/start", deviceId=device_id)
        refused = lk.request("authentication/finish", deviceId=device_id, authParameter={"method": "faceId"})
        assert refused["error"]["code"] == 1106, refused

        # The passkey is not: it signs in, and its use is recorded.
        reply = sign_in_with_passkey(lk, email, device_id)
        assert "result" in reply, reply
        assert reply["result"]["uid"] == "alice"
        listed = lk.ok("user/passkeys", sessionId=reply["result"]["sessionId"])["passkeys"]
        assert [p["id"] for p in listed] == [passkey["id"]]
        assert listed[0]["lastUsedAt"] is not None
    finally:
        lk.close()
