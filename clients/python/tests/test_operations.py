"""Operations on the reference device (latchkey.device): the inbox, showing an operation the way a
banking app would, approving and rejecting it over server/operation/*, and offline approval by QR
code — against the real binary ($LATCHKEY_BIN), plus the cross-checks of the offline code:

- RFC 4226's own test vectors (appendix D) through the truncation;
- clients/testdata/offline-vectors.json, which this file writes (``python tests/test_operations.py
  --write-vectors``) and both clients check: fixed keys, a fixed QR payload, the codes per role,
  the QR payload's flaws, operation data and what the phone shows;
- the JavaScript device on random inputs (when node is on PATH);
- the server's reading: codes this device computes verify with admin/verifyOfflineOperation, and so
  do the simulated phone's (operation/offlineApprove) in the same seeded run.

The tests that need the binary skip only when LATCHKEY_BIN is not set."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from support import CLIENTS, DEFAULT_ARGS, counter, refused  # noqa: E402

import latchkey.device as dm  # noqa: E402
from latchkey import Latchkey, LatchkeyError  # noqa: E402

Device, DeviceError = dm.Device, dm.DeviceError
VECTORS = CLIENTS / "testdata" / "offline-vectors.json"

TEMPLATE = {
    "name": "payment", "title": "Pay ${amount} ${currency}", "message": "To ${iban}",
    "data": "A1*A${amount}${currency}*I${iban}*D${due}",
    "attributes": [{"type": "amount", "label": "Amount", "amount": "${amount}", "currency": "${currency}"},
                   {"type": "keyValue", "label": "To", "value": "${iban}"}],
    "ttlSeconds": 3600,
}
PAYMENT = {"amount": "1500.00", "currency": "EUR", "iban": "CZ2730300000001165254011", "due": "20260131"}
TAMPERED = "A1*A9500.00EUR*ICZ2730300000001165254011*D20260131"


@pytest.fixture
def lk(binary):
    with Latchkey.spawn(binary, DEFAULT_ARGS, timeout=60) as client:
        yield client


def phone_of(lk, email="ann@example.com", seed="phone", **factors):
    """A user, and a reference device activated for them (PIN 1234 and Face ID by default)."""
    user_id = lk.call("admin/createUser", {"email": email})["userId"]
    code = lk.call("admin/createActivationCode", {"userId": user_id})["activationCode"]
    phone = Device(lk, f"install-{seed}", {}, random_bytes=counter(seed))
    phone.activate(code, **(factors or {"pin": "1234", "biometry": "faceId"}))
    return user_id, phone


def operation(lk, user_id, template="payment", **parameters):
    return lk.call("admin/createOperation", {"userId": user_id, "template": template,
                                             "parameters": {**PAYMENT, **parameters}})


def status(lk, operation_id):
    return lk.call("admin/getOperation", {"operationId": operation_id})


def remaining_pin(phone):
    return phone.status()["server"]["remainingAttemptsPIN"]


# -- the truncation: RFC 4226, appendix D -----------------------------------------------------

RFC4226 = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871",
           "520489"]


def test_rfc4226_truncation():
    secret = b"12345678901234567890"
    got = [dm.truncate(hmac.new(secret, count.to_bytes(8, "big"), hashlib.sha1).digest(), 6)
           for count in range(10)]
    assert got == RFC4226


def test_truncation_keeps_leading_zeros_and_reads_the_last_byte():
    mac = bytes(31) + b"\x00"
    assert dm.truncate(mac) == "00000000"
    mac = bytes([0, 0, 0, 7]) + bytes(27) + b"\xf0"  # offset 0
    assert dm.truncate(mac) == "00000007"
    mac = bytes(15) + bytes([0xFF, 0xFF, 0xFF, 0xFF]) + bytes(12) + b"\x0f"  # offset 15, the top bit cleared
    assert dm.truncate(mac) == str(0x7FFFFFFF % 10 ** 8).zfill(8) == "47483647"


# -- the shared vectors -----------------------------------------------------------------------

def _scalar(label):
    return dm.new_private_key(counter(f"latchkey offline vectors/{label}"))


def make_vectors():
    """The vector file's content, from fixed labels (RFC 6979 signatures: the same every time)."""
    keys = {role: _scalar(role) for role in ("device", "pin", "touchId", "faceId")}
    server, signer, stranger = _scalar("server"), _scalar("operation-signing"), _scalar("another application")
    registration_id = "reg_vectors4offline4codes4abcd"
    pin, wrong_pin = "1234", "9999"
    salt = hashlib.sha256(b"latchkey offline vectors/pin salt").digest()[:16]
    storage = {
        "activation.registrationId": registration_id,
        "activation.methods": "device,pin,touchId,faceId",
        "activation.possessionKey": dm.b64url(keys["device"]),
        "activation.pinSalt": dm.b64url(salt),
        "activation.pinMaskedKey": dm.b64url(dm.mask(keys["pin"], pin, salt, dm.PIN_ROUNDS)),
        "activation.touchIdKey": dm.b64url(keys["touchId"]),
        "activation.faceIdKey": dm.b64url(keys["faceId"]),
        "activation.operationSigningKey": dm.public_key(signer),
        "activation.serverPublicKey": dm.public_key(server),
    }
    qr = {
        "operationId": "2f1c7d0e-5b8a-4c1f-9e2d-7a6b5c4d3e2f",
        "title": "Zaplatit 1 500.00 EUR \\ příkaz 42",
        "message": "Příjemce: Jan Novák\nSplatnost 31. 1. 2026",
        "data": "A1*A1500.00EUR*ICZ2730300000001165254011,AIRACZPP*D20260131*NFaktura \\* 42",
        "biometric": True,
        "nonce": dm.b64url(hashlib.sha256(b"latchkey offline vectors/nonce").digest()[:16]),
    }
    payload = dm.sign_qr_payload(signer, qr["operationId"], qr["title"], qr["message"], qr["data"],
                                 qr["biometric"], qr["nonce"])
    hashed = dm.operation_hash(qr["operationId"], qr["title"], qr["message"], qr["data"])

    def part(private, role):
        return dm.offline_part(private, role, dm.public_key(server), registration_id, qr["operationId"],
                               hashed, qr["nonce"])

    parts = {role: part(key, role) for role, key in keys.items()}
    wrong = dm.mask(b64(storage["activation.pinMaskedKey"]), wrong_pin, salt, dm.PIN_ROUNDS)
    codes = {role: f"{parts['device']}-{parts[role]}" for role in ("pin", "touchId", "faceId")}
    codes["wrongPin"] = f"{parts['device']}-{part(wrong, 'pin')}"
    unflagged = dm.sign_qr_payload(signer, qr["operationId"], qr["title"], qr["message"], qr["data"],
                                   False, qr["nonce"])
    return {
        "about": "Offline approval (PROTOCOL.md, Operations, 'Offline approval (QR)'): fixed keys and a "
                 "fixed QR payload, and the code each role gives; plus the QR payload's flaws, operation "
                 "data and what the phone shows. Written by clients/python/tests/test_operations.py "
                 "(--write-vectors); checked by it and by clients/js/test/operations.test.mjs. Keys are "
                 "P-256 private scalars and SEC1 points, unpadded base64url.",
        "registrationId": registration_id,
        "pin": pin,
        "wrongPin": wrong_pin,
        "privateKeys": {role: dm.b64url(key) for role, key in keys.items()},
        "publicKeys": {role: dm.public_key(key) for role, key in keys.items()},
        "server": {"privateKey": dm.b64url(server), "publicKey": dm.public_key(server)},
        "operationSigning": {"privateKey": dm.b64url(signer), "publicKey": dm.public_key(signer)},
        "anotherApplication": {"privateKey": dm.b64url(stranger), "publicKey": dm.public_key(stranger)},
        "storage": storage,
        "qr": {**qr, "payload": payload, "operationHash": hashed, "unflaggedPayload": unflagged},
        "parts": parts,
        "codes": codes,
        "truncation": [
            {"mac": (bytes(31) + b"\x00").hex(), "digits": 8, "value": "00000000"},
            {"mac": (bytes([0, 0, 0, 7]) + bytes(27) + b"\xf0").hex(), "digits": 8, "value": "00000007"},
            {"mac": (bytes(15) + b"\xff\xff\xff\xff" + bytes(12) + b"\x0f").hex(), "digits": 8,
             "value": "47483647"},
            *({"mac": hmac.new(b"12345678901234567890", count.to_bytes(8, "big"), hashlib.sha1).hexdigest(),
               "digits": 6, "value": value} for count, value in enumerate(RFC4226)),
        ],
        "badPayloads": _bad_payloads(payload, signer, stranger, qr),
        "operationData": [_data_case(text) for text in DATA_CASES],
        "show": [{"operation": op, "shown": dm.show_operation(op)} for op in SHOW_CASES],
    }


def b64(text):
    return dm.b64url_decode(text)


def _bad_payloads(payload, signer, stranger, qr):
    lines = payload.split("\n")

    def with_line(index, value, resign=True):
        changed = list(lines)
        changed[index] = value
        text = "\n".join(changed[:7])
        signature = dm.sign(signer, text.encode("utf-8"), "der") if resign else lines[7]
        return text + "\n" + signature

    cases = [
        ("a line missing", "\n".join(lines[:7])),
        ("a line extra", payload + "\n"),
        ("another header", with_line(0, "LATCHKEY-QR-V2")),
        ("CRLF line ends", payload.replace("\n", "\r\n")),
        ("too long", with_line(2, "x" * 4100)),
        ("an empty operation id", with_line(1, "")),
        ("an operation id with a space", with_line(1, "op 1")),
        ("a title with \\t", with_line(2, "Pay\\t1")),
        ("a title ending in a backslash", with_line(2, "Pay 1\\")),
        ("a message with a tab", with_line(3, "To\tCZ27")),
        ("data whose IBAN fails mod-97", with_line(4, "A1*A1500.00EUR*ICZ2730300000001165254012")),
        ("data of six fields", with_line(4, "A1*Ta*Tb*Tc*Td*Te*Tf")),
        ("flags X", with_line(5, "X")),
        ("a 15-byte nonce", with_line(6, dm.b64url(bytes(15)))),
        ("a padded nonce", with_line(6, qr["nonce"] + "==")),
        ("a nonce not canonical", with_line(6, qr["nonce"][:-1] + chr(ord(qr["nonce"][-1]) + 1))),
        ("an empty signature", "\n".join(lines[:7]) + "\n"),
        ("a signature of 73 bytes", "\n".join(lines[:7]) + "\n" + dm.b64url(bytes(73))),
        ("a raw r||s signature", "\n".join(lines[:7]) + "\n" + dm.sign(signer, "\n".join(lines[:7]).encode(), "raw")),
        ("the amount changed", payload.replace("A1500.00EUR", "A9500.00EUR")),
        ("the title changed", with_line(2, "Pay 1 EUR", resign=False)),
        ("the B flag removed", with_line(5, "", resign=False)),
        ("another application's key", "\n".join(lines[:7]) + "\n"
         + dm.sign(stranger, "\n".join(lines[:7]).encode(), "der")),
    ]
    out = []
    for name, text in cases:
        try:
            dm.parse_qr_payload(text, dm.public_key(signer))
            flaw = None
        except dm.QRPayloadError as error:
            flaw = str(error)
        assert flaw is not None, name
        out.append({"name": name, "payload": text, "flaw": flaw})
    return out


DATA_CASES = [
    "A1*A1500.00EUR*ICZ2730300000001165254011*D20260131",
    "A0", "A99*T", "A2*Tlogin from Chrome on Windows",
    "A1*A.5CZK*ICZ2730300000001165254011,AIRACZPP*Q123-456/0100*R2026/01*NFaktura \\* 42",
    "A1*A100EUR*D20240229*Na\\\\b\\nc", "A1*A1EUR*A2EUR*A3EUR*A4EUR*A5EUR",
    "A1*TPříjemce: Jan Novák",
    # refused
    "", "B1", "A", "A100", "A1*", "A1**", "A1*X1", "A1*A1.2.3EUR", "A1*A100eur", "A1*AEUR",
    "A1*A1EURO", "A1*D20230229", "A1*D2026131", "A1*D20261301", "A1*D00000100", "A1*Q",
    "A1*ICZ2730300000001165254012", "A1*ICZ2730300000001165254011,AIRA", "A1*ICZ2730300000001165254011,A,B",
    "A1*ICZ2730300000001165254011,AIRA1ZPP", "A1*Tfoo\\", "A1*T\\x", "A1*T\tx",
    "A1*A1EUR*A2EUR*A3EUR*A4EUR*A5EUR*A6EUR", "A1*T" + "x" * 252,
]


def _data_case(text):
    try:
        return {"text": text, "parsed": dm.parse_operation_data(text)}
    except dm.OperationDataError as error:
        return {"text": text, "error": error.rule}


SHOW_CASES = [
    {"operationId": "op-1", "title": "Pay 1500.00 EUR", "message": "To CZ2730300000001165254011\nDue 31 Jan",
     "data": "A1*A1500.00EUR*ICZ2730300000001165254011*D20260131*NRent \\* January",
     "attributes": [{"type": "heading", "label": "Payment"},
                    {"type": "amount", "label": "Amount", "amount": "1500.00", "currency": "EUR"},
                    {"type": "keyValue", "label": "To", "value": "CZ2730300000001165254011"},
                    {"type": "keyValue", "label": "Due", "value": "20260131"},
                    {"type": "note", "label": "Note", "note": "Rent * January"}]},
    {"operationId": "op-2", "title": "Pay", "message": "",
     "data": "A1*A0001234567.5CZK*ICZ2730300000001165254011,AIRACZPP*D20240229*Q123/0100*R42",
     "attributes": []},
    {"operationId": "op-3", "title": "Pay 500.00 EUR", "message": "tampered attributes",
     "data": "A1*A1500.00EUR*ICZ2730300000001165254011",
     "attributes": [{"type": "amount", "label": "Amount", "amount": "500.00", "currency": "EUR"},
                    {"type": "keyValue", "label": "To", "value": "CZ6508000000192000145399"}]},
    {"operationId": "op-4", "title": "Pay", "message": "data that does not parse",
     "data": "A1*A1500.00EUR*ICZ2730300000001165254012",
     "attributes": [{"type": "amount", "label": "Amount", "amount": "1500.00", "currency": "EUR"}]},
]


@pytest.fixture(scope="module")
def vectors():
    return json.loads(VECTORS.read_text(encoding="utf-8"))


class Offline:
    """A client that fails every call: offline approval makes none."""

    def call(self, method, params=None):
        raise AssertionError(f"offline approval called {method}")


def test_vector_file_is_what_the_generator_writes(vectors):
    if dm.sign(_scalar("x"), b"m") != dm.sign(_scalar("x"), b"m"):
        pytest.skip("this cryptography signs with random nonces (needs >= 44 for RFC 6979)")
    assert make_vectors() == vectors, "run: python clients/python/tests/test_operations.py --write-vectors"


def test_offline_vectors(vectors):
    registration_id, qr = vectors["registrationId"], vectors["qr"]
    for role, private in vectors["privateKeys"].items():
        assert dm.public_key(b64(private)) == vectors["publicKeys"][role]
        # The device's reading: its private key and the server's public key ...
        mine = dm.offline_part(b64(private), role, vectors["server"]["publicKey"], registration_id,
                               qr["operationId"], qr["operationHash"], qr["nonce"])
        # ... and the server's: its private key and the role's public key (ECDH is symmetric).
        theirs = dm.offline_part(b64(vectors["server"]["privateKey"]), role, vectors["publicKeys"][role],
                                 registration_id, qr["operationId"], qr["operationHash"], qr["nonce"])
        assert mine == theirs == vectors["parts"][role]
    scanned = dm.parse_qr_payload(qr["payload"], vectors["operationSigning"]["publicKey"])
    assert (scanned.operation_id, scanned.title, scanned.message, scanned.data, scanned.biometric,
            scanned.nonce) == (qr["operationId"], qr["title"], qr["message"], qr["data"], True, qr["nonce"])
    assert scanned.operation_hash == qr["operationHash"] and scanned.text == qr["payload"]

    phone = Device(Offline(), "vectors", dict(vectors["storage"]))
    shown = {key: qr[key] for key in ("operationId", "title", "message", "data")}
    assert phone.offline_code(qr["payload"], pin=vectors["pin"]) == {"code": vectors["codes"]["pin"], **shown}
    assert phone.offline_code(qr["payload"], biometry="touchId")["code"] == vectors["codes"]["touchId"]
    assert phone.offline_code(qr["payload"], biometry="faceId")["code"] == vectors["codes"]["faceId"]
    # A wrong PIN: no error, a wrong code (the device part still right).
    assert phone.offline_code(qr["payload"], pin=vectors["wrongPin"])["code"] == vectors["codes"]["wrongPin"]
    assert vectors["codes"]["wrongPin"] != vectors["codes"]["pin"]
    assert vectors["codes"]["wrongPin"][:8] == vectors["codes"]["pin"][:8]
    # Without the B flag, biometry may not make a code; the PIN still may.
    refused("authMethodNotAllowed", phone.offline_code, qr["unflaggedPayload"], biometry="faceId")
    assert phone.offline_code(qr["unflaggedPayload"], pin="1234")["code"] == vectors["codes"]["pin"]
    for case in vectors["truncation"]:
        assert dm.truncate(bytes.fromhex(case["mac"]), case["digits"]) == case["value"]


def test_qr_payload_flaws(vectors):
    phone = Device(Offline(), "vectors", dict(vectors["storage"]))
    for case in vectors["badPayloads"]:
        with pytest.raises(dm.QRPayloadError) as caught:
            dm.parse_qr_payload(case["payload"], vectors["operationSigning"]["publicKey"])
        assert str(caught.value) == case["flaw"], case["name"]
        error = refused("qrInvalid", phone.offline_code, case["payload"], pin="1234")
        assert error.code == 2003 and error.data["flaw"] == case["flaw"]
    assert {case["name"] for case in vectors["badPayloads"]} >= {"a line missing", "a line extra",
                                                                 "too long", "another application's key"}
    # No operation-signing key kept: the signature cannot be checked, nothing is shown; a payload
    # of the contract's form is not refused as invalid but as not possible yet (go online once).
    bare = dict(vectors["storage"])
    del bare["activation.operationSigningKey"]
    error = refused("offlineUnavailable", Device(Offline(), "v", bare).offline_code,
                    vectors["qr"]["payload"], pin="1234")
    assert error.code == 2004
    malformed = next(case for case in vectors["badPayloads"] if case["name"] == "a line missing")
    error = refused("qrInvalid", Device(Offline(), "v", bare).offline_code, malformed["payload"], pin="1234")
    assert error.data["flaw"] == malformed["flaw"]


def test_operation_data_and_show_vectors(vectors):
    for case in vectors["operationData"]:
        assert _data_case(case["text"]) == case
    for case in vectors["show"]:
        assert dm.show_operation(case["operation"]) == case["shown"]
    shown = {case["operation"]["operationId"]: case["shown"] for case in vectors["show"]}
    assert shown["op-1"]["lines"] == ["Pay 1500.00 EUR", "To CZ2730300000001165254011", "Due 31 Jan",
                                      "Payment", "Amount: 1 500.00 EUR", "To: CZ2730300000001165254011",
                                      "Due: 20260131", "Note: Rent * January"]
    assert all(attribute["inData"] for attribute in shown["op-1"]["attributes"])
    assert [f["text"] for f in shown["op-2"]["fields"]] == [
        "1 234 567.5 CZK", "CZ27 3030 0000 0011 6525 4011 (BIC AIRACZPP)", "2024-02-29", "123/0100", "42"]
    assert shown["op-2"]["lines"][2:] == ["Amount: 1 234 567.5 CZK",
                                          "To account: CZ27 3030 0000 0011 6525 4011 (BIC AIRACZPP)",
                                          "Due date: 2024-02-29", "Account: 123/0100", "Reference: 42"]
    assert [a["inData"] for a in shown["op-3"]["attributes"]] == [False, False]
    assert shown["op-4"]["dataError"] == "has an IBAN (I) whose mod-97 check fails"


def test_operation_data_rules():
    assert dm.iban_valid("CZ2730300000001165254011") and dm.iban_valid("GB82WEST12345698765432")
    assert not dm.iban_valid("CZ2730300000001165254012") and not dm.iban_valid("cz2730300000001165254011")
    data = "A1*T" + dm.escape_operation_data("a*b\\c\nd")
    assert data == "A1*Ta\\*b\\\\c\\nd"
    assert dm.parse_operation_data(data)["fields"] == [{"type": "text", "text": "a*b\\c\nd"}]
    assert dm.operation_hash("op", "t", "m", "A1") == dm.b64url(hashlib.sha256(
        b"\0\0\0\x02op\0\0\0\x01t\0\0\0\x01m\0\0\0\x02A1").digest())
    # A field that starts with a multi-byte character (the random inputs below found it, once in many runs).
    with pytest.raises(dm.OperationDataError, match="unknown type"):
        dm.parse_operation_data("A1*\u00e9AE")
    # Untrusted input never raises anything but the parser's own error.
    rng = secrets.SystemRandom()
    alphabet = "A1*\\nITDQRNE.,Z9-é\t"
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))
        try:
            dm.parse_operation_data(text)
        except dm.OperationDataError:
            pass
        try:
            dm.parse_qr_payload(text.replace("-", "\n"), dm.public_key(_scalar("x")))
        except dm.QRPayloadError:
            pass


def test_javascript_agrees_on_random_inputs():
    """The JavaScript device computes the same parts, hashes, parses and displays on random inputs."""
    node = os.environ.get("NODE") or shutil.which("node")
    if not node:
        pytest.skip("node is not on PATH")
    rng = secrets.SystemRandom()
    cases = []
    for index in range(12):
        private, server = dm.new_private_key(), dm.new_private_key()
        role = ["device", "pin", "touchId", "faceId"][index % 4]
        amount = f"{rng.randrange(0, 10 ** rng.randrange(1, 9))}.{rng.randrange(0, 100):02d}"
        data = f"A1*A{amount}EUR*ICZ2730300000001165254011*T" + dm.escape_operation_data(
            rng.choice(["a*b", "x\\y", "line\nbreak", "žluťoučký kůň", ""]))
        cases.append({"private": dm.b64url(private), "role": role, "server": dm.public_key(server),
                      "registrationId": f"reg_{secrets.token_hex(8)}", "operationId": str(index),
                      "title": f"Pay {amount} EUR \\ {index}", "message": "To\nsomeone",
                      "data": data, "nonce": dm.b64url(os.urandom(16))})
    script = """
import { offlinePart, operationHash, parseOperationData, showOperation, b64urlDecode } from "./device.js";
let input = ""; for await (const chunk of process.stdin) input += chunk;
const out = JSON.parse(input).map((c) => {
  const hash = operationHash(c.operationId, c.title, c.message, c.data);
  return { hash, part: offlinePart(b64urlDecode(c.private), c.role, c.server, c.registrationId, c.operationId, hash, c.nonce),
           parsed: parseOperationData(c.data),
           shown: showOperation({ operationId: c.operationId, title: c.title, message: c.message, data: c.data, attributes: [] }) };
});
process.stdout.write(JSON.stringify(out));
"""
    answer = subprocess.run([node, "--input-type=module", "-e", script], input=json.dumps(cases),
                            capture_output=True, text=True, cwd=CLIENTS / "js", timeout=60)
    assert answer.returncode == 0, answer.stderr
    for case, theirs in zip(cases, json.loads(answer.stdout)):
        hashed = dm.operation_hash(case["operationId"], case["title"], case["message"], case["data"])
        assert theirs["hash"] == hashed
        assert theirs["part"] == dm.offline_part(b64(case["private"]), case["role"], case["server"],
                                                 case["registrationId"], case["operationId"], hashed,
                                                 case["nonce"])
        assert theirs["parsed"] == dm.parse_operation_data(case["data"])
        assert theirs["shown"] == dm.show_operation({**{k: case[k] for k in (
            "operationId", "title", "message", "data")}, "attributes": []})


# -- against the binary -----------------------------------------------------------------------

def test_operation_life(lk):
    user_id, phone = phone_of(lk)
    assert phone.operation_signing_key and phone.server_public_key  # learned at activation
    template = lk.call("admin/configureOperationTemplate", TEMPLATE)
    assert template["allowedMethods"] == ["pin", "touchId", "faceId", "offline"]
    assert phone.operations() == []

    created = operation(lk, user_id)
    inbox = phone.operations()
    assert [op["operationId"] for op in inbox] == [created["operationId"]]
    shown = phone.show_operation(inbox[0])
    assert shown["lines"] == ["Pay 1500.00 EUR", "To CZ2730300000001165254011", "Amount: 1 500.00 EUR",
                              "To: CZ2730300000001165254011"]
    assert shown["attributes"][0]["amountFormatted"] == "1 500.00" and shown["dataError"] is None
    assert [field["text"] for field in shown["fields"]] == [
        "1 500.00 EUR", "CZ27 3030 0000 0011 6525 4011", "2026-01-31"]
    assert all(attribute["inData"] for attribute in shown["attributes"])

    # A wrong PIN: counts on the registration and the operation.
    error = refused("authenticationFailed", phone.approve_operation, created["operationId"], pin="9999")
    assert error.data["remainingAttempts"] == 4
    assert status(lk, created["operationId"])["failureCount"] == 1 and remaining_pin(phone) == 4
    # A tampered display: the hash differs, counted on the operation only.
    error = refused("operationDataMismatch", phone.approve_operation, created["operationId"], pin="1234",
                    shown_data=TAMPERED)
    assert error.data["remainingAttempts"] == 3
    assert status(lk, created["operationId"])["failureCount"] == 2 and remaining_pin(phone) == 4
    # The device key alone approves nothing, and counts nothing.
    refused("authMethodNotAllowed", phone.approve_operation, created["operationId"])
    assert status(lk, created["operationId"])["failureCount"] == 2
    # The right PIN, over what the phone showed (the operation from the inbox).
    approved = phone.approve_operation(inbox[0], pin="1234")
    assert (approved["status"], approved["approvedWith"]) == ("approved", "pin")
    assert remaining_pin(phone) == 5 and phone.storage["activation.lastMethod"] == "pin"
    assert phone.operations() == []
    error = refused("operationNotPending", phone.approve_operation, created["operationId"], pin="1234")
    assert error.data["status"] == "approved"

    # Face ID approves too.
    by_face = operation(lk, user_id)
    assert phone.approve_operation(by_face["operationId"], biometry="faceId")["approvedWith"] == "faceId"

    # Rejections: the device key alone, over <reason>:<hash>; a differing display is a fraud signal.
    seen_else = operation(lk, user_id)
    rejected = phone.reject_operation(seen_else["operationId"], "incorrectData", shown_data=TAMPERED)
    assert (rejected["status"], rejected["rejectReason"]) == ("rejected", "incorrectData")
    unexpected = operation(lk, user_id)
    assert phone.reject_operation(unexpected["operationId"], "unexpectedOperation")["rejectReason"] \
        == "unexpectedOperation"
    events = {event["operationId"]: event for event in lk.call("audit/list", {"userId": user_id})["events"]
              if event["type"] == "operationRejected"}
    assert events[seen_else["operationId"]]["dataMismatch"] is True
    assert events[unexpected["operationId"]].get("dataMismatch") in (False, None)
    listed = {op["operationId"]: op for op in
              lk.call("admin/listOperations", {"userId": user_id, "status": "rejected"})["operations"]}
    assert listed[seen_else["operationId"]]["rejectReason"] == "incorrectData"
    refused("operationNotPending", phone.reject_operation, unexpected["operationId"], "unknown")
    assert remaining_pin(phone) == 5  # rejections count nothing


def test_wrong_pins_fail_the_operation(lk):
    user_id, phone = phone_of(lk)
    lk.call("admin/configureOperationTemplate", {**TEMPLATE, "maxFailureCount": 2})
    created = operation(lk, user_id)
    refused("authenticationFailed", phone.approve_operation, created["operationId"], pin="9999")
    error = refused("operationFailed", phone.approve_operation, created["operationId"], pin="9999")
    assert error.data["status"] == "failed"
    refused("operationNotPending", phone.approve_operation, created["operationId"], pin="1234")
    assert remaining_pin(phone) == 3


def test_offline_life(lk):
    user_id, phone = phone_of(lk)
    registration_id = phone.registration_id
    lk.call("admin/configureOperationTemplate", TEMPLATE)

    # The code verifies: the server's reading of the contract agrees with this device's.
    created = operation(lk, user_id)
    qr = lk.call("admin/operationQrCode", {"operationId": created["operationId"]})["qrPayload"]
    answer = phone.offline_code(qr, pin="1234")
    assert (answer["operationId"], answer["title"], answer["data"]) == (
        created["operationId"], created["title"], created["data"])
    assert len(answer["code"]) == 17 and answer["code"][8] == "-"
    approved = lk.call("admin/verifyOfflineOperation", {"operationId": created["operationId"],
                                                         "code": answer["code"]})
    assert (approved["status"], approved["approvedWith"]) == ("approved", "offline")

    # A wrong PIN: a wrong code, which only the server tells; it counts on both.
    second = operation(lk, user_id)
    qr = lk.call("admin/operationQrCode", {"operationId": second["operationId"]})["qrPayload"]
    wrong = phone.offline_code(qr, pin="9999")
    right = phone.offline_code(qr, pin="1234")
    assert wrong["code"] != right["code"] and wrong["code"][:8] == right["code"][:8]
    error = refused("authenticationFailed", lk.call, "admin/verifyOfflineOperation",
                    {"operationId": second["operationId"], "code": wrong["code"]})
    assert error.data["remainingAttempts"] == 4
    assert status(lk, second["operationId"])["failureCount"] == 1 and remaining_pin(phone) == 4
    # An old QR's code after a newer QR: refused (the newest nonce only), the registration not counted.
    newer = lk.call("admin/operationQrCode", {"operationId": second["operationId"]})["qrPayload"]
    refused("authenticationFailed", lk.call, "admin/verifyOfflineOperation",
            {"operationId": second["operationId"], "code": right["code"]})
    assert status(lk, second["operationId"])["failureCount"] == 2 and remaining_pin(phone) == 4
    face = phone.offline_code(newer, biometry="faceId")  # B: biometry may answer
    approved = lk.call("admin/verifyOfflineOperation", {"operationId": second["operationId"],
                                                         "code": face["code"], "registrationId": registration_id})
    assert approved["approvedWith"] == "offline" and remaining_pin(phone) == 5

    # A QR older than 300 s: its code comes too late.
    late = operation(lk, user_id)
    qr = lk.call("admin/operationQrCode", {"operationId": late["operationId"]})["qrPayload"]
    code = phone.offline_code(qr, pin="1234")["code"]
    lk.call("clock/advance", {"seconds": 300})
    refused("sessionExpired", lk.call, "admin/verifyOfflineOperation",
            {"operationId": late["operationId"], "code": code})

    # The device's own refusals: a tampered payload, device alone, biometry without B, no server key.
    refused("qrInvalid", phone.offline_code, qr.replace("A1500.00EUR", "A9500.00EUR"), pin="1234")
    refused("authMethodNotAllowed", phone.offline_code, qr)
    refused("authMethodNotAllowed", phone.offline_code, qr, biometry="touchId")  # not activated
    lk.call("admin/configureOperationTemplate", {**TEMPLATE, "name": "pinOnly",
                                                 "allowedMethods": ["pin", "offline"]})
    pin_only = operation(lk, user_id, template="pinOnly")
    qr = lk.call("admin/operationQrCode", {"operationId": pin_only["operationId"]})["qrPayload"]
    assert qr.split("\n")[5] == ""
    refused("authMethodNotAllowed", phone.offline_code, qr, biometry="faceId")
    kept = phone.storage.pop("activation.serverPublicKey")
    refused("offlineUnavailable", phone.offline_code, qr, pin="1234")
    phone.operations()  # online again: the list does not carry the server key ...
    refused("offlineUnavailable", phone.offline_code, qr, pin="1234")
    phone.authenticate(pin="1234")  # ... a challenge does
    assert phone.server_public_key == kept
    code = phone.offline_code(qr, pin="1234")["code"]
    assert lk.call("admin/verifyOfflineOperation", {"operationId": pin_only["operationId"],
                                                    "code": code})["approvedWith"] == "offline"
    # A destroyed biometric key: refused on the device (offline, nothing reaches the server).
    lk.call("admin/configureOperationTemplate", TEMPLATE)
    last = operation(lk, user_id)
    qr = lk.call("admin/operationQrCode", {"operationId": last["operationId"]})["qrPayload"]
    phone.change_biometric_enrolment()
    error = refused("biometryKeyInvalidated", phone.offline_code, qr, biometry="faceId")
    assert error.data["authMethod"] == "faceId"


def test_offline_approval_after_a_recovery(lk):
    """The backup and a recovery's answers carry no operation-signing key: a new phone restored from
    a backup cannot check a genuine QR code until it goes online once (offlineUnavailable, not
    qrInvalid); a phone that holds the key keeps it across the recovery."""
    user_id = lk.call("admin/createUser", {"email": "rob@example.com"})["userId"]
    code = lk.call("admin/createActivationCode", {"userId": user_id})["activationCode"]
    phone = Device(lk, "install-old", {}, random_bytes=counter("old"))
    token = phone.activate(code, pin="1234", token_purpose="addOrUpdateRecovery")["token"]
    phone.set_recovery(token, "plum-tree-42")
    signing_key = phone.operation_signing_key
    assert signing_key
    lk.call("admin/configureOperationTemplate", TEMPLATE)

    new_phone = Device(lk, "install-new", {}, random_bytes=counter("new"))
    new_phone.restore(phone.backup())
    recovered = new_phone.recover("plum-tree-42", pin="2468", token_purpose="addOrUpdateRecovery")
    assert new_phone.operation_signing_key is None and new_phone.server_public_key
    first = operation(lk, user_id)
    qr = lk.call("admin/operationQrCode", {"operationId": first["operationId"]})["qrPayload"]
    refused("offlineUnavailable", new_phone.offline_code, qr, pin="2468")
    refused("qrInvalid", new_phone.offline_code, "\n".join(qr.split("\n")[1:]), pin="2468")  # the form is checked
    new_phone.authenticate(pin="2468")  # online once: the challenge carries the key
    assert new_phone.operation_signing_key == signing_key
    answer = new_phone.offline_code(qr, pin="2468")
    assert lk.call("admin/verifyOfflineOperation", {"operationId": first["operationId"],
                                                    "code": answer["code"]})["approvedWith"] == "offline"

    # A phone that holds the key keeps it across the recovery (nothing the recovery answers replaces it).
    new_phone.set_recovery(recovered["token"], "pear-tree-17")
    third = Device(lk, "install-third", {"activation.operationSigningKey": signing_key},
                   random_bytes=counter("third"))
    third.restore(new_phone.backup())
    third.recover("pear-tree-17", pin="1357")
    assert third.operation_signing_key == signing_key
    second = operation(lk, user_id)
    qr = lk.call("admin/operationQrCode", {"operationId": second["operationId"]})["qrPayload"]
    answer = third.offline_code(qr, pin="1357")
    assert lk.call("admin/verifyOfflineOperation", {"operationId": second["operationId"],
                                                    "code": answer["code"]})["approvedWith"] == "offline"


class Tampering:
    """A transport that answers another operation-signing key than the server's."""

    def __init__(self, lk, key):
        self.lk, self.key = lk, key

    def call(self, method, params=None):
        answer = self.lk.call(method, params)
        if isinstance(answer, dict) and "operationSigningKey" in answer:
            answer = {**answer, "operationSigningKey": self.key}
        return answer


def test_the_first_operation_signing_key_stays(lk):
    user_id, phone = phone_of(lk)
    lk.call("admin/configureOperationTemplate", TEMPLATE)
    first = phone.operation_signing_key
    stranger = _scalar("another application")
    phone.client = Tampering(lk, dm.public_key(stranger))
    created = operation(lk, user_id)
    phone.operations()
    phone.authenticate(pin="1234")
    assert phone.operation_signing_key == first  # not adopted
    qr = lk.call("admin/operationQrCode", {"operationId": created["operationId"]})["qrPayload"]
    # A payload signed by the other key is refused; the server's still verifies.
    lines = qr.split("\n")
    forged = "\n".join(lines[:7]) + "\n" + dm.sign(stranger, "\n".join(lines[:7]).encode(), "der")
    error = refused("qrInvalid", phone.offline_code, forged, pin="1234")
    assert "operation-signing key" in error.data["flaw"]
    code = phone.offline_code(qr, pin="1234")["code"]
    assert lk.call("admin/verifyOfflineOperation", {"operationId": created["operationId"],
                                                    "code": code})["approvedWith"] == "offline"


def test_simulated_phone_and_this_device_agree_with_the_server(lk):
    """Two readings of the code: the simulated phone's (the server's own device half) and this
    device's. Neither can read the other's keys, so each code must verify on the server."""
    user_id, phone = phone_of(lk)
    code = lk.call("admin/createActivationCode", {"userId": user_id})["activationCode"]
    simulated = lk.call("device/create", {})["deviceId"]
    lk.call("activation/start", {"deviceId": simulated, "activationCode": code})
    other = lk.call("activation/finish", {"deviceId": simulated,
                                          "authParameter": {"method": "pin", "pin": "2468"}})["registrationId"]
    lk.call("admin/configureOperationTemplate", TEMPLATE)

    for_simulated = operation(lk, user_id)
    qr = lk.call("admin/operationQrCode", {"operationId": for_simulated["operationId"],
                                           "registrationId": other})["qrPayload"]
    theirs = lk.call("operation/offlineApprove", {"deviceId": simulated, "qrPayload": qr,
                                                  "authParameter": {"method": "pin", "pin": "2468"}})
    # This device reads the same payload (the same application's key) but its code is its own:
    # made for the simulated phone's registration, it is refused (the device part differs).
    mine = phone.offline_code(qr, pin="1234")
    assert {k: mine[k] for k in ("operationId", "title", "message", "data")} == \
        {k: theirs[k] for k in ("operationId", "title", "message", "data")}
    assert mine["code"] != theirs["code"]
    refused("authenticationFailed", lk.call, "admin/verifyOfflineOperation",
            {"operationId": for_simulated["operationId"], "code": mine["code"], "registrationId": other})
    assert lk.call("admin/verifyOfflineOperation", {"operationId": for_simulated["operationId"],
                                                    "code": theirs["code"]})["approvedWith"] == "offline"

    for_phone = operation(lk, user_id)
    qr = lk.call("admin/operationQrCode", {"operationId": for_phone["operationId"],
                                           "registrationId": phone.registration_id})["qrPayload"]
    code = phone.offline_code(qr, pin="1234")["code"]
    assert lk.call("admin/verifyOfflineOperation", {"operationId": for_phone["operationId"],
                                                    "code": code})["approvedWith"] == "offline"


def _seeded_run(binary):
    with Latchkey.spawn(binary, DEFAULT_ARGS, timeout=60) as lk:
        user_id, phone = phone_of(lk, seed="replay")
        lk.call("admin/configureOperationTemplate", TEMPLATE)
        created = operation(lk, user_id)
        qr = lk.call("admin/operationQrCode", {"operationId": created["operationId"]})["qrPayload"]
        return qr, phone.offline_code(qr, pin="1234")["code"]


def test_seeded_runs_replay_the_code(binary):
    """Under --seed, with a seeded device, the payload's signed lines (its nonce among them) and the
    code are the same every run."""
    (qr, code), (again, code_again) = _seeded_run(binary), _seeded_run(binary)
    assert qr.split("\n")[:7] == again.split("\n")[:7]
    assert code == code_again


def test_seeded_runs_replay_the_payload_byte_for_byte(binary):
    """Issue 40 point 5: under --seed the payload's signature (RFC 6979 nonces) replays too."""
    assert _seeded_run(binary)[0] == _seeded_run(binary)[0]


if __name__ == "__main__":
    if sys.argv[1:] != ["--write-vectors"]:
        sys.exit("usage: python tests/test_operations.py --write-vectors")
    VECTORS.write_text(json.dumps(make_vectors(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {VECTORS}")
