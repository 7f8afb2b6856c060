#!/usr/bin/env python3
"""Records the golden transcripts of operations (approving what the user sees), online and offline.

usage: make.py BINARY [FILTER...]      (needs the `cryptography` package: make venv)

The scenarios drive the simulated phone (operation/list, approve, reject, offlineApprove) and an
outside device (server/operation/*: the server recorder's fixed keys and RFC 6979 signatures), the
binary seeded and on a manual clock, so every id, challenge, nonce, signature and code is the same
on every run. A scenario checks each answer as it goes; its requests are then written to
NAME.in.jsonl and a replay of them to NAME.out.jsonl, which run.py compares byte for byte.
"""
import hashlib, importlib.util, os, struct, sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("server_make", os.path.join(HERE, "..", "server", "make.py"))
server_make = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(server_make)
Key, Phone, b64, payload = server_make.Key, server_make.Phone, server_make.b64, server_make.payload

PIN = {"method": "pin", "pin": "1234"}
WRONG_PIN = {"method": "pin", "pin": "9999"}
PAYMENT = dict(
    name="payment", title="Pay ${amount} ${currency}", message="To ${iban}\nDue ${due}", data="A1*A${amount}${currency}*I${iban}*D${due}",
    attributes=[{"type": "heading", "label": "Payment"},
                {"type": "amount", "label": "Amount", "amount": "${amount}", "currency": "${currency}"},
                {"type": "keyValue", "label": "To", "value": "${iban}"}])
PARAMETERS = {"amount": "1500.00", "currency": "EUR", "iban": "CZ2730300000001165254011", "due": "20260131"}
TAMPERED = "A1*A9500.00EUR*ICZ2730300000001165254011*D20260131"


def operation_hash(operation, data=None):
    raw = b""
    for field in (operation["operationId"], operation["title"], operation["message"], data or operation["data"]):
        encoded = field.encode()
        raw += struct.pack(">I", len(encoded)) + encoded
    return b64(hashlib.sha256(raw).digest())


def phone_with_pin(s, user="alice", device="phone", biometry=None):
    """A user, and a simulated phone activated for them with a PIN (and a biometric method when given)."""
    s.ok("admin/createUser", userId=user, email=f"{user}@example.com", password="correct horse")
    code = s.ok("admin/createActivationCode", userId=user)["activationCode"]
    s.ok("device/create", deviceId=device, **({"biometry": biometry} if biometry else {}))
    s.ok("activation/start", deviceId=device, activationCode=code)
    registration = s.ok("activation/finish", deviceId=device, authParameter=PIN)["registrationId"]
    return registration


def payment(s, user="alice", **extra):
    return s.ok("admin/createOperation", userId=user, template="payment", parameters=PARAMETERS, **extra)


# -- the simulated phone --

def lifecycle(s):
    """A template, an operation made from it (announced), listed by the phone, shown and approved with the right PIN; then not
    pending any more; admin/getOperation and admin/listOperations read it; audited from creation to approval."""
    phone_with_pin(s)
    s.ok("events/subscribe", topics=["operations"])
    s.ok("admin/configureOperationTemplate", **PAYMENT)
    operation = payment(s, externalId="order-42")
    listed = s.ok("operation/list", deviceId="phone")["operations"]
    assert [o["operationId"] for o in listed] == [operation["operationId"]], listed
    approved = s.ok("operation/approve", deviceId="phone", operationId=operation["operationId"], authParameter=PIN)
    assert approved["status"] == "approved" and approved["approvedWith"] == "pin", approved
    s.fails("operation/approve", "operationNotPending", deviceId="phone", operationId=operation["operationId"], authParameter=PIN)
    s.ok("operation/list", deviceId="phone")
    s.ok("admin/getOperation", operationId=operation["operationId"])
    s.ok("admin/listOperations", userId="alice")
    s.ok("audit/list", userId="alice", limit=4)


def template_rules(s):
    """Templates and parameters refused as the contract says: a name out of its alphabet, an attribute that renders what data does
    not hold, a malformed placeholder; a parameter missing or unused, a filled title with a control character, data that breaks
    a rule (an IBAN whose mod-97 check fails, an unknown field type, more than 5 fields), an unknown template or user."""
    phone_with_pin(s)
    s.fails("admin/configureOperationTemplate", "invalidParams", **(PAYMENT | {"name": "pay ment"}))
    s.fails("admin/configureOperationTemplate", "invalidParams",
            **(PAYMENT | {"attributes": [{"type": "note", "label": "Note", "note": "${memo}"}]}))
    s.fails("admin/configureOperationTemplate", "invalidParams", **(PAYMENT | {"title": "Pay ${amount"}))
    s.fails("admin/configureOperationTemplate", "invalidParams", **(PAYMENT | {"attributes": [{"type": "amount", "label": "A"}]}))
    s.fails("admin/configureOperationTemplate", "invalidParams", **(PAYMENT | {"maxFailureCount": 11}))
    s.ok("admin/configureOperationTemplate", **PAYMENT)
    s.ok("admin/configureOperationTemplate", name="note", title="${title}", message="m", data="A0*N${note}")
    s.fails("admin/createOperation", "invalidParams", userId="alice", template="payment",
            parameters={k: v for k, v in PARAMETERS.items() if k != "due"})
    s.fails("admin/createOperation", "invalidParams", userId="alice", template="payment", parameters=PARAMETERS | {"memo": "x"})
    s.fails("admin/createOperation", "invalidParams", userId="alice", template="payment",
            parameters=PARAMETERS | {"iban": "CZ2730300000001165254012"})
    s.fails("admin/createOperation", "invalidParams", userId="alice", template="payment", parameters=PARAMETERS | {"due": "20260230"})
    s.fails("admin/createOperation", "invalidParams", userId="alice", template="note", parameters={"title": "bad\u0007", "note": "n"})
    s.fails("admin/createOperation", "invalidParams", userId="alice", template="note", parameters={"title": "\u202etxet", "note": "n"})
    # An escaped value adds no field: a star in a note stays in the note.
    s.ok("admin/createOperation", userId="alice", template="note", parameters={"title": "Note", "note": "a*Ib\\c\nd"})
    s.fails("admin/createOperation", "notFound", userId="alice", template="missing", parameters={})
    s.fails("admin/createOperation", "notFound", userId="bob", template="payment", parameters=PARAMETERS)


def tampered_display(s):
    """The phone was shown another amount (a man in the middle changed it): its approval answers operationDataMismatch and counts
    one on the operation only (the registration's PIN attempts stay); the right display then approves."""
    phone_with_pin(s)
    s.ok("admin/configureOperationTemplate", **PAYMENT)
    operation = payment(s)
    s.fails("operation/approve", "operationDataMismatch", deviceId="phone", operationId=operation["operationId"], authParameter=PIN,
            data=TAMPERED)
    s.ok("admin/getOperation", operationId=operation["operationId"])
    s.ok("authentication/start", deviceId="phone")
    s.ok("session/cancel", deviceId="phone")
    s.ok("operation/approve", deviceId="phone", operationId=operation["operationId"], authParameter=PIN)


def wrong_pin_until_failed(s):
    """Wrong PINs count on the registration and the operation; remainingAttempts is the smaller; the failure that reaches the
    operation's maxFailureCount (3) fails it (operationFailed, announced), then operationNotPending; a right PIN on another
    operation resets the registration's counter."""
    phone_with_pin(s)
    s.ok("events/subscribe", topics=["operations"])
    s.ok("admin/configureOperationTemplate", **(PAYMENT | {"maxFailureCount": 3}))
    operation = payment(s)
    for expect in ("authenticationFailed", "authenticationFailed", "operationFailed"):
        s.fails("operation/approve", expect, deviceId="phone", operationId=operation["operationId"], authParameter=WRONG_PIN)
    s.fails("operation/approve", "operationNotPending", deviceId="phone", operationId=operation["operationId"], authParameter=PIN)
    s.ok("admin/getRegistration", registrationId=s.ok("device/registrationId", deviceId="phone")["registrationId"])
    another = payment(s)
    s.ok("operation/approve", deviceId="phone", operationId=another["operationId"], authParameter=PIN)
    s.ok("admin/getRegistration", registrationId=s.ok("device/registrationId", deviceId="phone")["registrationId"])


def wrong_pins_lock_the_registration(s):
    """With 10 attempts on the operation and 5 on the registration, the fifth wrong PIN locks the registration
    (registrationLocked); the operation stays pending, and the locked phone answers its state's error."""
    phone_with_pin(s)
    s.ok("admin/configureOperationTemplate", **(PAYMENT | {"maxFailureCount": 10}))
    operation = payment(s)
    for expect in ["authenticationFailed"] * 4 + ["registrationLocked"]:
        s.fails("operation/approve", expect, deviceId="phone", operationId=operation["operationId"], authParameter=WRONG_PIN)
    s.fails("operation/approve", "registrationLocked", deviceId="phone", operationId=operation["operationId"], authParameter=PIN)
    s.fails("operation/list", "registrationLocked", deviceId="phone")
    s.ok("admin/getOperation", operationId=operation["operationId"])


def reject_cancel_expire(s):
    """A rejection with a reason (signed by the device alone; counts nothing); one of a tampered display still rejects and its
    audit event says dataMismatch; the back end cancels one; one expires by itself when its time is up (decidedAt its
    expiresAt); each change announced once, and audited."""
    phone_with_pin(s)
    s.ok("events/subscribe", topics=["operations"])
    s.ok("admin/configureOperationTemplate", **PAYMENT)
    rejected = payment(s)
    s.ok("operation/reject", deviceId="phone", operationId=rejected["operationId"], reason="unexpectedOperation")
    suspicious = payment(s)
    s.ok("operation/reject", deviceId="phone", operationId=suspicious["operationId"], reason="incorrectData", data=TAMPERED)
    canceled = payment(s)
    s.ok("admin/cancelOperation", operationId=canceled["operationId"])
    s.fails("admin/cancelOperation", "operationNotPending", operationId=canceled["operationId"])
    short = payment(s, ttlSeconds=30)
    s.ok("clock/advance", seconds=30)
    s.fails("operation/approve", "operationNotPending", deviceId="phone", operationId=short["operationId"], authParameter=PIN)
    s.ok("admin/listOperations", userId="alice", status="expired")
    s.ok("audit/list", userId="alice", limit=6)


def bound_and_foreign(s):
    """An operation bound to one phone: another phone of the user neither lists nor approves it (notFound); a phone of another
    user never sees the user's operations; removing one phone leaves the other able to approve what is not bound to it; a
    registration that is not the user's cannot be bound."""
    first = phone_with_pin(s, device="phone")
    code = s.ok("admin/createActivationCode", userId="alice")["activationCode"]
    s.ok("device/create", deviceId="tablet")
    s.ok("activation/start", deviceId="tablet", activationCode=code)
    s.ok("activation/finish", deviceId="tablet", authParameter=PIN)
    phone_with_pin(s, user="bob", device="bobs")
    s.ok("admin/configureOperationTemplate", **PAYMENT)
    bound = payment(s, registrationId=first)
    free = payment(s)
    s.ok("operation/list", deviceId="tablet")
    s.fails("operation/approve", "notFound", deviceId="tablet", operationId=bound["operationId"], authParameter=PIN)
    s.fails("operation/approve", "notFound", deviceId="bobs", operationId=free["operationId"], authParameter=PIN)
    s.ok("operation/list", deviceId="bobs")
    bobs = s.ok("device/registrationId", deviceId="bobs")["registrationId"]
    s.fails("admin/createOperation", "invalidParams", userId="alice", template="payment", parameters=PARAMETERS, registrationId=bobs)
    s.ok("admin/removeRegistration", registrationId=first)
    s.ok("operation/approve", deviceId="tablet", operationId=free["operationId"], authParameter=PIN)


def methods_allowed(s):
    """Only the template's allowedMethods approve (faceId not allowed: authMethodNotAllowed, nothing counts); device alone never
    does; a face approves when allowed (approvedWith faceId); a biometric key destroyed by a change of enrolment answers
    biometryKeyInvalidated and deactivates the method."""
    phone_with_pin(s, biometry="faceId")
    s.ok("authMethod/startAddOrUpdate", deviceId="phone")
    s.ok("authMethod/finishAddOrUpdate", deviceId="phone", activationParameter={"method": "faceId"}, authParameter=PIN)
    s.ok("admin/configureOperationTemplate", **(PAYMENT | {"allowedMethods": ["pin"]}))
    operation = payment(s)
    s.fails("operation/approve", "authMethodNotAllowed", deviceId="phone", operationId=operation["operationId"], authParameter={"method": "faceId"})
    s.fails("operation/approve", "authMethodNotAllowed", deviceId="phone", operationId=operation["operationId"], authParameter={"method": "device"})
    s.ok("admin/getOperation", operationId=operation["operationId"])
    s.ok("admin/configureOperationTemplate", **PAYMENT)
    face = payment(s)
    s.ok("operation/approve", deviceId="phone", operationId=face["operationId"], authParameter={"method": "faceId"})
    again = payment(s)
    s.ok("device/changeBiometricEnrolment", deviceId="phone")
    s.fails("operation/approve", "biometryKeyInvalidated", deviceId="phone", operationId=again["operationId"], authParameter={"method": "faceId"})
    s.ok("operation/approve", deviceId="phone", operationId=again["operationId"], authParameter=PIN)


# -- a device outside the process --

def outside_device(s):
    """server/operation/list and challenge (the operation, its hash, the operation-signing and server keys); an approval with the
    device key and the PIN key over the hash the phone signed; a stranger's device signature fails no operation
    (registrationRemoved, the challenge used up); a hash of other data is operationDataMismatch; a challenge of another operation
    is noSessionInProgress; a rejection signs <reason>:<hash>."""
    phone = server_make.activated(s)
    s.ok("admin/configureOperationTemplate", **PAYMENT)
    operation = payment(s)
    inbox = s.ok("server/operation/list", registrationId=phone.registration)
    assert inbox["operations"][0]["operationId"] == operation["operationId"], inbox

    def signed(challenge, hash_, factor="pin", signers=None, action="approveOperation", last=None):
        signers = signers or {}
        line = last or hash_
        out = {"device": signers.get("device", phone.key("device")).sign(
            payload(action, phone.registration, challenge["challenge"], "device", line))}
        if factor:
            out[factor] = signers.get(factor, phone.key(factor)).sign(payload(action, phone.registration, challenge["challenge"], factor, line))
        return out

    c = s.ok("server/operation/challenge", registrationId=phone.registration, operationId=operation["operationId"])
    assert c["operationHash"] == operation_hash(operation), c
    s.fails("server/operation/approve", "registrationRemoved", registrationId=phone.registration, challengeId=c["challengeId"],
            operationId=operation["operationId"], operationHash=c["operationHash"],
            signatures=signed(c, c["operationHash"], signers={"device": Key("stranger")}))
    s.fails("server/operation/approve", "noSessionInProgress", registrationId=phone.registration, challengeId=c["challengeId"],
            operationId=operation["operationId"], operationHash=c["operationHash"], signatures=signed(c, c["operationHash"]))
    s.ok("admin/getOperation", operationId=operation["operationId"])
    c = s.ok("server/operation/challenge", registrationId=phone.registration, operationId=operation["operationId"])
    other = operation_hash(operation, TAMPERED)
    s.fails("server/operation/approve", "operationDataMismatch", registrationId=phone.registration, challengeId=c["challengeId"],
            operationId=operation["operationId"], operationHash=other, signatures=signed(c, other))
    second = payment(s)
    c = s.ok("server/operation/challenge", registrationId=phone.registration, operationId=second["operationId"])
    s.fails("server/operation/approve", "noSessionInProgress", registrationId=phone.registration, challengeId=c["challengeId"],
            operationId=operation["operationId"], operationHash=operation_hash(operation), signatures=signed(c, operation_hash(operation)))
    c = s.ok("server/operation/challenge", registrationId=phone.registration, operationId=operation["operationId"])
    s.fails("server/operation/approve", "authenticationFailed", registrationId=phone.registration, challengeId=c["challengeId"],
            operationId=operation["operationId"], operationHash=c["operationHash"],
            signatures=signed(c, c["operationHash"], signers={"pin": Key("wrong pin")}))
    c = s.ok("server/operation/challenge", registrationId=phone.registration, operationId=operation["operationId"])
    s.ok("server/operation/approve", registrationId=phone.registration, challengeId=c["challengeId"], operationId=operation["operationId"],
         operationHash=c["operationHash"], signatures=signed(c, c["operationHash"]))
    c = s.ok("server/operation/challenge", registrationId=phone.registration, operationId=second["operationId"])
    h = operation_hash(second)
    s.ok("server/operation/reject", registrationId=phone.registration, challengeId=c["challengeId"], operationId=second["operationId"],
         operationHash=h, reason="unknown", signatures=signed(c, h, factor=None, action="rejectOperation", last="unknown:" + h))
    s.fails("server/operation/challenge", "operationNotPending", registrationId=phone.registration, operationId=second["operationId"])


# -- offline approval --

def offline_walk(s):
    """Offline: the QR payload (eight lines, signed by the application's operation-signing key), the simulated phone's code after
    its PIN, a wrong code (a wrong device part counts on the operation only and leaves the registration untouched, lastAttempt
    included), the right code approves (approvedWith offline); a wrong PIN's code counts on the operation and the registration;
    codes of the wrong form are invalidParams."""
    phone_with_pin(s)
    s.ok("admin/configureOperationTemplate", **PAYMENT)
    operation = payment(s)
    qr = s.ok("admin/operationQrCode", operationId=operation["operationId"])["qrPayload"]
    shown = s.ok("operation/offlineApprove", deviceId="phone", qrPayload=qr, authParameter=PIN)
    assert shown["title"] == operation["title"] and shown["message"] == operation["message"], shown
    for form in ("1234567812345678", "1234567-812345678", "12345678-1234567x"):
        s.fails("admin/verifyOfflineOperation", "invalidParams", operationId=operation["operationId"], code=form)
    device, second = shown["code"].split("-")
    wrong_device = f"{(int(device) + 1) % 10**8:08d}-{second}"
    s.fails("admin/verifyOfflineOperation", "authenticationFailed", operationId=operation["operationId"], code=wrong_device)
    registration = s.ok("device/registrationId", deviceId="phone")["registrationId"]
    untouched = s.ok("admin/getRegistration", registrationId=registration)
    assert untouched["failedAttempts"] == 0 and untouched["lastAttempt"] is None, untouched
    wrong_pin = s.ok("operation/offlineApprove", deviceId="phone", qrPayload=qr, authParameter=WRONG_PIN)
    s.fails("admin/verifyOfflineOperation", "authenticationFailed", operationId=operation["operationId"], code=wrong_pin["code"])
    s.ok("admin/getRegistration", registrationId=registration)
    approved = s.ok("admin/verifyOfflineOperation", operationId=operation["operationId"], code=shown["code"])
    assert approved["approvedWith"] == "offline", approved
    s.fails("admin/operationQrCode", "operationNotPending", operationId=operation["operationId"])


def offline_refusals(s):
    """The phone refuses (qrInvalid, nothing shown or counted) a payload with a line missing, one too many, a line too long, a
    changed amount (its signature no longer holds), another application's signature; a nonce reused after a newer QR gives a code
    the server refuses; no payload made: noSessionInProgress; 300 s after: sessionExpired; offline not allowed:
    authMethodNotAllowed; device alone and a face without the B flag: authMethodNotAllowed."""
    registration = phone_with_pin(s, biometry="faceId")
    s.ok("admin/configureOperationTemplate", **PAYMENT)
    operation = payment(s, ttlSeconds=3600)
    s.fails("admin/verifyOfflineOperation", "noSessionInProgress", operationId=operation["operationId"], code="12345678-12345678")
    qr = s.ok("admin/operationQrCode", operationId=operation["operationId"], registrationId=registration)["qrPayload"]
    lines = qr.split("\n")
    flawed = ["\n".join(lines[:-1]), qr + "\nextra", "\n".join(lines[:2] + ["x" * 5000] + lines[3:]),
              "\n".join(lines[:4] + [TAMPERED] + lines[5:])]
    for text in flawed:
        s.fails("operation/offlineApprove", "qrInvalid", deviceId="phone", qrPayload=text, authParameter=PIN)
    s.ok("admin/configureApplication", applicationId="shop")
    s.ok("admin/configureOperationTemplate", **(PAYMENT | {"applicationId": "shop"}))
    s.ok("admin/createUser", userId="carol", email="carol@example.com")
    code = s.ok("admin/createActivationCode", userId="carol", applicationId="shop")["activationCode"]
    s.ok("device/create", deviceId="carols")
    s.ok("activation/start", deviceId="carols", activationCode=code, applicationId="shop")
    s.ok("activation/finish", deviceId="carols", authParameter=PIN)
    shop = s.ok("admin/createOperation", userId="carol", template="payment", parameters=PARAMETERS, applicationId="shop")
    foreign = s.ok("admin/operationQrCode", operationId=shop["operationId"])["qrPayload"]
    s.fails("operation/offlineApprove", "qrInvalid", deviceId="phone", qrPayload=foreign, authParameter=PIN)
    s.fails("operation/offlineApprove", "authMethodNotAllowed", deviceId="phone", qrPayload=qr, authParameter={"method": "device"})
    old = s.ok("operation/offlineApprove", deviceId="phone", qrPayload=qr, authParameter=PIN)["code"]
    s.ok("admin/operationQrCode", operationId=operation["operationId"], registrationId=registration)
    s.fails("admin/verifyOfflineOperation", "authenticationFailed", operationId=operation["operationId"], code=old)
    s.ok("clock/advance", seconds=300)
    s.fails("admin/verifyOfflineOperation", "sessionExpired", operationId=operation["operationId"], code=old)
    s.ok("admin/configureOperationTemplate", **(PAYMENT | {"allowedMethods": ["pin", "offline"]}))
    pin_only = payment(s)
    no_b = s.ok("admin/operationQrCode", operationId=pin_only["operationId"])["qrPayload"]
    assert no_b.split("\n")[5] == "", no_b
    s.fails("operation/offlineApprove", "authMethodNotAllowed", deviceId="phone", qrPayload=no_b, authParameter={"method": "faceId"})
    s.ok("admin/configureOperationTemplate", **(PAYMENT | {"allowedMethods": ["pin", "faceId"]}))
    online = payment(s)
    s.fails("admin/operationQrCode", "authMethodNotAllowed", operationId=online["operationId"])


SCENARIOS = [lifecycle, template_rules, tampered_display, wrong_pin_until_failed, wrong_pins_lock_the_registration,
             reject_cancel_expire, bound_and_foreign, methods_allowed, outside_device, offline_walk, offline_refusals]


def main():
    server_make.record(SCENARIOS, HERE, sys.argv[1:])


if __name__ == "__main__":
    main()
