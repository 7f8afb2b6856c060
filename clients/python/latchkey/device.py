"""A reference device for Latchkey's ``server/`` methods: the half of the flows a phone holds.

    from latchkey import Latchkey
    from latchkey.device import Device

    with Latchkey.spawn(args=["--in-memory"]) as lk:
        phone = Device(lk, installation_id="install-1", storage={})
        phone.activate(activation_code, pin="1234")
        phone.authenticate(pin="1234")

The device makes and keeps the P-256 keys, masks the PIN key under the PIN and the recovery key
under the recovery code (PBKDF2-HMAC-SHA256 XOR, no check value: a wrong PIN unmasks a wrong
key, which only the server can tell, and counts), signs the contract's six-line payload, hands
every new key over with its proof of possession, and keeps its state in ``storage``. Private
keys, PINs and recovery codes never leave it.

``client`` is anything with ``call(method, params) -> result`` that raises ``LatchkeyError``
for an error response: a ``Latchkey`` process, or the app's own transport to its back end.
``storage`` is a mutable mapping of ``str`` to ``str`` (a keychain on a phone); its item names
are those of the Swift reference device (``Sources/LatchkeyDevice/DeviceStorage.swift``), bytes
are written as unpadded base64url. ``backup()`` gives what a phone backup carries (the recovery
data, never the this-device-only activation keys) as a JSON string, and ``restore()`` puts it on
a new device.

Operations (the contract's "Operations", over ``server/operation/*``): ``operations()`` is the
inbox, ``show_operation()`` what a banking app shows of one (formatted attributes, the parsed
operation data), ``approve_operation()`` and ``reject_operation()`` sign the hash of what the
phone shows, and ``offline_code()`` answers a scanned QR payload with the code the user types
back — no server call, checked against the operation-signing key kept from the activation.

Needs the ``cryptography`` package (``pip install cryptography``, ≥ 44).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import struct
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, MutableMapping, Optional, Union

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import (decode_dss_signature,
                                                            encode_dss_signature)
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from ._generated import ERROR_CODES
from .client import LatchkeyError

__all__ = [
    "Device", "DeviceError", "PIN_ROUNDS", "RECOVERY_ROUNDS", "BACKUP_FORMAT",
    "b64url", "b64url_decode", "payload", "context_hash", "public_key", "sign", "verify",
    "new_private_key", "mask", "pin_violations",
    "REJECT_REASONS", "operation_hash", "OperationDataError", "parse_operation_data",
    "escape_operation_data", "iban_valid", "format_amount", "format_iban", "show_operation",
    "QRPayload", "QRPayloadError", "parse_qr_payload", "sign_qr_payload", "truncate",
    "offline_part",
]

#: PBKDF2 rounds that mask the PIN key (as the Swift device's ``KDFCost.standard``).
PIN_ROUNDS = 10_000
#: PBKDF2 rounds that mask the recovery key, which travels in backups.
RECOVERY_ROUNDS = 100_000
#: The ``format`` member of a backup blob.
BACKUP_FORMAT = "latchkey-device-backup-v1"
#: The order of the curve P-256.
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551

try:
    #: ECDSA over SHA-256 with RFC 6979 nonces: a key signs a payload the same way every time.
    SIGNING = ec.ECDSA(hashes.SHA256(), deterministic_signing=True)
except TypeError:  # cryptography < 44: random nonces (as valid, not reproducible)
    SIGNING = ec.ECDSA(hashes.SHA256())

TWO_FACTOR = ("pin", "touchId", "faceId")
BIOMETRIC = ("touchId", "faceId")

# Storage items (the Swift reference device's names).
REGISTRATION_ID = "activation.registrationId"
METHODS = "activation.methods"
POSSESSION_KEY = "activation.possessionKey"
PIN_SALT = "activation.pinSalt"
PIN_MASKED_KEY = "activation.pinMaskedKey"
BIOMETRIC_KEYS = {"touchId": "activation.touchIdKey", "faceId": "activation.faceIdKey"}
LAST_METHOD = "activation.lastMethod"
#: The application's operation-signing key as first learned (a different one later is not taken).
OPERATION_SIGNING_KEY = "activation.operationSigningKey"
#: The registration's server key (offline approval's key agreement).
SERVER_PUBLIC_KEY = "activation.serverPublicKey"
#: The PIN rules of the activation's offer (``numeric,4,8``): a server/ challenge carries none,
#: and only the device can check a new PIN. An item of this device's own (not in the Swift one).
PIN_RULES = "activation.pinRules"
ONBOARDING_PROCESS = "onboarding.processId"
RECOVERY_REGISTRATION_ID = "recovery.registrationId"
RECOVERY_SALT = "recovery.salt"
RECOVERY_MASKED_KEY = "recovery.maskedKey"
ACTIVATION_ITEMS = (REGISTRATION_ID, METHODS, POSSESSION_KEY, PIN_SALT, PIN_MASKED_KEY,
                    *BIOMETRIC_KEYS.values(), LAST_METHOD, PIN_RULES, OPERATION_SIGNING_KEY,
                    SERVER_PUBLIC_KEY)
RECOVERY_ITEMS = (RECOVERY_REGISTRATION_ID, RECOVERY_SALT, RECOVERY_MASKED_KEY)


class DeviceError(LatchkeyError):
    """A refusal by the device itself (nothing reached the server, but for
    ``biometryKeyInvalidated``, raised once the device removed the method on the server).
    ``reason`` is the contract's name where there is one (``notActivatedLocally``,
    ``policyViolation``, …) and ``code`` its number; ``contextHashMismatch`` and
    ``invalidBackup`` are the device's own."""

    def __init__(self, reason: str, message: str, **data: Any) -> None:
        super().__init__(message, code=ERROR_CODES.get(reason), reason=reason,
                         data={"reason": reason, **data})


# -- the wire crypto ------------------------------------------------------------------------

def b64url(data: bytes) -> str:
    """Unpadded base64url."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def payload(operation: str, subject: str, challenge: str, role: str, context_hash: str = "") -> bytes:
    """The six lines every signature and proof is made over (UTF-8, ``\\n``, no final newline)."""
    return "\n".join(["LATCHKEY-V1", operation, subject, challenge, role, context_hash]).encode("utf-8")


def context_hash(title: Optional[str], content: Optional[str], mime: Optional[str]) -> str:
    """Unpadded base64url SHA-256 of the three fields, each a 4-byte big-endian byte length and
    its UTF-8 bytes (null counts as empty)."""
    data = b""
    for field in (title, content, mime):
        raw = (field or "").encode("utf-8")
        data += struct.pack(">I", len(raw)) + raw
    return b64url(hashlib.sha256(data).digest())


def new_private_key(random_bytes: Callable[[int], bytes] = os.urandom) -> bytes:
    """A P-256 private scalar (32 bytes) drawn from ``random_bytes`` until it is a valid key."""
    while True:
        candidate = random_bytes(32)
        if 0 < int.from_bytes(candidate, "big") < N:
            return candidate


def _key(private: bytes) -> Optional[ec.EllipticCurvePrivateKey]:
    scalar = int.from_bytes(private, "big") if len(private) == 32 else 0
    if not 0 < scalar < N:
        return None
    return ec.derive_private_key(scalar, ec.SECP256R1())


def public_key(private: bytes) -> str:
    """The 65-byte uncompressed SEC1 point of a private scalar, unpadded base64url."""
    key = _key(private)
    if key is None:
        raise ValueError("not a P-256 private key")
    return b64url(key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint))


def sign(private: bytes, message: bytes, form: str = "der") -> str:
    """ECDSA P-256 over SHA-256 (RFC 6979 deterministic), unpadded base64url: ``der`` (strict
    DER, as phone keystores give) or ``raw`` (``r‖s``, 64 bytes, as WebCrypto gives). Bytes
    that are no key — a wrong PIN can unmask to one — give a signature that never verifies
    (64 zero bytes), so the server still tells and counts."""
    key = _key(private)
    if key is None:
        return b64url(bytes(64))
    der = key.sign(message, SIGNING)
    if form == "der":
        return b64url(der)
    if form != "raw":
        raise ValueError("form is 'der' or 'raw'")
    r, s = decode_dss_signature(der)
    return b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def verify(public: str, signature: str, message: bytes) -> bool:
    """Whether ``signature`` (raw or DER) is ``public``'s over ``message`` (for tests and tools)."""
    point = b64url_decode(public)
    raw = b64url_decode(signature)
    if len(raw) == 64:
        raw = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point).verify(
            raw, message, ec.ECDSA(hashes.SHA256()))
        return True
    except (InvalidSignature, ValueError):
        return False


def mask(key: bytes, secret: str, salt: bytes, rounds: int) -> bytes:
    """``key`` XOR PBKDF2-HMAC-SHA256(secret, salt, rounds); its own inverse (no check value)."""
    stream = hashlib.pbkdf2_hmac("sha256", secret.encode("utf-8"), salt, rounds, dklen=len(key))
    return bytes(a ^ b for a, b in zip(key, stream))


def pin_violations(pin: str, rules: Dict[str, Any]) -> List[str]:
    """The PIN rules ``pin`` breaks (``tooShort``, ``tooLong``, ``notNumeric``,
    ``notAlphanumeric``), ``rules`` holding ``pinCodeType``, ``pinCodeLengthMin``/``Max``."""
    found = []
    if len(pin) < rules["pinCodeLengthMin"]:
        found.append("tooShort")
    if len(pin) > rules["pinCodeLengthMax"]:
        found.append("tooLong")
    if rules["pinCodeType"] == "numeric":
        if not all(c in "0123456789" for c in pin):
            found.append("notNumeric")
    elif not all(c.isascii() and c.isalnum() for c in pin):
        found.append("notAlphanumeric")
    return found


# -- operations: what the phone shows and signs -------------------------------------------

#: Why a user rejects an operation (the Mobile Token API's reasons).
REJECT_REASONS = ("unknown", "incorrectData", "unexpectedOperation")
#: Operation data: at most this many bytes and fields.
DATA_MAX_BYTES = 255
DATA_MAX_FIELDS = 5
#: A QR payload's first line, and the most bytes a payload may have.
QR_HEADER = "LATCHKEY-QR-V1"
QR_MAX_BYTES = 4096
#: The label of the offline code's derivation.
OTP_LABEL = "LATCHKEY-OTP-V1"
#: What a phone calls each field of operation data when no attribute names it.
FIELD_LABELS = {"amount": "Amount", "iban": "To account", "account": "Account", "date": "Due date",
                "reference": "Reference", "note": "Note", "text": "Text"}

_B64URL = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
_DIGITS = frozenset(b"0123456789")
_UPPER = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _b64url_strict(text: str) -> Optional[bytes]:
    """Canonical unpadded base64url (no padding, no other alphabet, unused bits zero), else None."""
    try:
        raw = text.encode("ascii")
    except UnicodeEncodeError:
        return None
    if len(raw) % 4 == 1 or not set(raw) <= _B64URL:
        return None
    decoded = b64url_decode(text)
    return decoded if b64url(decoded) == text else None


def operation_hash(operation_id: str, title: str, message: str, data: str) -> str:
    """What an approval signs: unpadded base64url SHA-256 of ``operationId``, ``title``,
    ``message`` and ``data``, each a 4-byte big-endian byte length and its UTF-8 bytes."""
    digest = hashlib.sha256()
    for field in (operation_id, title, message, data):
        raw = field.encode("utf-8")
        digest.update(struct.pack(">I", len(raw)) + raw)
    return b64url(digest.digest())


class OperationDataError(ValueError):
    """Text that is not operation data; ``rule`` the first rule it breaks ("has an amount (A)
    …"), worded as the server's ``invalidParams`` and the Swift parser word it."""

    def __init__(self, rule: str) -> None:
        super().__init__(rule)
        self.rule = rule


def parse_operation_data(text: str) -> Dict[str, Any]:
    """Reads PowerAuth's operation-data string, version A: ``{"template": n, "fields": [...]}``,
    each field ``{"type": "amount", "amount", "currency"}``, ``{"type": "iban", "iban", "bic"}``
    (``bic`` None without one), ``{"type": "account", "account"}``, ``{"type": "date", "date":
    "YYYY-MM-DD"}``, ``{"type": "reference" | "note" | "text", <type>: value}``, values unescaped.
    Untrusted input: bounded (255 bytes), raises ``OperationDataError`` for the first rule broken."""
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError:
        raise OperationDataError("is not UTF-8 text") from None
    if len(raw) > DATA_MAX_BYTES:
        raise OperationDataError(f"is longer than {DATA_MAX_BYTES} bytes")
    if any(byte < 0x20 for byte in raw):
        raise OperationDataError("holds a control character (below U+0020)")
    if raw[:1] != b"A":
        raise OperationDataError("does not start with the version A")
    parts = _split_data(raw[1:])
    number = parts[0]
    if not 1 <= len(number) <= 2 or not set(number) <= _DIGITS:
        raise OperationDataError("has no template number (0 to 99) after the version")
    if len(parts) - 1 > DATA_MAX_FIELDS:
        raise OperationDataError(f"has more than {DATA_MAX_FIELDS} fields")
    return {"template": int(number), "fields": [_data_field(part) for part in parts[1:]]}


def _split_data(raw: bytes) -> List[bytes]:
    """Split at every ``*`` not escaped, each part unescaped (escapes checked)."""
    parts = [bytearray()]
    index = 0
    while index < len(raw):
        byte = raw[index]
        if byte == 0x5C:  # backslash
            if index + 1 >= len(raw):
                raise OperationDataError("ends with a lone backslash")
            escaped = raw[index + 1]
            if escaped not in b"*\\n":
                raise OperationDataError("has a backslash that escapes neither *, \\ nor n")
            parts[-1].append(0x0A if escaped == 0x6E else escaped)
            index += 2
            continue
        if byte == 0x2A:  # *
            parts.append(bytearray())
        else:
            parts[-1].append(byte)
        index += 1
    return [bytes(part) for part in parts]


def _data_field(part: bytes) -> Dict[str, Any]:
    if not part:
        raise OperationDataError("has an empty field")
    letter, value = part[:1], part[1:]
    # The letter first: a field that starts with a multi-byte character is of no known type (and its rest is no whole UTF-8).
    if letter not in (b"A", b"I", b"Q", b"D", b"R", b"N", b"T"):
        raise OperationDataError("has a field of an unknown type (not A, I, Q, D, R, N or T)")
    text = value.decode("utf-8")
    if letter == b"A":
        if len(value) <= 3:
            raise OperationDataError("has an amount (A) without digits and a three-letter currency")
        number, currency = value[:-3], value[-3:]
        if not set(currency) <= _UPPER:
            raise OperationDataError("has an amount (A) whose currency is not three capital letters")
        if number.count(b".") > 1 or not set(number) & _DIGITS or not set(number) <= _DIGITS | {0x2E}:
            raise OperationDataError("has an amount (A) that is not digits with at most one dot")
        return {"type": "amount", "amount": number.decode(), "currency": currency.decode()}
    if letter == b"I":
        pieces = value.split(b",")
        if len(pieces) > 2:
            raise OperationDataError("has an IBAN (I) with more than one BIC")
        if not iban_valid(pieces[0].decode("utf-8")):
            raise OperationDataError("has an IBAN (I) whose mod-97 check fails")
        bic = None
        if len(pieces) == 2:
            code = pieces[1]
            if len(code) not in (8, 11) or not set(code) <= _DIGITS | _UPPER \
                    or not set(code[4:6]) <= _UPPER:
                raise OperationDataError(
                    "has a BIC after the IBAN (I) that is not 8 or 11 capital letters and digits")
            bic = code.decode()
        return {"type": "iban", "iban": pieces[0].decode(), "bic": bic}
    if letter == b"Q":
        if not value:
            raise OperationDataError("has an empty account (Q)")
        return {"type": "account", "account": text}
    if letter == b"D":
        if len(value) != 8 or not set(value) <= _DIGITS:
            raise OperationDataError("has a date (D) that is not YYYYMMDD")
        year, month, day = int(value[:4]), int(value[4:6]), int(value[6:])
        if not 1 <= month <= 12 or not 1 <= day <= _days_in(month, year):
            raise OperationDataError("has a date (D) that does not exist")
        return {"type": "date", "date": f"{year:04d}-{month:02d}-{day:02d}"}
    kinds = {b"R": "reference", b"N": "note", b"T": "text"}
    if letter in kinds:
        return {"type": kinds[letter], kinds[letter]: text}
    raise OperationDataError("has a field of an unknown type (not A, I, Q, D, R, N or T)")


def _days_in(month: int, year: int) -> int:
    if month == 2:
        return 29 if (year % 4 == 0 and year % 100 != 0) or year % 400 == 0 else 28
    return 30 if month in (4, 6, 9, 11) else 31


def escape_operation_data(value: str) -> str:
    """One field's value as it goes into operation data: ``\\`` → ``\\\\``, ``*`` → ``\\*``,
    a newline → ``\\n``."""
    return value.replace("\\", "\\\\").replace("*", "\\*").replace("\n", "\\n")


def iban_valid(text: str) -> bool:
    """ISO 13616: two capital letters, two check digits, 11 to 30 capital letters and digits
    (15 to 34 in all), whose number (letters 10–35, the first four characters moved to the end)
    is 1 modulo 97."""
    raw = text.encode("utf-8", "replace")
    if not 15 <= len(raw) <= 34 or not set(raw) <= _DIGITS | _UPPER:
        return False
    if raw[0] not in _UPPER or raw[1] not in _UPPER or raw[2] not in _DIGITS or raw[3] not in _DIGITS:
        return False
    remainder = 0
    for byte in raw[4:] + raw[:4]:
        value = byte - 48 if byte in _DIGITS else byte - 55
        remainder = (remainder * (100 if value >= 10 else 10) + value) % 97
    return remainder == 1


def format_amount(amount: str) -> str:
    """An amount as a banking app shows it: thousands grouped by spaces, leading zeros dropped
    (``1500.00`` → ``1 500.00``). Text that is not digits with at most one dot comes back as is."""
    raw = amount.encode("utf-8", "replace")
    if amount.count(".") > 1 or not set(raw) <= _DIGITS | {0x2E} or not set(raw) & _DIGITS:
        return amount
    whole, _, fraction = amount.partition(".")
    whole = whole.lstrip("0") or "0"
    groups = []
    while len(whole) > 3:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    groups.insert(0, whole)
    return " ".join(groups) + ("." + fraction if fraction else "")


def format_iban(iban: str) -> str:
    """A valid IBAN in groups of four (``CZ27 3030 0000 …``); anything else as is."""
    return " ".join(iban[i:i + 4] for i in range(0, len(iban), 4)) if iban_valid(iban) else iban


def _field_text(field: Dict[str, Any]) -> str:
    kind = field["type"]
    if kind == "amount":
        return f"{format_amount(field['amount'])} {field['currency']}"
    if kind == "iban":
        return format_iban(field["iban"]) + (f" (BIC {field['bic']})" if field["bic"] else "")
    return field[kind]


def _field_values(field: Dict[str, Any]) -> List[str]:
    """The texts an attribute may render out of one field (each whole: a part of a field, say
    ``500.00`` of ``1500.00``, is no rendering of it)."""
    kind = field["type"]
    if kind == "amount":
        return [field["amount"] + "\n" + field["currency"]]
    if kind == "iban":
        return [field["iban"], field["bic"] or field["iban"], format_iban(field["iban"])]
    if kind == "date":
        return [field["date"], field["date"].replace("-", "")]
    return [field[kind]]


def show_operation(operation: Mapping[str, Any]) -> Dict[str, Any]:
    """What a banking app shows of an operation (one of ``operations()``), formatted — never the
    raw data string:

    - ``title``, ``message`` as they are (the signed hash covers them);
    - ``attributes`` in the Mobile Token API's ``formData`` style: each attribute as the template
      made it, plus ``text`` (what the row shows: ``1 500.00 EUR``, the value, the note; a
      heading's is its label), for ``amount`` also ``amountFormatted`` and ``currencyFormatted``,
      and ``inData``: whether what it shows is a whole field of the operation's data (an
      amount and its currency, an IBAN, a date, a text). Attributes are not signed — only the
      title, message and data are — so an attribute not ``inData`` shows something the approval
      does not cover;
    - ``template`` and ``fields``: the parsed data, each field with a ``label`` and a ``text``
      (``dataError`` names the rule when the data does not parse: do not offer approval then);
    - ``lines``: all of it as plain text lines (title, message, ``label: text`` per attribute, or
      per field when there are no attributes).
    """
    try:
        parsed: Optional[Dict[str, Any]] = parse_operation_data(operation["data"])
        error = None
    except OperationDataError as caught:
        parsed, error = None, caught.rule
    fields = [{**field, "label": FIELD_LABELS[field["type"]], "text": _field_text(field)}
              for field in (parsed["fields"] if parsed else [])]
    values = [value for field in (parsed["fields"] if parsed else []) for value in _field_values(field)]

    def occurs(text: str) -> bool:
        return parsed is not None and text in values

    attributes = []
    for attribute in operation.get("attributes") or []:
        kind = attribute.get("type")
        shown = dict(attribute)
        if kind == "amount":
            shown["amountFormatted"] = format_amount(attribute["amount"])
            shown["currencyFormatted"] = attribute["currency"]
            shown["text"] = f"{shown['amountFormatted']} {attribute['currency']}"
            shown["inData"] = occurs(attribute["amount"] + "\n" + attribute["currency"])
        elif kind == "keyValue":
            shown["text"] = attribute["value"]
            shown["inData"] = occurs(attribute["value"])
        elif kind == "note":
            shown["text"] = attribute["note"]
            shown["inData"] = occurs(attribute["note"])
        else:
            shown["text"] = attribute.get("label", "")
            shown["inData"] = True
        attributes.append(shown)
    rows = attributes if attributes else fields
    lines = [operation["title"], *operation["message"].split("\n")]
    lines += [row["text"] if row.get("type") == "heading" else f"{row['label']}: {row['text']}"
              for row in rows]
    return {"operationId": operation["operationId"], "title": operation["title"],
            "message": operation["message"], "attributes": attributes,
            "template": parsed["template"] if parsed else None, "fields": fields,
            "dataError": error, "lines": lines}


# -- offline approval: the QR payload and the code ------------------------------------------

class QRPayloadError(ValueError):
    """Why a QR payload was refused (``its signature is not …``); the device answers ``qrInvalid``."""


@dataclass(frozen=True)
class QRPayload:
    """A QR payload's eight lines, read: title and message unescaped, ``biometric`` the ``B``
    flag, ``nonce`` as written (unpadded base64url of 16 bytes), ``signature`` DER bytes."""
    operation_id: str
    title: str
    message: str
    data: str
    biometric: bool
    nonce: str
    signature: bytes

    @property
    def signed_text(self) -> str:
        """The seven lines the signature covers, joined by ``\\n``."""
        return qr_signed_text(self.operation_id, self.title, self.message, self.data,
                              self.biometric, self.nonce)

    @property
    def text(self) -> str:
        return self.signed_text + "\n" + b64url(self.signature)

    @property
    def operation_hash(self) -> str:
        """The operation's hash, from what the payload shows."""
        return operation_hash(self.operation_id, self.title, self.message, self.data)


def _escape_line(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _unescape_line(line: str, what: str) -> str:
    out = []
    escaping = False
    for character in line:
        if escaping:
            if character not in "\\n":
                raise QRPayloadError(f"its {what} has a backslash that escapes neither \\ nor n")
            out.append("\n" if character == "n" else "\\")
            escaping = False
        elif character == "\\":
            escaping = True
        else:
            if ord(character) < 0x20:
                raise QRPayloadError(f"its {what} holds a control character")
            out.append(character)
    if escaping:
        raise QRPayloadError(f"its {what} ends with a lone backslash")
    return "".join(out)


def qr_signed_text(operation_id: str, title: str, message: str, data: str, biometric: bool,
                   nonce: str) -> str:
    return "\n".join([QR_HEADER, operation_id, _escape_line(title), _escape_line(message), data,
                      "B" if biometric else "", nonce])


def parse_qr_payload(text: str, operation_signing_key: Optional[str] = None) -> QRPayload:
    """Reads a QR payload strictly (its form as the contract writes it: eight lines, the header,
    a printable operation id, title and message with only ``\\\\`` and ``\\n`` escapes, operation
    data, flags empty or ``B``, a 16-byte nonce and a DER signature, both canonical unpadded
    base64url, at most 4 096 bytes) and, given ``operation_signing_key`` (the public key, unpadded
    base64url), checks the ECDSA P-256 / SHA-256 signature over the first seven lines.
    Raises ``QRPayloadError`` naming the first flaw."""
    if not isinstance(text, str):
        raise QRPayloadError("it is not text")
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise QRPayloadError("it is not UTF-8 text") from None
    if size > QR_MAX_BYTES:
        raise QRPayloadError(f"it is longer than {QR_MAX_BYTES} bytes")
    lines = text.split("\n")
    if len(lines) != 8:
        raise QRPayloadError("it does not have eight lines")
    if lines[0] != QR_HEADER:
        raise QRPayloadError(f"it does not start with {QR_HEADER}")
    operation_id = lines[1]
    if not 1 <= len(operation_id) <= 128 or not all(0x20 < ord(c) < 0x7F for c in operation_id):
        raise QRPayloadError("its operation id is not printable ASCII")
    title = _unescape_line(lines[2], "title")
    message = _unescape_line(lines[3], "message")
    data = lines[4]
    try:
        parse_operation_data(data)
    except OperationDataError as error:
        raise QRPayloadError(f"its data is not operation data: it {error.rule}") from None
    if lines[5] not in ("", "B"):
        raise QRPayloadError("its flags are neither empty nor B")
    nonce = _b64url_strict(lines[6])
    if nonce is None or len(nonce) != 16:
        raise QRPayloadError("its nonce is not 16 bytes of unpadded base64url")
    signature = _b64url_strict(lines[7])
    if not signature or len(signature) > 72:
        raise QRPayloadError("its signature is not DER in unpadded base64url")
    payload_ = QRPayload(operation_id, title, message, data, lines[5] == "B", lines[6], signature)
    if operation_signing_key is not None:
        key = _point(operation_signing_key)
        try:
            if key is None:
                raise InvalidSignature()
            key.verify(signature, payload_.signed_text.encode("utf-8"), ec.ECDSA(hashes.SHA256()))
        except (InvalidSignature, ValueError, TypeError):
            raise QRPayloadError(
                "its signature is not the application's operation-signing key's") from None
    return payload_


def sign_qr_payload(private: bytes, operation_id: str, title: str, message: str, data: str,
                    biometric: bool, nonce: str) -> str:
    """A QR payload signed by ``private`` (what ``admin/operationQrCode`` makes with the
    application's operation-signing key): for tests and tools."""
    text = qr_signed_text(operation_id, title, message, data, biometric, nonce)
    return text + "\n" + sign(private, text.encode("utf-8"), "der")


def truncate(mac: bytes, digits: int = 8) -> str:
    """RFC 4226's dynamic truncation: offset the low 4 bits of the last byte (``M[31] & 0x0F``
    for a SHA-256 MAC), the 4 bytes from it big-endian ``& 0x7FFFFFFF``, modulo 10^digits,
    written with exactly ``digits`` digits (leading zeros kept)."""
    offset = mac[-1] & 0x0F
    value = int.from_bytes(mac[offset:offset + 4], "big") & 0x7FFFFFFF
    return str(value % 10 ** digits).zfill(digits)


def offline_part(private: bytes, role: str, server_public_key: str, registration_id: str,
                 operation_id: str, operation_hash_: str, nonce: str) -> str:
    """One part of the offline code, as the contract defines it::

        K = HKDF-SHA256(IKM = the 32-byte x of ECDH(private, serverPublicKey), salt empty,
                        info "LATCHKEY-OTP-V1\\n<role>\\n<registrationId>", 32 bytes)
        M = HMAC-SHA256(K, "LATCHKEY-OTP-V1\\n<operationId>\\n<operation hash>\\n<nonce>")
        part = truncate(M), 8 digits

    The server computes the same from its private key and the role's public key. Bytes that are
    no key (a wrong PIN's, once in 2^32) stand in with their SHA-256 for the shared secret: a part
    no one can predict, as a wrong key's."""
    key = _key(private)
    if key is None:
        secret = hashlib.sha256(private).digest()
    else:
        theirs = _point(server_public_key)
        if theirs is None:
            raise ValueError("the server key is not a P-256 public key")
        secret = key.exchange(ec.ECDH(), theirs)
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"",
                   info=f"{OTP_LABEL}\n{role}\n{registration_id}".encode("utf-8")).derive(secret)
    mac = hmac.new(derived, f"{OTP_LABEL}\n{operation_id}\n{operation_hash_}\n{nonce}".encode("utf-8"),
                   hashlib.sha256).digest()
    return truncate(mac)


# -- the device -----------------------------------------------------------------------------

class Device:
    """One phone's half of the flows, over the ``server/`` methods.

    ``signature_format`` is ``der`` or ``raw`` (the server takes both); ``random_bytes``
    draws keys and salts (pass a seeded source for reproducible runs: signatures are RFC 6979
    deterministic already).
    """

    def __init__(self, client: Any, installation_id: str,
                 storage: Optional[MutableMapping[str, str]] = None, *,
                 signature_format: str = "der",
                 random_bytes: Callable[[int], bytes] = os.urandom,
                 application_id: Optional[str] = None) -> None:
        self.client = client
        self.installation_id = installation_id
        self.storage: MutableMapping[str, str] = {} if storage is None else storage
        self.signature_format = signature_format
        self.random_bytes = random_bytes
        self.application_id = application_id

    # -- local state ------------------------------------------------------------------------

    @property
    def registration_id(self) -> Optional[str]:
        return self.storage.get(REGISTRATION_ID)

    @property
    def is_activated(self) -> bool:
        return REGISTRATION_ID in self.storage

    @property
    def is_recovery_activated(self) -> bool:
        return RECOVERY_MASKED_KEY in self.storage

    @property
    def methods(self) -> List[str]:
        text = self.storage.get(METHODS, "")
        return text.split(",") if text else []

    def status(self) -> Dict[str, Any]:
        """What the phone shows without authenticating: its own state, and the server's view of
        its registration (``server/registration/status``) when it holds one."""
        local = {"activated": self.is_activated, "registrationId": self.registration_id,
                 "authMethods": self.methods, "lastMethod": self.storage.get(LAST_METHOD),
                 "recoveryActivated": self.is_recovery_activated,
                 "onboardingProcessId": self.storage.get(ONBOARDING_PROCESS)}
        if self.is_activated:
            local["server"] = self.client.call("server/registration/status",
                                               {"registrationId": self.registration_id})
        return local

    # -- activation -------------------------------------------------------------------------

    def prepare_activation(self, activation_code: str) -> Dict[str, Any]:
        """Opens an activation with a code; answers the offer (``activationId``, ``challenge``,
        ``authMethodsForActivation``, PIN rules) that ``commit_activation`` completes."""
        self._require_not_activated()
        params = {"activationCode": activation_code, "installationId": self.installation_id}
        if self.application_id is not None:
            params["applicationId"] = self.application_id
        return self.client.call("server/activation/prepare", params)

    def commit_activation(self, offer: Dict[str, Any], pin: Optional[str] = None,
                          biometry: Optional[str] = None, activation_name: Optional[str] = None,
                          token_purpose: Optional[str] = None) -> Dict[str, Any]:
        """Makes the keys — ``device``, a PIN key when ``pin`` is given, a ``touchId``/``faceId``
        key when ``biometry`` names one — and has the server register them with their proofs.
        Answers ``{registrationId, activatedAuthMethods, token*}``."""
        self._require_not_activated()
        chosen = self._chosen_factors(offer, pin, biometry)
        if token_purpose not in (None, "none") and not chosen:
            raise DeviceError("authMethodNotAllowed", "A token needs a two-factor method")
        made = {role: new_private_key(self.random_bytes) for role in ["device", *chosen]}
        keys = {role: self._hand_over(key, "activate", offer["activationId"], offer["challenge"], role)
                for role, key in made.items()}
        params: Dict[str, Any] = {"activationId": offer["activationId"], "keys": keys}
        if activation_name is not None:
            params["activationName"] = activation_name
        if token_purpose is not None:
            params["tokenPurpose"] = token_purpose
        result = self.client.call("server/activation/commit", params)
        self._keep_activation(result["registrationId"], made, pin, result["activatedAuthMethods"], offer)
        self._learn_keys(result)
        return result

    def activate(self, activation_code: str, pin: Optional[str] = None, biometry: Optional[str] = None,
                 activation_name: Optional[str] = None,
                 token_purpose: Optional[str] = None) -> Dict[str, Any]:
        """``prepare_activation`` then ``commit_activation``."""
        offer = self.prepare_activation(activation_code)
        return self.commit_activation(offer, pin=pin, biometry=biometry,
                                      activation_name=activation_name, token_purpose=token_purpose)

    # -- authentication ---------------------------------------------------------------------

    def start_authentication(self, purpose: str = "authenticate") -> Dict[str, Any]:
        """A challenge for the registration (it picks up a pending pushed authentication, whose
        ``contextTitle``/``contextContent``/``contextMIME`` the app shows). The device checks the
        challenge's ``contextHash`` against the context it received and signs its own hash."""
        registration_id = self._held_registration()
        challenge = self.client.call("server/authentication/challenge",
                                     {"registrationId": registration_id, "purpose": purpose})
        self._learn_keys(challenge)
        mine = (context_hash(challenge.get("contextTitle"), challenge.get("contextContent"),
                             challenge.get("contextMIME"))
                if challenge.get("authenticationId") is not None else "")
        if challenge.get("contextHash", "") != mine:
            raise DeviceError("contextHashMismatch",
                              "The server's context hash does not match the context it sent; "
                              "nothing was signed")
        challenge["contextHash"] = mine
        return challenge

    def finish_authentication(self, challenge: Dict[str, Any], pin: Optional[str] = None,
                              biometry: Optional[str] = None,
                              token_purpose: Optional[str] = None) -> Dict[str, Any]:
        """Answers ``challenge`` with the device key and at most one second factor: the PIN
        (its key unmasked with ``pin``: a wrong PIN signs with a wrong key, the server counts),
        or ``biometry`` (``touchId``/``faceId``: the caller says the sensor matched). Answers
        ``{responseType, contextContent, token*}``; approves a pushed authentication. A biometric
        key destroyed by ``change_biometric_enrolment`` raises ``biometryKeyInvalidated`` (see
        there); ``challenge`` is left unanswered, so another method may still answer it."""
        self._refuse_invalidated(biometry)
        signatures = self.sign_challenge(challenge, pin=pin, biometry=biometry)
        params: Dict[str, Any] = {"registrationId": self.registration_id,
                                  "challengeId": challenge["challengeId"], "signatures": signatures}
        if token_purpose is not None:
            params["tokenPurpose"] = token_purpose
        result = self.client.call("server/authentication/verify", params)
        self.storage[LAST_METHOD] = _method(pin, biometry)
        return result

    def sign_challenge(self, challenge: Dict[str, Any], pin: Optional[str] = None,
                       biometry: Optional[str] = None,
                       operation: str = "authenticate") -> Dict[str, str]:
        """The ``signatures`` member answering ``challenge``: the device key's and at most one
        second factor's, over ``operation``'s payload (what ``finish_authentication`` sends)."""
        return self._signatures(operation, challenge, pin, biometry)

    def cancel_authentication(self, challenge: Dict[str, Any]) -> bool:
        """Uses the challenge up unanswered; a pushed authentication it picked up is rejected."""
        return self.client.call("server/authentication/cancel", {
            "registrationId": self._held_registration(),
            "challengeId": challenge["challengeId"]})["cancelled"]

    def authenticate(self, pin: Optional[str] = None, biometry: Optional[str] = None,
                     token_purpose: Optional[str] = None,
                     approve: Optional[Callable[[Dict[str, Any]], bool]] = None) -> Dict[str, Any]:
        """``start_authentication`` then ``finish_authentication``. When the challenge picked
        up a pushed authentication, ``approve(challenge)`` decides (the user read the context):
        False cancels (the push is rejected) and answers ``{"responseType": "rejected"}``."""
        challenge = self.start_authentication()
        if challenge.get("authenticationId") is not None and approve is not None \
                and not approve(challenge):
            self.cancel_authentication(challenge)
            return {"responseType": "rejected", "authenticationId": challenge["authenticationId"]}
        return self.finish_authentication(challenge, pin=pin, biometry=biometry,
                                          token_purpose=token_purpose)

    # -- methods and the registration -------------------------------------------------------

    def add_auth_method(self, method: str, new_pin: Optional[str] = None, *,
                        pin: Optional[str] = None, biometry: Optional[str] = None) -> List[str]:
        """Adds (or replaces) ``method``'s key — ``pin`` with ``new_pin``, or ``touchId`` /
        ``faceId`` — once the user proves themselves with ``pin`` or ``biometry``, a method the
        application's ``addOrUpdateAllowedBy`` lets add ``method``. Answers the methods."""
        if method not in TWO_FACTOR:
            raise DeviceError("authMethodNotAllowed", "Only pin, touchId and faceId can be added")
        if method == "pin" and new_pin is None:
            raise DeviceError("policyViolation", "A new PIN is needed", violations=["tooShort"])
        if method == "pin" and PIN_RULES in self.storage:
            kind, low, high = self.storage[PIN_RULES].split(",")
            self._check_pin(new_pin, {"pinCodeType": kind, "pinCodeLengthMin": int(low),
                                      "pinCodeLengthMax": int(high)})
        self._refuse_invalidated(biometry)
        challenge = self.start_authentication()
        key = new_private_key(self.random_bytes)
        params = {"registrationId": self.registration_id, "challengeId": challenge["challengeId"],
                  "signatures": self._signatures("addAuthMethod", challenge, pin, biometry),
                  "method": method,
                  "key": self._hand_over(key, "addAuthMethod", self.registration_id,
                                         challenge["challenge"], method, challenge["contextHash"])}
        methods = self.client.call("server/authMethod/add", params)["activatedAuthMethods"]
        self._store_factor(method, key, new_pin)
        self.storage[METHODS] = ",".join(methods)
        return methods

    def change_biometric_enrolment(self) -> List[str]:
        """A finger or a face added or enrolled again: the phone destroys its ``touchId`` and
        ``faceId`` keys, which are bound to the enrolled biometrics (Encap's StrongTouchID; iOS
        ``.biometryCurrentSet``, Android ``setInvalidatedByBiometricEnrollment``). In an app, call
        it when the keystore reports the key permanently invalidated. Answers the methods whose
        keys it destroyed. The server learns on their next use: ``finish_authentication`` (or
        ``add_auth_method`` proven with such a method) removes the method through
        ``server/authMethod/remove`` (a device signature) and raises ``biometryKeyInvalidated``
        with ``data.authMethod`` and ``data.activatedAuthMethods``; nothing counts. Add the method
        again with ``add_auth_method(method, pin=...)``; a registration left with ``device`` alone
        needs a recovery or a new activation."""
        destroyed = [method for method in BIOMETRIC if BIOMETRIC_KEYS[method] in self.storage]
        self._wipe([BIOMETRIC_KEYS[method] for method in destroyed])
        return destroyed

    def remove_auth_method(self, method: str) -> List[str]:
        """Removes ``method`` from the registration and the device (the device key signs)."""
        if method == "device":
            raise DeviceError("cannotDeactivateDevice",
                              "The device method cannot be removed; remove the registration")
        if method not in self.methods:
            raise DeviceError("authMethodNotAllowed", f"{method} is not activated on this device")
        challenge = self.start_authentication()
        methods = self.client.call("server/authMethod/remove", {
            "registrationId": self.registration_id, "challengeId": challenge["challengeId"],
            "signatures": self._signatures("removeAuthMethod", challenge, None, None),
            "method": method})["activatedAuthMethods"]
        self._forget_factor(method)
        self.storage[METHODS] = ",".join(methods)
        return methods

    def remove_registration(self, only_locally: bool = False) -> None:
        """Removes the registration on the server (the device key signs its removal; this works
        when the registration is locked) unless ``only_locally``, then forgets it. A
        registration the server has removed already, or does not know, is only forgotten; one
        whose keys a recovery moved elsewhere answers ``registrationRemoved`` (the other phone's
        registration is left alone; ``only_locally=True`` forgets it here)."""
        registration_id = self._held_registration()
        if not only_locally:
            try:
                challenge = self.start_authentication(purpose="removeRegistration")
            except LatchkeyError as error:
                if error.reason not in ("registrationRemoved", "notFound"):
                    raise
                self._wipe(ACTIVATION_ITEMS)
                return
            self.client.call("server/registration/remove", {
                "registrationId": registration_id, "challengeId": challenge["challengeId"],
                "signatures": self._signatures("removeRegistration", challenge, None, None)})
        self._wipe(ACTIVATION_ITEMS)

    # -- backup-code recovery ---------------------------------------------------------------

    def set_recovery(self, token: str, recovery_code: str,
                     token_purpose: Optional[str] = None) -> Dict[str, Any]:
        """Sets (or replaces) the recovery code with an ``addOrUpdateRecovery`` token: a new
        recovery key, masked under the code, joins the recovery data (what backups carry); the
        server keeps its public key. Answers ``{recoveryMethods, token*}``."""
        registration_id = self._held_registration()
        if not 6 <= len(recovery_code) <= 64:
            raise DeviceError("policyViolation", "A recovery code has 6 to 64 characters",
                              violations=["tooShort" if len(recovery_code) < 6 else "tooLong"])
        key = new_private_key(self.random_bytes)
        salt = self.random_bytes(16)
        params: Dict[str, Any] = {
            "registrationId": registration_id, "token": token,
            "key": self._hand_over(key, "setRecovery", registration_id, token, "recovery")}
        if token_purpose is not None:
            params["tokenPurpose"] = token_purpose
        result = self.client.call("server/recovery/set", params)
        self.storage[RECOVERY_REGISTRATION_ID] = registration_id
        self.storage[RECOVERY_SALT] = b64url(salt)
        self.storage[RECOVERY_MASKED_KEY] = b64url(mask(key, recovery_code, salt, RECOVERY_ROUNDS))
        return result

    def delete_recovery(self, token: str, token_purpose: Optional[str] = None) -> Dict[str, Any]:
        """Deletes the recovery method with a ``deleteRecovery`` token, on both sides."""
        params: Dict[str, Any] = {"registrationId": self._held_registration(), "token": token}
        if token_purpose is not None:
            params["tokenPurpose"] = token_purpose
        result = self.client.call("server/recovery/delete", params)
        self._wipe(RECOVERY_ITEMS)
        return result

    def backup(self) -> str:
        """What a backup of this phone carries: the recovery data (never the activation keys,
        which are this-device-only), as a JSON string the app stores."""
        items = {name: self.storage[name] for name in RECOVERY_ITEMS if name in self.storage}
        return json.dumps({"format": BACKUP_FORMAT, "items": items}, sort_keys=True)

    def restore(self, blob: str) -> None:
        """Puts a backup's recovery data on this phone (it replaces any it had)."""
        try:
            data = json.loads(blob)
            assert data["format"] == BACKUP_FORMAT
            items = {name: data["items"][name] for name in RECOVERY_ITEMS if name in data["items"]}
            assert all(isinstance(v, str) for v in items.values())
        except (ValueError, KeyError, TypeError, AssertionError):
            raise DeviceError("invalidBackup", "Not a Latchkey device backup") from None
        self._wipe(RECOVERY_ITEMS)
        self.storage.update(items)

    def recover(self, recovery_code: str, pin: Optional[str] = None, biometry: Optional[str] = None,
                registration_id: Optional[str] = None,
                token_purpose: Optional[str] = None) -> Dict[str, Any]:
        """Recovers the registration of the restored recovery data onto this phone: the recovery
        key (unmasked with ``recovery_code``; a wrong code unmasks a wrong key, which only the
        server tells, and counts) signs, and new ``device`` and ``pin`` (or ``biometry``) keys
        replace the lost phone's. The recovery key is used up (set a new one: ask
        ``token_purpose="addOrUpdateRecovery"``). Answers as ``commit_activation``."""
        self._require_not_activated()
        held = self.storage.get(RECOVERY_REGISTRATION_ID)
        if held is None or RECOVERY_MASKED_KEY not in self.storage:
            raise DeviceError("recoveryNotActivated", "This device holds no recovery data")
        if registration_id is not None and registration_id != held:
            raise DeviceError("recoveryNotActivated", "The recovery data is another registration's")
        if (pin is None) == (biometry is None):
            raise DeviceError("authMethodNotAllowed",
                              "Recovery activates exactly one two-factor method besides device")
        offer = self.client.call("server/recovery/challenge",
                                 {"registrationId": held, "installationId": self.installation_id})
        chosen = self._chosen_factors(offer, pin, biometry)
        made = {role: new_private_key(self.random_bytes) for role in ["device", *chosen]}
        keys = {role: self._hand_over(key, "recover", held, offer["challenge"], role)
                for role, key in made.items()}
        recovery_key = mask(b64url_decode(self.storage[RECOVERY_MASKED_KEY]), recovery_code,
                            b64url_decode(self.storage[RECOVERY_SALT]), RECOVERY_ROUNDS)
        params: Dict[str, Any] = {
            "registrationId": held, "challengeId": offer["challengeId"], "keys": keys,
            "recoverySignature": sign(recovery_key, payload("recover", held, offer["challenge"],
                                                            "recovery"), self.signature_format)}
        if token_purpose is not None:
            params["tokenPurpose"] = token_purpose
        result = self.client.call("server/recovery/commit", params)
        self._keep_activation(result["registrationId"], made, pin, result["activatedAuthMethods"], offer,
                              recovery=True)
        self._learn_keys(result)
        self._wipe(RECOVERY_ITEMS)
        return result

    # -- operations ---------------------------------------------------------------------------

    @property
    def operation_signing_key(self) -> Optional[str]:
        """The application's operation-signing key (unpadded base64url), as first learned."""
        return self.storage.get(OPERATION_SIGNING_KEY)

    @property
    def server_public_key(self) -> Optional[str]:
        """The registration's server key (unpadded base64url): offline codes are derived with it."""
        return self.storage.get(SERVER_PUBLIC_KEY)

    def operations(self) -> List[Dict[str, Any]]:
        """The inbox: the registration's pending operations, oldest first
        (``server/operation/list``; no signature needed). Show one with ``show_operation``."""
        inbox = self.client.call("server/operation/list", {"registrationId": self._held_registration()})
        self._learn_keys(inbox)
        return inbox["operations"]

    @staticmethod
    def show_operation(operation: Mapping[str, Any]) -> Dict[str, Any]:
        """What the app shows of ``operation`` (see the module's ``show_operation``)."""
        return show_operation(operation)

    def approve_operation(self, operation_id: Union[str, Mapping[str, Any]], pin: Optional[str] = None,
                          biometry: Optional[str] = None,
                          shown_data: Optional[str] = None) -> Dict[str, Any]:
        """Approves an operation with the device key and a second factor (``pin``: its key
        unmasked with it, a wrong PIN signs with a wrong key and the server counts; or
        ``biometry``). The device signs the hash of what it shows — the title and message of the
        operation as shown (``operation_id`` may be the operation from ``operations()``, else the
        challenge's) and ``shown_data`` (default: the operation's data; another string models a
        tampered display, which the server answers ``operationDataMismatch``). Answers the
        operation, ``approved``. A biometric key destroyed by ``change_biometric_enrolment``
        raises ``biometryKeyInvalidated`` as ``finish_authentication`` does."""
        registration_id = self._held_registration()
        identifier, shown = _operation_id(operation_id)
        challenge = self._operation_challenge(registration_id, identifier)
        self._refuse_invalidated(biometry)
        hashed = self._shown_hash(identifier, shown or challenge["operation"], shown_data)
        signatures = self._signatures("approveOperation",
                                      {"challenge": challenge["challenge"], "contextHash": hashed},
                                      pin, biometry)
        result = self.client.call("server/operation/approve", {
            "registrationId": registration_id, "challengeId": challenge["challengeId"],
            "operationId": identifier, "operationHash": hashed, "signatures": signatures})
        self.storage[LAST_METHOD] = _method(pin, biometry)
        return result

    def reject_operation(self, operation_id: Union[str, Mapping[str, Any]], reason: str = "unknown",
                         shown_data: Optional[str] = None) -> Dict[str, Any]:
        """Rejects an operation for ``reason`` (``unknown``, ``incorrectData``,
        ``unexpectedOperation``), signed by the device key alone over ``<reason>:<hash of what it
        shows>`` (``shown_data`` as in ``approve_operation``: a hash other than the operation's
        still rejects it, and the server's audit says ``dataMismatch``). Counts nothing."""
        registration_id = self._held_registration()
        identifier, shown = _operation_id(operation_id)
        challenge = self._operation_challenge(registration_id, identifier)
        hashed = self._shown_hash(identifier, shown or challenge["operation"], shown_data)
        signed = payload("rejectOperation", registration_id, challenge["challenge"], "device",
                         f"{reason}:{hashed}")
        return self.client.call("server/operation/reject", {
            "registrationId": registration_id, "challengeId": challenge["challengeId"],
            "operationId": identifier, "operationHash": hashed, "reason": reason,
            "signatures": {"device": sign(b64url_decode(self.storage[POSSESSION_KEY]), signed,
                                          self.signature_format)}})

    def offline_code(self, qr_payload: str, pin: Optional[str] = None,
                     biometry: Optional[str] = None) -> Dict[str, Any]:
        """Offline approval: reads the scanned ``qr_payload``, checks its signature with the
        operation-signing key kept from the activation, and answers ``{code, operationId, title,
        message, data}`` — show title, message and data (``show_operation`` formats them), and the
        code (``part(device)-part(method)``, 17 characters) for the user to type back. No server
        call. A wrong PIN unmasks a wrong key and gives a wrong code, which only the server tells.

        Raises ``DeviceError``: ``notActivatedLocally``; ``qrInvalid`` (not a payload of the
        contract's form, or not signed by the kept key; ``data.flaw`` says what); ``offlineUnavailable``
        (the device does not know the operation-signing key or its server key yet, e.g. after a
        recovery on a new phone: authenticate once online); ``authMethodNotAllowed``
        (``device`` alone, a method not activated, ``touchId``/``faceId`` when the payload's flags
        are not ``B``); ``biometryKeyInvalidated`` (the key is gone; offline, the server learns at
        the next online use)."""
        registration_id = self._held_registration()
        signing_key = self.storage.get(OPERATION_SIGNING_KEY)
        try:  # without a key, only the form can be checked
            scanned = parse_qr_payload(qr_payload, signing_key)
        except QRPayloadError as error:
            raise DeviceError("qrInvalid", f"The QR code was refused, {error}; nothing was shown",
                              flaw=str(error)) from None
        if signing_key is None:  # nothing wrong with the code: the phone cannot check it yet
            raise DeviceError("offlineUnavailable", "The device does not know the operation-signing "
                              "key yet, so it cannot check the QR code; nothing was shown: "
                              "authenticate once online")
        server_key = self.storage.get(SERVER_PUBLIC_KEY)
        if server_key is None or _point(server_key) is None:
            raise DeviceError("offlineUnavailable", "The device does not know its registration's "
                              "server key yet: authenticate once online")
        if pin is not None and biometry is not None:
            raise DeviceError("authMethodNotAllowed", "At most one second factor")
        method = _method(pin, biometry)
        if method == "device" or method not in self.methods or (method in BIOMETRIC and not scanned.biometric):
            raise DeviceError("authMethodNotAllowed", f"{method} may not make this code")
        if method in BIOMETRIC and BIOMETRIC_KEYS[method] not in self.storage:
            raise DeviceError("biometryKeyInvalidated",
                              f"The {method} key was destroyed by a change of biometric enrolment: "
                              "nothing was counted; approve with another method",
                              authMethod=method, activatedAuthMethods=self.methods)

        def part(private: bytes, role: str) -> str:
            return offline_part(private, role, server_key, registration_id, scanned.operation_id,
                                scanned.operation_hash, scanned.nonce)

        code = part(b64url_decode(self.storage[POSSESSION_KEY]), "device") + "-" \
            + part(self._factor_key(method, pin), method)
        return {"code": code, "operationId": scanned.operation_id, "title": scanned.title,
                "message": scanned.message, "data": scanned.data}

    # -- identity-based onboarding ----------------------------------------------------------

    def start_onboarding(self, credentials: Dict[str, Any]) -> str:
        """Starts onboarding from identity (``{"email": ...}``, …); the device remembers the
        process. The OTP goes out of band."""
        if self.is_activated:
            raise DeviceError("onboardingCannotActivate", "This device is activated already",
                              wdoReason="wdo_activation_cannotActivate")
        if ONBOARDING_PROCESS in self.storage:
            raise DeviceError("onboardingInProgress", "An onboarding process runs on this device",
                              wdoReason="wdo_activation_inProgress")
        params = {"credentials": credentials, "installationId": self.installation_id}
        if self.application_id is not None:
            params["applicationId"] = self.application_id
        process_id = self.client.call("server/onboarding/start", params)["processId"]
        self.storage[ONBOARDING_PROCESS] = process_id
        return process_id

    def onboarding_status(self) -> str:
        """The process's status; ``finished`` or ``failed`` ends the device's process."""
        process_id = self._process()
        try:
            status = self.client.call("server/onboarding/status", {"processId": process_id})["status"]
        except LatchkeyError as error:
            if error.reason != "onboardingNotRunning":
                raise
            status = "failed"
        if status in ("finished", "failed"):
            self.storage.pop(ONBOARDING_PROCESS, None)
        return status

    def resend_otp(self) -> None:
        self.client.call("server/onboarding/resendOtp", {"processId": self._process()})

    def prepare_onboarding_activation(self, otp: str) -> Dict[str, Any]:
        """Checks the OTP; answers the offer ``commit_activation`` completes."""
        process_id = self._process()
        self._require_not_activated()
        return self.client.call("server/onboarding/activate", {"processId": process_id, "otp": otp})

    def activate_onboarding(self, otp: str, pin: Optional[str] = None, biometry: Optional[str] = None,
                            activation_name: Optional[str] = None) -> Dict[str, Any]:
        """``prepare_onboarding_activation`` then ``commit_activation``: the registration is
        ``verificationPending`` until the operator completes the identity verification."""
        offer = self.prepare_onboarding_activation(otp)
        return self.commit_activation(offer, pin=pin, biometry=biometry, activation_name=activation_name)

    def cancel_onboarding(self, force: bool = True) -> None:
        """Cancels the process on the server (removing a pending registration it made); where
        the server cannot, ``force`` forgets the device's process anyway."""
        process_id = self._process()
        try:
            self.client.call("server/onboarding/cancel", {"processId": process_id})
        except LatchkeyError as error:
            if not force or error.reason == "invalidParams":
                raise
        self.storage.pop(ONBOARDING_PROCESS, None)

    # -- internals --------------------------------------------------------------------------

    def _held_registration(self) -> str:
        registration_id = self.registration_id
        if registration_id is None:
            raise DeviceError("notActivatedLocally", "This device holds no activation")
        return registration_id

    def _require_not_activated(self) -> None:
        if self.is_activated:
            raise DeviceError("alreadyActivated", "This device holds an activation already")

    def _process(self) -> str:
        process_id = self.storage.get(ONBOARDING_PROCESS)
        if process_id is None:
            raise DeviceError("onboardingNotRunning", "No onboarding process runs on this device",
                              wdoReason="wdo_activation_notRunning")
        return process_id

    def _check_pin(self, pin: str, rules: Dict[str, Any]) -> None:
        found = pin_violations(pin, rules)
        if found:
            raise DeviceError("policyViolation",
                              "The PIN does not meet the policy: " + ", ".join(found),
                              violations=found)

    def _chosen_factors(self, offer: Dict[str, Any], pin: Optional[str],
                        biometry: Optional[str]) -> List[str]:
        """The two-factor methods to make keys for, checked against the offer."""
        chosen = []
        if pin is not None:
            chosen.append("pin")
        if biometry is not None:
            if biometry not in BIOMETRIC:
                raise DeviceError("biometryUnavailable", f"No such biometry: {biometry}")
            chosen.append(biometry)
        for method in chosen:
            if method not in offer["authMethodsForActivation"]:
                raise DeviceError("authMethodNotAllowed",
                                  f"{method} is not enabled for this application")
        if pin is not None:
            self._check_pin(pin, offer)
        return chosen

    def _hand_over(self, private: bytes, operation: str, subject: str, challenge: str, role: str,
                   context: str = "") -> Dict[str, str]:
        """``{publicKey, proof}``: the key's own signature over the operation's payload."""
        return {"publicKey": public_key(private),
                "proof": sign(private, payload(operation, subject, challenge, role, context),
                              self.signature_format)}

    def _signatures(self, operation: str, challenge: Dict[str, Any], pin: Optional[str],
                    biometry: Optional[str]) -> Dict[str, str]:
        """The device key's signature and at most one second factor's."""
        if pin is not None and biometry is not None:
            raise DeviceError("authMethodNotAllowed", "At most one second factor")
        method = _method(pin, biometry)
        if method not in self.methods:
            raise DeviceError("authMethodNotAllowed", f"{method} is not activated on this device")
        registration_id = self._held_registration()

        def signed(role: str, private: bytes) -> str:
            return sign(private, payload(operation, registration_id, challenge["challenge"], role,
                                         challenge.get("contextHash", "")), self.signature_format)

        signatures = {"device": signed("device", b64url_decode(self.storage[POSSESSION_KEY]))}
        if method == "pin":
            signatures["pin"] = signed("pin", self._factor_key("pin", pin))
        elif method in BIOMETRIC:
            if BIOMETRIC_KEYS[method] not in self.storage:
                raise DeviceError("biometryKeyInvalidated",
                                  f"The {method} key was destroyed by a change of biometric enrolment",
                                  authMethod=method, activatedAuthMethods=self.methods)
            signatures[method] = signed(method, b64url_decode(self.storage[BIOMETRIC_KEYS[method]]))
        return signatures

    def _operation_challenge(self, registration_id: str, operation_id: str) -> Dict[str, Any]:
        challenge = self.client.call("server/operation/challenge",
                                     {"registrationId": registration_id, "operationId": operation_id})
        self._learn_keys(challenge)
        return challenge

    @staticmethod
    def _shown_hash(operation_id: str, shown: Mapping[str, Any], shown_data: Optional[str]) -> str:
        """The hash of what the phone displays: never the ``operationHash`` the server hands over."""
        return operation_hash(operation_id, shown["title"], shown["message"],
                              shown["data"] if shown_data is None else shown_data)

    def _learn_keys(self, answer: Mapping[str, Any]) -> None:
        """Keeps the keys an answer carries: the operation-signing key only when none is kept
        (the first one learned stays: a different one later is not taken), the server key as the
        server gives it (it stays the same across a recovery)."""
        signing_key = answer.get("operationSigningKey")
        if signing_key is not None and OPERATION_SIGNING_KEY not in self.storage:
            self.storage[OPERATION_SIGNING_KEY] = signing_key
        if answer.get("serverPublicKey") is not None:
            self.storage[SERVER_PUBLIC_KEY] = answer["serverPublicKey"]

    def _factor_key(self, method: str, pin: Optional[str]) -> bytes:
        """A two-factor method's private key (the PIN's unmasked with ``pin``: a wrong PIN gives
        a wrong key)."""
        if method == "pin":
            return mask(b64url_decode(self.storage[PIN_MASKED_KEY]), pin or "",
                        b64url_decode(self.storage[PIN_SALT]), PIN_ROUNDS)
        return b64url_decode(self.storage[BIOMETRIC_KEYS[method]])

    def _refuse_invalidated(self, biometry: Optional[str]) -> None:
        """An activated biometric method whose key a change of enrolment destroyed: removes it on
        the server and here (``remove_auth_method``: the device key signs, over a challenge of
        its own, so the one in hand stays unanswered) and raises ``biometryKeyInvalidated``."""
        if biometry not in BIOMETRIC or biometry not in self.methods \
                or BIOMETRIC_KEYS[biometry] in self.storage:
            return
        methods = self.remove_auth_method(biometry)
        then = ("add it again, proven with another two-factor method"
                if any(method in TWO_FACTOR for method in methods)
                else "the registration is left with device alone and needs a recovery or a new activation")
        raise DeviceError("biometryKeyInvalidated",
                          f"The {biometry} key was destroyed by a change of biometric enrolment: nothing "
                          f"was counted and {biometry} is deactivated; {then}",
                          authMethod=biometry, activatedAuthMethods=methods)

    def _keep_activation(self, registration_id: str, made: Dict[str, bytes], pin: Optional[str],
                         methods: List[str], offer: Dict[str, Any], recovery: bool = False) -> None:
        # A new activation learns the operation-signing key from its offer (prepare's). A
        # recovery's answers carry none: it keeps the key the phone holds, as first learned (a
        # phone restored from a backup holds none — backups carry the recovery items only — and
        # learns it at its next online challenge; until then offline_code answers offlineUnavailable).
        self._wipe([name for name in ACTIVATION_ITEMS
                    if not (recovery and name == OPERATION_SIGNING_KEY)])
        self._learn_keys(offer)
        self.storage[REGISTRATION_ID] = registration_id
        self.storage[PIN_RULES] = "{},{},{}".format(offer["pinCodeType"], offer["pinCodeLengthMin"],
                                                   offer["pinCodeLengthMax"])
        self.storage[POSSESSION_KEY] = b64url(made["device"])
        for method, key in made.items():
            if method != "device":
                self._store_factor(method, key, pin)
        self.storage[METHODS] = ",".join(methods)

    def _store_factor(self, method: str, key: bytes, pin: Optional[str]) -> None:
        if method == "pin":
            salt = self.random_bytes(16)
            self.storage[PIN_SALT] = b64url(salt)
            self.storage[PIN_MASKED_KEY] = b64url(mask(key, pin or "", salt, PIN_ROUNDS))
        else:
            self.storage[BIOMETRIC_KEYS[method]] = b64url(key)

    def _forget_factor(self, method: str) -> None:
        names = (PIN_SALT, PIN_MASKED_KEY) if method == "pin" else (BIOMETRIC_KEYS[method],)
        self._wipe(names)

    def _wipe(self, names) -> None:
        for name in names:
            self.storage.pop(name, None)


def _method(pin: Optional[str], biometry: Optional[str]) -> str:
    if pin is not None:
        return "pin"
    if biometry is not None:
        if biometry not in BIOMETRIC:
            raise DeviceError("biometryUnavailable", f"No such biometry: {biometry}")
        return biometry
    return "device"


def _operation_id(operation: Union[str, Mapping[str, Any]]):
    """(the id, the operation as shown or None) of an id or an operation."""
    if isinstance(operation, str):
        return operation, None
    return operation["operationId"], operation


def _point(text: str) -> Optional[ec.EllipticCurvePublicKey]:
    """A P-256 public key from its unpadded base64url uncompressed point, or None."""
    raw = _b64url_strict(text) if isinstance(text, str) else None
    if raw is None or len(raw) != 65 or raw[0] != 4:
        return None
    try:
        return ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
    except ValueError:
        return None
