"""The reference device (latchkey.device) through a whole life cycle against the real binary
($LATCHKEY_BIN) over the server/ methods: activation, wrong and right PIN, a pushed
authentication, adding and removing a method, a change of biometric enrolment, a recovery key,
losing the phone and recovering on a new one, the old one refused, and onboarding with the OTP
from delivery/list. Plus a few hostile requests built from the device's own primitives.

The tests that need the binary skip only when LATCHKEY_BIN is not set. The device needs the
`cryptography` package (the venv of `make venv` has it)."""

import json

import pytest
from support import DEFAULT_ARGS, counter, refused

import latchkey.device as device_module
from latchkey import Latchkey

Device, DeviceError = device_module.Device, device_module.DeviceError
b64url, b64url_decode = device_module.b64url, device_module.b64url_decode
payload, sign, public_key = device_module.payload, device_module.sign, device_module.public_key
new_private_key, context_hash = device_module.new_private_key, device_module.context_hash


@pytest.fixture
def lk(binary):
    with Latchkey.spawn(binary, DEFAULT_ARGS, timeout=60) as client:
        yield client


def activation_code(lk, **user):
    user_id = lk.call("admin/createUser", user or {"email": "ann@example.com"})["userId"]
    return user_id, lk.call("admin/createActivationCode", {"userId": user_id})["activationCode"]


def test_life_cycle(lk):
    _, code = activation_code(lk)
    storage = {}
    phone = Device(lk, "install-phone-1", storage, signature_format="der")

    # -- activation: device, PIN and Face ID keys, with a token for the recovery code ----------
    activated = phone.activate(code, pin="1234", biometry="faceId", activation_name="Ann's phone",
                               token_purpose="addOrUpdateRecovery")
    registration_id = activated["registrationId"]
    assert sorted(activated["activatedAuthMethods"]) == ["device", "faceId", "pin"]
    token = activated["token"]
    assert lk.call("admin/getRegistration", {"registrationId": registration_id})["name"] == "Ann's phone"
    # The PIN key is stored masked, never in clear; no PIN, no public key on the device.
    assert "1234" not in json.dumps(storage)
    assert set(storage) >= {"activation.possessionKey", "activation.pinMaskedKey", "activation.pinSalt",
                            "activation.faceIdKey"}

    # -- wrong PIN (the server tells, and counts), then the right one --------------------------
    error = refused("authenticationFailed", phone.authenticate, pin="9999")
    assert error.data["remainingAttempts"] == 4
    assert phone.status()["server"]["remainingAttemptsPIN"] == 4
    assert phone.authenticate(pin="1234")["responseType"] == "authenticated"
    assert phone.status()["server"]["remainingAttemptsPIN"] == 5
    assert phone.authenticate(biometry="faceId")["responseType"] == "authenticated"
    assert phone.authenticate()["responseType"] == "authenticated"  # device only

    # -- DER and raw r‖s signatures are both accepted -----------------------------------------
    phone.signature_format = "raw"
    assert phone.authenticate(pin="1234")["responseType"] == "authenticated"
    phone.signature_format = "der"

    # -- a pushed authentication: the device sees the context, checks its hash, approves -------
    push = lk.call("admin/pushAuthentication", {
        "registrationId": registration_id, "contextTitle": "Pay 12 €",
        "contextContent": "To: Bob\nAmount: 12.00 EUR", "contextMIME": "text/plain"})
    challenge = phone.start_authentication()
    assert challenge["authenticationId"] == push["authenticationId"]
    assert challenge["contextTitle"] == "Pay 12 €"
    assert challenge["contextHash"] == context_hash("Pay 12 €", "To: Bob\nAmount: 12.00 EUR", "text/plain")
    done = phone.finish_authentication(challenge, pin="1234")
    assert done["contextContent"] == "To: Bob\nAmount: 12.00 EUR"
    assert lk.call("admin/getAuthentication", {"authenticationId": push["authenticationId"]})["status"] \
        == "approved"

    # A push the user declines is rejected.
    push = lk.call("admin/pushAuthentication", {"registrationId": registration_id, "contextTitle": "Log in?"})
    declined = phone.authenticate(pin="1234", approve=lambda c: c["contextTitle"] != "Log in?")
    assert declined["responseType"] == "rejected"
    assert lk.call("admin/getAuthentication", {"authenticationId": push["authenticationId"]})["status"] \
        == "rejected"

    # -- remove a method, add it back, change the PIN ------------------------------------------
    assert sorted(phone.remove_auth_method("faceId")) == ["device", "pin"]
    assert "activation.faceIdKey" not in storage
    refused("authMethodNotAllowed", phone.authenticate, biometry="faceId")
    assert sorted(phone.add_auth_method("faceId", pin="1234")) == ["device", "faceId", "pin"]
    assert phone.authenticate(biometry="faceId")["responseType"] == "authenticated"
    phone.add_auth_method("pin", "5678", pin="1234")
    refused("authenticationFailed", phone.authenticate, pin="1234")
    assert phone.authenticate(pin="5678")["responseType"] == "authenticated"

    # -- a face enrolled again destroys the Face ID key (StrongTouchID); the PIN adds it again --
    assert phone.change_biometric_enrolment() == ["faceId"]
    assert "activation.faceIdKey" not in storage
    assert phone.change_biometric_enrolment() == []
    before = phone.status()["server"]
    assert "faceId" in before["authMethods"]  # the server learns on the next use
    error = refused("biometryKeyInvalidated", phone.authenticate, biometry="faceId")
    assert error.code == 1106
    assert error.data["authMethod"] == "faceId"
    assert sorted(error.data["activatedAuthMethods"]) == ["device", "pin"]
    after = phone.status()["server"]
    assert sorted(after["authMethods"]) == ["device", "pin"]  # removed through server/authMethod/remove
    assert after["remainingAttemptsPIN"] == before["remainingAttemptsPIN"]  # nothing counted
    refused("authMethodNotAllowed", phone.authenticate, biometry="faceId")
    assert sorted(phone.add_auth_method("faceId", pin="5678")) == ["device", "faceId", "pin"]
    assert phone.authenticate(biometry="faceId")["responseType"] == "authenticated"

    # -- a recovery code, and the backup that carries it ---------------------------------------
    assert phone.set_recovery(token, "plum-tree-42")["recoveryMethods"] == ["backup"]
    assert phone.status()["server"]["recoveryMethods"] == ["backup"]
    blob = phone.backup()
    backed_up = json.loads(blob)["items"]
    assert set(backed_up) == {"recovery.registrationId", "recovery.salt", "recovery.maskedKey"}
    assert "plum-tree-42" not in blob and storage["activation.possessionKey"] not in blob

    # -- the phone is lost: a new one restores the backup and recovers ------------------------
    new_phone = Device(lk, "install-phone-2", {}, signature_format="raw")
    new_phone.restore(blob)
    assert new_phone.is_recovery_activated and not new_phone.is_activated
    error = refused("recoveryCodeInvalid", new_phone.recover, "plum-tree-41", pin="2468")
    assert error.data["remainingAttempts"] == 4
    recovered = new_phone.recover("plum-tree-42", pin="2468", registration_id=registration_id,
                                  token_purpose="addOrUpdateRecovery")
    assert recovered["registrationId"] == registration_id
    assert sorted(recovered["activatedAuthMethods"]) == ["device", "pin"]
    assert not new_phone.is_recovery_activated  # the recovery key is used up
    assert new_phone.authenticate(pin="2468")["responseType"] == "authenticated"
    new_phone.set_recovery(recovered["token"], "a new code 7")

    # -- the old phone is refused, and nothing it tries counts --------------------------------
    before = new_phone.status()["server"]["remainingAttemptsPIN"]
    refused("registrationRemoved", phone.authenticate, pin="5678")
    refused("registrationRemoved", phone.authenticate, pin="0000")
    assert new_phone.status()["server"]["remainingAttemptsPIN"] == before
    refused("registrationRemoved", phone.remove_registration)  # the new phone's registration stays
    phone.remove_registration(only_locally=True)
    assert not phone.is_activated

    # -- the new phone removes its registration -----------------------------------------------
    new_phone.remove_registration()
    assert not new_phone.is_activated
    assert lk.call("admin/getRegistration", {"registrationId": registration_id})["state"] == "removed"


def test_wrong_pins_lock_the_registration(lk):
    _, code = activation_code(lk)
    phone = Device(lk, "install-1", {})
    phone.activate(code, pin="1234")
    for remaining in (4, 3, 2, 1):
        assert refused("authenticationFailed", phone.authenticate, pin="0000").data["remainingAttempts"] \
            == remaining
    assert refused("registrationLocked", phone.authenticate, pin="0000").data["remainingAttempts"] == 0
    refused("registrationLocked", phone.authenticate, pin="1234")
    assert phone.status()["server"]["state"] == "locked"
    # A locked phone can still remove itself.
    phone.remove_registration()
    assert not phone.is_activated

    # A phone whose registration the operator removed (stolen) only forgets it.
    _, code = activation_code(lk, email="bob@example.com")
    phone.activate(code, pin="1234")
    lk.call("admin/removeRegistration", {"registrationId": phone.registration_id})
    refused("registrationRemoved", phone.authenticate, pin="1234")
    phone.remove_registration()
    assert not phone.is_activated


def test_an_enrolment_change_keeps_the_challenge_in_hand_and_may_leave_device_alone(lk):
    _, code = activation_code(lk)
    phone = Device(lk, "install-1", {})
    phone.activate(code, pin="1234", biometry="touchId")
    assert phone.change_biometric_enrolment() == ["touchId"]
    challenge = phone.start_authentication()
    refused("biometryKeyInvalidated", phone.finish_authentication, challenge, biometry="touchId")
    # Nothing was signed with the challenge in hand: the PIN still answers it.
    assert phone.finish_authentication(challenge, pin="1234")["responseType"] == "authenticated"

    # A registration that had Face ID alone is left with device: a recovery or a new activation.
    _, code = activation_code(lk, email="bob@example.com")
    alone = Device(lk, "install-2", {})
    alone.activate(code, biometry="faceId")
    alone.change_biometric_enrolment()
    error = refused("biometryKeyInvalidated", alone.authenticate, biometry="faceId")
    assert error.data["activatedAuthMethods"] == ["device"]
    assert "needs a recovery or a new activation" in str(error)
    assert alone.status()["server"]["authMethods"] == ["device"]
    refused("authMethodNotAllowed", alone.add_auth_method, "faceId")  # device adds nothing two-factor


def test_delete_recovery_and_device_refusals(lk):
    _, code = activation_code(lk)
    phone = Device(lk, "install-1", {}, random_bytes=counter("a"))
    refused("notActivatedLocally", phone.authenticate, pin="1234")
    refused("policyViolation", phone.activate, code, pin="12")
    result = phone.activate(code, pin="1234", token_purpose="addOrUpdateRecovery")
    refused("alreadyActivated", phone.activate, code, pin="1234")
    refused("policyViolation", phone.set_recovery, result["token"], "short")
    phone.set_recovery(result["token"], "long enough")
    token = phone.authenticate(pin="1234", token_purpose="deleteRecovery")["token"]
    assert phone.delete_recovery(token)["recoveryMethods"] == []
    assert not phone.is_recovery_activated
    refused("cannotDeactivateDevice", phone.remove_auth_method, "device")
    refused("invalidBackup", Device(lk, "x", {}).restore, "{}")


def test_seeded_devices_make_the_same_keys_and_signatures():
    first, second = Device(None, "i", {}, random_bytes=counter(7)), Device(None, "i", {}, random_bytes=counter(7))
    key = new_private_key(first.random_bytes)
    assert key == new_private_key(second.random_bytes)
    message = payload("authenticate", "reg", "challenge", "device")
    assert sign(key, message) == sign(key, message)  # RFC 6979
    assert len(b64url_decode(sign(key, message, "raw"))) == 64
    assert device_module.verify(public_key(key), sign(key, message, "raw"), message)
    assert device_module.verify(public_key(key), sign(key, message, "der"), message)
    assert not device_module.verify(public_key(key), sign(key, message), payload("authenticate", "reg",
                                                                                 "challenge", "pin"))


def test_vectors_shared_with_the_js_device():
    key, salt = bytes(range(1, 33)), bytes(range(16))
    assert b64url(device_module.mask(key, "1234", salt, device_module.PIN_ROUNDS)) \
        == "kOgGn6sFNKqflcPA2sl3Qcy2LE7OgK32u1y9ONDqlsw"
    assert public_key(key) == ("BFFcPW6545a5BNP-yn9U_c0MwemXvzddylFa0KbDtANfRTa-OlDzGPv5pUdZAqIhUCvvDVfgjFOyzApW8X2fk1Q")
    message = payload("authenticate", "reg-1", "ch-1", "pin", "")
    assert message == b"LATCHKEY-V1\nauthenticate\nreg-1\nch-1\npin\n"
    assert sign(key, message, "raw") == ("VVsyUmTnZhPtjVvcQsjfnR21BdyOWmmdHtbr1xFJ45dwzpdmHbMQS8m7oLr2ZGNrcYMmYs_QwaXjf0yoc5xKBg")
    assert context_hash("Pay 12 €", "x", None) == "uhwrzBZC8I-qmEFNGv8I35kncaXmkS3ftnL7rgkmarU"
    assert b64url_decode(sign(bytes(32), message)) == bytes(64)  # no key: a signature that never verifies


def test_a_challenge_expires_after_300_seconds(lk):
    _, code = activation_code(lk)
    phone = Device(lk, "install-1", {})
    phone.activate(code, pin="1234")
    challenge = phone.start_authentication()
    lk.call("clock/advance", {"seconds": 299})
    second = phone.start_authentication()  # several may be outstanding
    lk.call("clock/advance", {"seconds": 1})
    refused("sessionExpired", phone.finish_authentication, challenge, pin="1234")
    assert phone.finish_authentication(second, pin="1234")["responseType"] == "authenticated"
    refused("noSessionInProgress", phone.finish_authentication, second, pin="1234")  # single-use
    refused("policyViolation", phone.add_auth_method, "pin", "12", pin="1234")
    assert phone.status()["server"]["remainingAttemptsPIN"] == 5


def test_onboarding_with_the_otp_from_delivery(lk):
    user_id = lk.call("admin/createUser", {"email": "otto@example.com", "birthDate": "1990-01-01"})["userId"]
    phone = Device(lk, "install-onboarding", {})
    phone.start_onboarding({"email": "otto@example.com"})
    refused("onboardingInProgress", phone.start_onboarding, {"email": "otto@example.com"})
    assert phone.onboarding_status() == "activationInProgress"
    otp = [m for m in lk.call("delivery/list", {"to": "otto@example.com"})["messages"]
           if m["purpose"] == "onboardingOtp"][-1]["code"]
    refused("otpInvalid", phone.activate_onboarding, "00000000" if otp != "00000000" else "11111111",
            pin="1234")
    activated = phone.activate_onboarding(otp, pin="1234", activation_name="Otto")
    assert phone.onboarding_status() == "verificationInProgress"
    refused("verificationPending", phone.authenticate, pin="1234")
    lk.call("admin/completeVerification", {"userId": user_id, "approved": True})
    assert phone.onboarding_status() == "finished"
    assert phone.status()["onboardingProcessId"] is None
    assert phone.authenticate(pin="1234")["responseType"] == "authenticated"
    assert lk.call("admin/getRegistration", {"registrationId": activated["registrationId"]})["state"] == "active"

    # Another installation starts and cancels.
    other = Device(lk, "install-other", {})
    other.start_onboarding({"email": "nobody@example.com"})  # the same answer for nobody
    other.cancel_onboarding()
    refused("onboardingNotRunning", other.onboarding_status)


# -- hostile requests, built from the device's primitives ---------------------------------------

def _prepared(lk, installation="install-h"):
    _, code = activation_code(lk, email=f"{installation}@example.com")
    return lk.call("server/activation/prepare", {"activationCode": code, "installationId": installation})


def _key(private, offer, role, signer=None):
    return {"publicKey": public_key(private),
            "proof": sign(signer or private, payload("activate", offer["activationId"], offer["challenge"], role))}


def test_a_proof_by_another_key_is_refused(lk):
    offer = _prepared(lk)
    mine, theirs = new_private_key(), new_private_key()
    # Key substitution: their public key, with a proof made by my key.
    error = refused("proofInvalid", lk.call, "server/activation/commit", {
        "activationId": offer["activationId"],
        "keys": {"device": _key(mine, offer, "device"), "pin": _key(theirs, offer, "pin", signer=mine)}})
    assert error.code == 1303 and error.data["keyRole"] == "pin"
    # A proof for another role.
    error = refused("proofInvalid", lk.call, "server/activation/commit", {
        "activationId": offer["activationId"],
        "keys": {"device": {"publicKey": public_key(mine),
                            "proof": sign(mine, payload("activate", offer["activationId"], offer["challenge"],
                                                        "pin"))}}})
    assert error.data["keyRole"] == "device"
    # Nothing was consumed: the right proofs still activate.
    result = lk.call("server/activation/commit", {"activationId": offer["activationId"],
                                                  "keys": {"device": _key(mine, offer, "device")}})
    assert result["activatedAuthMethods"] == ["device"]


def test_malformed_public_keys_are_invalid_params(lk):
    offer = _prepared(lk)
    private = new_private_key()
    point = b64url_decode(public_key(private))
    x, y = point[1:33], point[33:]
    compressed = bytes([2 + (y[-1] & 1)]) + x
    for bad in (compressed, b"\x00", point[:64], point + b"\x00", b"\x04" + x + bytes(32)):
        error = refused("invalidParams", lk.call, "server/activation/commit", {
            "activationId": offer["activationId"],
            "keys": {"device": {"publicKey": b64url(bad), "proof": _key(private, offer, "device")["proof"]}}})
        assert error.code == -32602


def test_a_signature_that_ignores_the_pushed_context_is_refused(lk):
    _, code = activation_code(lk)
    phone = Device(lk, "install-1", {})
    registration_id = phone.activate(code, pin="1234")["registrationId"]
    push = lk.call("admin/pushAuthentication", {"registrationId": registration_id, "contextTitle": "Wire 1000 €"})
    challenge = phone.start_authentication()
    assert challenge["contextHash"] != ""
    challenge["contextHash"] = ""  # a device that signs as if nothing had been pushed
    refused("registrationRemoved", phone.finish_authentication, challenge, pin="1234")
    assert lk.call("admin/getAuthentication", {"authenticationId": push["authenticationId"]})["status"] == "pending"
    assert phone.status()["server"]["remainingAttemptsPIN"] == 5  # the device signature: nothing counted


def test_a_seeded_device_against_a_seeded_server_replays_byte_for_byte(binary):
    """What golden transcripts of server/ need: the same requests, the same answers."""
    runs = []
    for _ in range(2):
        sent = []
        with Latchkey.spawn(binary, DEFAULT_ARGS, timeout=60) as lk:
            class Recorder:
                def call(self, method, params=None):
                    sent.append((method, json.dumps(params, sort_keys=True)))
                    return lk.call(method, params)
            _, code = activation_code(lk)
            phone = Device(Recorder(), "install-1", {}, random_bytes=counter("golden"))
            phone.activate(code, pin="1234")
            phone.authenticate(pin="1234")
            runs.append((sent, dict(phone.storage)))
    assert runs[0] == runs[1]
