"""The whole device flow against the real binary ($LATCHKEY_BIN), through the typed helpers:
activation with a PIN and an addOrUpdateRecovery token, authentication (right and wrong PIN),
setting a backup recovery code, backup and restore, recovery on the new device, and the old
device answering registrationRemoved. The audit/event notifications must arrive in order,
each one before the response of the call that caused it.

Skips when LATCHKEY_BIN is not set; a method the flow needs that the binary lacks fails it."""

import pytest
from support import DEFAULT_ARGS

from latchkey import ERROR_CODES, Latchkey, LatchkeyError, errors

PIN = {"method": "pin", "pin": "1234"}
WRONG_PIN = {"method": "pin", "pin": "9999"}
NEW_PIN = {"method": "pin", "pin": "2468"}
RECOVERY = {"method": "backup", "recoveryCode": "plum-tree-42"}


def test_activation_authentication_backup_and_recovery(binary):
    with Latchkey.spawn(binary, DEFAULT_ARGS, timeout=30) as lk:
        _flow(lk)


def _flow(lk):
    received = []
    lk.on_notification(received.append)

    def audit_types(since=0):
        return [n.params["event"]["type"] for n in received[since:] if n.method == "audit/event"]

    assert lk.events.subscribe(topics=["audit"]) == {"topics": ["audit"]}
    assert received == []

    # -- the server side: a user and an activation code --------------------------------------
    user_id = lk.admin.createUser(email="ann@example.com")["userId"]
    assert isinstance(user_id, str) and user_id
    # The notification a request causes comes before its response.
    assert audit_types() == ["userCreated"]
    assert received[0].params["event"]["userId"] == user_id

    code = lk.admin.createActivationCode(userId=user_id)
    assert isinstance(code["activationCode"], str) and code["activationCode"].isdigit()
    assert len(code["activationCode"]) == 8
    assert code["expiresAt"] == "2026-01-02T00:00:00Z"  # 24 h after the manual clock's start

    # -- activation on a first device --------------------------------------------------------
    device = lk.device.create()["deviceId"]
    assert isinstance(device, str) and device

    started = lk.activation.start(deviceId=device, activationCode=code["activationCode"])
    assert "pin" in started["authMethodsForActivation"]
    assert (started["pinCodeType"], started["pinCodeLengthMin"], started["pinCodeLengthMax"]) \
        == ("numeric", 4, 8)

    activated = lk.activation.finish(deviceId=device, authParameter=PIN,
                                     tokenPurpose="addOrUpdateRecovery")
    registration_id = activated["registrationId"]
    assert isinstance(registration_id, str) and registration_id
    assert sorted(activated["activatedAuthMethods"]) == ["device", "pin"]
    token = activated["token"]
    assert isinstance(token, str) and len(token) >= 22  # >= 128 bits, unpadded base64url
    assert lk.device.registrationId(deviceId=device) == {"registrationId": registration_id}

    # -- authentication: the right PIN, then a wrong one ---------------------------------------
    auth = lk.authentication.start(deviceId=device)
    assert "pin" in auth["authenticationMethods"]
    assert auth["remainingAttemptsPIN"] == 5
    assert lk.authentication.finish(deviceId=device, authParameter=PIN)["responseType"] \
        == "authenticated"

    lk.authentication.start(deviceId=device)
    with pytest.raises(LatchkeyError) as caught:
        lk.authentication.finish(deviceId=device, authParameter=WRONG_PIN)
    assert caught.value.reason == "authenticationFailed"
    assert caught.value.code == 1400 == errors.AUTHENTICATION_FAILED \
        == ERROR_CODES["authenticationFailed"]
    assert caught.value.data["reason"] == "authenticationFailed"
    assert caught.value.data["remainingAttempts"] == 4

    # -- a recovery code, set with the activation's token --------------------------------------
    assert lk.recovery.startAddOrUpdate(deviceId=device, token=token) == {}
    recovery = lk.recovery.finishAddOrUpdate(deviceId=device, recoveryParameter=RECOVERY)
    assert recovery["recoveryMethods"] == ["backup"]
    assert "token" not in recovery
    assert lk.device.isRecoveryActivated(deviceId=device) == {"activated": True}

    # -- backup, restore onto a new device, recover there -------------------------------------
    backup_id = lk.device.backup(deviceId=device, kind="iCloud")["backupId"]
    assert isinstance(backup_id, str) and backup_id
    new_device = lk.device.restore(backupId=backup_id)["deviceId"]
    assert isinstance(new_device, str) and new_device != device
    assert lk.device.isActivatedLocally(deviceId=new_device) == {"activated": False}

    recovery_start = lk.recovery.start(deviceId=new_device)
    assert "pin" in recovery_start["authMethodsForActivation"]

    before_finish = len(received)
    recovered = lk.recovery.finish(deviceId=new_device, recoveryParameter=RECOVERY,
                                   authParameter=NEW_PIN)
    assert recovered["registrationId"] == registration_id
    assert sorted(recovered["activatedAuthMethods"]) == ["device", "pin"]
    assert "token" not in recovered
    assert "recoveryCompleted" in audit_types(before_finish)  # before the response

    # -- the old device's keys no longer work ------------------------------------------------
    with pytest.raises(LatchkeyError) as caught:
        lk.authentication.start(deviceId=device)
    assert caught.value.reason == "registrationRemoved"
    assert caught.value.code == errors.REGISTRATION_REMOVED == 1403

    # -- the audit trail, in order -----------------------------------------------------------
    assert received == lk.notifications
    assert all(n.method == "audit/event" for n in received)  # only the audit topic
    types = audit_types()
    assert types[0] == "userCreated"
    expected_in_order = ["userCreated", "activationCodeCreated", "activationCompleted",
                         "authenticationSucceeded", "authenticationFailed", "recoveryCodeSet",
                         "recoveryCompleted"]
    positions = [types.index(kind) if kind in types else None for kind in expected_in_order]
    assert None not in positions, (expected_in_order, types)
    assert positions == sorted(positions), types
    completed = [n.params["event"] for n in received
                 if n.params["event"]["type"] == "recoveryCompleted"]
    assert len(completed) == 1
    assert completed[0]["registrationId"] == registration_id
    assert completed[0]["deviceId"] == new_device

    # No secret ever reaches a notification (PINs: no value equals one; longer secrets: no
    # value contains one).
    values = list(_strings([n.params for n in received]))
    for pin in ("1234", "9999", "2468"):
        assert pin not in values, pin
    for secret in ("plum-tree-42", token, code["activationCode"]):
        assert not any(secret in value for value in values), secret


def _strings(value):
    """Every string (keys and values) inside a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
