"""A software WebAuthn authenticator with its browser half, for tests and tools.

    from latchkey.authenticator import SoftwareAuthenticator

    key = SoftwareAuthenticator(origin="https://localhost")
    options = lk.call("passkey/creationOptions", {"sessionId": session})
    credential = key.create(options)          # a RegistrationResponseJSON, as credential.toJSON()
    lk.call("passkey/create", {"ceremonyId": options["ceremonyId"], "credential": credential})

    options = lk.call("passkey/requestOptions", {"email": "ann@example.com"})
    lk.call("passkey/login", {"ceremonyId": options["ceremonyId"],
                              "credential": key.get(options)})   # an AuthenticationResponseJSON

It plays both the authenticator (keys, flags, signature counter, CTAP2 canonical CBOR) and the
browser around it (clientDataJSON, the RP id check against the origin, excludeCredentials,
allowCredentials, the JSON forms of WebAuthn Level 3, every byte string unpadded base64url),
so what it returns is what ``navigator.credentials.create()/get()`` then ``toJSON()`` give.

Attestation is ``none``; algorithms ES256 (-7) and EdDSA (-8), the first of
``pubKeyCredParams`` it supports. Behaviour is set per authenticator:

- ``user_verification``: the authenticator can verify the user (sets UV unless the options say
  ``discouraged``); without it, options that *require* verification are refused as a browser
  refuses them (``NotAllowedError``).
- ``backup_eligible`` / ``backed_up``: the BE and BS flags (a synced passkey sets both).
- ``counter``: ``"count"`` (device-bound: 0 at registration, then 1, 2, … per assertion) or
  ``"zero"`` (synced passkeys: always 0).
- ``clone()``: a second authenticator holding copies of the same credentials with their counters
  as they are now: what a cloned key does, for the server's counter check.

Needs the ``cryptography`` package (like ``latchkey.device``); CBOR is written here (a small
canonical encoder and a strict decoder), so nothing else is needed.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import os
import struct
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

__all__ = [
    "SoftwareAuthenticator", "Credential", "WebAuthnError", "ES256", "EDDSA",
    "b64url", "b64url_decode", "cbor_encode", "cbor_decode", "cose_key", "FLAGS",
]

ES256, EDDSA = -7, -8
#: authenticatorData flag bits (WebAuthn §6.1).
FLAGS = {"UP": 0x01, "UV": 0x04, "BE": 0x08, "BS": 0x10, "AT": 0x40, "ED": 0x80}


class WebAuthnError(Exception):
    """What a browser's promise would reject with: ``name`` is the DOMException name
    (``NotAllowedError``, ``InvalidStateError``, ``SecurityError``, ``NotSupportedError``)."""

    def __init__(self, name: str, message: str):
        super().__init__(f"{name}: {message}")
        self.name = name


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# -- CBOR (RFC 8949), only what WebAuthn uses ---------------------------------------------------

def _head(major: int, value: int) -> bytes:
    if value < 24:
        return bytes([major << 5 | value])
    for extra, fmt in ((24, ">B"), (25, ">H"), (26, ">I"), (27, ">Q")):
        if value < 1 << (8 * struct.calcsize(fmt)):
            return bytes([major << 5 | extra]) + struct.pack(fmt, value)
    raise ValueError("integer beyond 64 bits")


def cbor_encode(value: Any) -> bytes:
    """Canonical CBOR (CTAP2: shortest forms, definite lengths, map keys sorted by their
    encoding, shorter first) of int, bytes, str, list, dict, bool and None."""
    if value is True or value is False:
        return b"\xf5" if value else b"\xf4"
    if value is None:
        return b"\xf6"
    if isinstance(value, int):
        return _head(0, value) if value >= 0 else _head(1, -1 - value)
    if isinstance(value, (bytes, bytearray)):
        return _head(2, len(value)) + bytes(value)
    if isinstance(value, str):
        raw = value.encode("utf-8")
        return _head(3, len(raw)) + raw
    if isinstance(value, (list, tuple)):
        return _head(4, len(value)) + b"".join(cbor_encode(item) for item in value)
    if isinstance(value, dict):
        items = sorted((cbor_encode(k), cbor_encode(v)) for k, v in value.items())
        items.sort(key=lambda kv: len(kv[0]))  # stable: by length, then bytewise
        return _head(5, len(items)) + b"".join(k + v for k, v in items)
    raise TypeError(f"cannot encode {type(value).__name__} as CBOR")


def cbor_decode(data: bytes, allow_trailing: bool = False) -> Any:
    """The first CBOR item of ``data`` (definite lengths, no tags, no floats); with
    ``allow_trailing`` returns ``(item, bytes left)``."""
    def item(at: int, depth: int) -> Tuple[Any, int]:
        if depth > 16:
            raise ValueError("CBOR nested too deeply")
        first = data[at]
        major, info = first >> 5, first & 31
        at += 1
        if info < 24:
            arg = info
        elif info <= 27:
            size = 1 << (info - 24)
            if at + size > len(data):
                raise ValueError("CBOR truncated")
            arg = int.from_bytes(data[at:at + size], "big")
            at += size
        else:
            raise ValueError("indefinite lengths are not accepted")
        if major == 0:
            return arg, at
        if major == 1:
            return -1 - arg, at
        if major in (2, 3):
            if at + arg > len(data):
                raise ValueError("CBOR truncated")
            raw = data[at:at + arg]
            return (bytes(raw) if major == 2 else raw.decode("utf-8")), at + arg
        if major == 4:
            out = []
            for _ in range(arg):
                value, at = item(at, depth + 1)
                out.append(value)
            return out, at
        if major == 5:
            out = {}
            for _ in range(arg):
                key, at = item(at, depth + 1)
                if key in out:
                    raise ValueError("duplicate CBOR map key")
                out[key], at = item(at, depth + 1)
            return out, at
        if major == 7 and info in (20, 21, 22):
            return {20: False, 21: True, 22: None}[info], at
        raise ValueError("CBOR item not accepted (tag or float)")

    value, end = item(0, 0)
    if allow_trailing:
        return value, bytes(data[end:])
    if end != len(data):
        raise ValueError("bytes left after the CBOR item")
    return value


# -- keys ------------------------------------------------------------------------------------

def cose_key(private_key) -> Dict[int, Any]:
    """The COSE_Key of a private key's public half (EC2 P-256 for ES256, OKP Ed25519 for EdDSA)."""
    if isinstance(private_key, ed25519.Ed25519PrivateKey):
        x = private_key.public_key().public_bytes(serialization.Encoding.Raw,
                                                  serialization.PublicFormat.Raw)
        return {1: 1, 3: EDDSA, -1: 6, -2: x}
    numbers = private_key.public_key().public_numbers()
    return {1: 2, 3: ES256, -1: 1, -2: numbers.x.to_bytes(32, "big"),
            -3: numbers.y.to_bytes(32, "big")}


def _new_key(alg: int):
    return ed25519.Ed25519PrivateKey.generate() if alg == EDDSA else ec.generate_private_key(ec.SECP256R1())


def _sign(private_key, message: bytes) -> bytes:
    if isinstance(private_key, ed25519.Ed25519PrivateKey):
        return private_key.sign(message)
    return private_key.sign(message, ec.ECDSA(hashes.SHA256()))  # DER, as WebAuthn's ES256


@dataclass
class Credential:
    """One discoverable credential the authenticator holds (its private key never leaves it)."""
    id: bytes
    rp_id: str
    user_handle: bytes
    user_name: str
    algorithm: int
    private_key: Any
    sign_count: int = 0
    created: int = 0  # order of creation, for "the newest" in a discoverable sign-in

    @property
    def public_key_cose(self) -> bytes:
        return cbor_encode(cose_key(self.private_key))

    @property
    def public_key_spki(self) -> bytes:
        return self.private_key.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


class SoftwareAuthenticator:
    """A platform authenticator and the browser in front of it; see the module's docstring."""

    def __init__(self, origin: str = "https://localhost", *, user_verification: bool = True,
                 backup_eligible: bool = False, backed_up: bool = False, counter: str = "count",
                 algorithms: Tuple[int, ...] = (ES256, EDDSA), aaguid: bytes = bytes(16),
                 attachment: str = "platform", transports: Tuple[str, ...] = ("hybrid", "internal"),
                 cross_origin: bool = False):
        if counter not in ("count", "zero"):
            raise ValueError("counter is 'count' or 'zero'")
        if backed_up and not backup_eligible:
            raise ValueError("backed_up needs backup_eligible (BS without BE is invalid)")
        if len(aaguid) != 16:
            raise ValueError("an AAGUID is 16 bytes")
        self.origin = origin
        self.user_verification = user_verification
        self.backup_eligible = backup_eligible
        self.backed_up = backed_up
        self.counter = counter
        self.algorithms = tuple(algorithms)
        self.aaguid = aaguid
        self.attachment = attachment
        self.transports = list(transports)
        self.cross_origin = cross_origin
        self.credentials: Dict[bytes, Credential] = {}
        self._made = 0

    # -- the ceremonies ------------------------------------------------------------------------

    def create(self, options: Dict[str, Any], *, origin: Optional[str] = None) -> Dict[str, Any]:
        """``navigator.credentials.create({publicKey})`` then ``toJSON()``. ``options`` is the
        server's ``PublicKeyCredentialCreationOptionsJSON``, or a result holding it in
        ``publicKey`` (as ``passkey/creationOptions`` answers)."""
        options = options.get("publicKey", options)
        origin = origin or self.origin
        rp_id = options.get("rp", {}).get("id") or _host(origin)
        self._check_rp_id(rp_id, origin)
        uv = self._user_verified(options.get("authenticatorSelection", {}).get("userVerification", "preferred"))
        for excluded in options.get("excludeCredentials", []):
            held = self.credentials.get(b64url_decode(excluded["id"]))
            if held is not None and held.rp_id == rp_id:
                raise WebAuthnError("InvalidStateError", "the authenticator holds an excluded credential")
        offered = [p.get("alg") for p in options.get("pubKeyCredParams", []) if p.get("type") == "public-key"]
        algorithm = next((alg for alg in offered if alg in self.algorithms), None)
        if algorithm is None:
            raise WebAuthnError("NotSupportedError", "no algorithm offered that the authenticator supports")

        user = options["user"]
        self._made += 1
        credential = Credential(id=os.urandom(32), rp_id=rp_id, user_handle=b64url_decode(user["id"]),
                                user_name=user.get("name", ""), algorithm=algorithm,
                                private_key=_new_key(algorithm), created=self._made)
        # One credential per user and RP: a new one replaces the old (as platform authenticators do).
        for old_id in [c.id for c in self.credentials.values()
                       if c.rp_id == rp_id and c.user_handle == credential.user_handle]:
            del self.credentials[old_id]
        self.credentials[credential.id] = credential

        client_data = self.client_data("webauthn.create", options["challenge"], origin)
        attested = self.aaguid + struct.pack(">H", len(credential.id)) + credential.id + credential.public_key_cose
        auth_data = self.authenticator_data(rp_id, uv, credential.sign_count, attested)
        attestation = cbor_encode({"fmt": "none", "attStmt": {}, "authData": auth_data})
        return {
            "id": b64url(credential.id),
            "rawId": b64url(credential.id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client_data),
                "attestationObject": b64url(attestation),
                "authenticatorData": b64url(auth_data),
                "transports": list(self.transports),
                "publicKey": b64url(credential.public_key_spki),
                "publicKeyAlgorithm": algorithm,
            },
            "authenticatorAttachment": self.attachment,
            "clientExtensionResults": {},
        }

    def get(self, options: Dict[str, Any], *, origin: Optional[str] = None,
            credential_id: Optional[bytes] = None) -> Dict[str, Any]:
        """``navigator.credentials.get({publicKey})`` then ``toJSON()``: the first
        ``allowCredentials`` entry it holds, or with an empty list (a discoverable sign-in) its
        newest credential for the RP id; ``credential_id`` picks one, as a user would."""
        options = options.get("publicKey", options)
        origin = origin or self.origin
        rp_id = options.get("rpId") or _host(origin)
        self._check_rp_id(rp_id, origin)
        uv = self._user_verified(options.get("userVerification", "preferred"))
        mine = [c for c in self.credentials.values() if c.rp_id == rp_id]
        allowed = [b64url_decode(entry["id"]) for entry in options.get("allowCredentials", [])]
        if allowed:
            mine = [c for c in mine if c.id in allowed]
            mine.sort(key=lambda c: allowed.index(c.id))
        else:
            mine.sort(key=lambda c: -c.created)
        if credential_id is not None:
            mine = [c for c in mine if c.id == credential_id]
        if not mine:
            raise WebAuthnError("NotAllowedError", "the authenticator holds no credential for this request")
        credential = mine[0]
        if self.counter == "count":
            credential.sign_count += 1
        client_data = self.client_data("webauthn.get", options["challenge"], origin)
        auth_data = self.authenticator_data(rp_id, uv, credential.sign_count)
        signature = _sign(credential.private_key, auth_data + hashlib.sha256(client_data).digest())
        return {
            "id": b64url(credential.id),
            "rawId": b64url(credential.id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client_data),
                "authenticatorData": b64url(auth_data),
                "signature": b64url(signature),
                "userHandle": b64url(credential.user_handle),
            },
            "authenticatorAttachment": self.attachment,
            "clientExtensionResults": {},
        }

    def clone(self) -> "SoftwareAuthenticator":
        """A copy holding the same credentials (keys and counters as they are now)."""
        twin = copy.copy(self)
        twin.credentials = {cid: copy.copy(c) for cid, c in self.credentials.items()}
        twin.transports = list(self.transports)
        return twin

    # -- the pieces, public for hostile tests --------------------------------------------------

    def client_data(self, kind: str, challenge: str, origin: str) -> bytes:
        """clientDataJSON exactly as Chromium serialises it (member order, no spaces)."""
        return json.dumps({"type": kind, "challenge": challenge, "origin": origin,
                           "crossOrigin": self.cross_origin}, separators=(",", ":")).encode("utf-8")

    def authenticator_data(self, rp_id: str, user_verified: bool, sign_count: int,
                           attested: bytes = b"") -> bytes:
        flags = FLAGS["UP"]
        flags |= FLAGS["UV"] if user_verified else 0
        flags |= FLAGS["BE"] if self.backup_eligible else 0
        flags |= FLAGS["BS"] if self.backed_up else 0
        flags |= FLAGS["AT"] if attested else 0
        return (hashlib.sha256(rp_id.encode("utf-8")).digest() + bytes([flags])
                + struct.pack(">I", sign_count) + attested)

    def _user_verified(self, requirement: str) -> bool:
        if requirement == "required" and not self.user_verification:
            raise WebAuthnError("NotAllowedError", "user verification required; the authenticator has none")
        return self.user_verification and requirement != "discouraged"

    @staticmethod
    def _check_rp_id(rp_id: str, origin: str) -> None:
        if origin.startswith("android:apk-key-hash:"):
            return
        host = _host(origin)
        if not (host == rp_id or host.endswith("." + rp_id)):
            raise WebAuthnError("SecurityError", "the RP id is not the origin's host or a parent of it")


def _host(origin: str) -> str:
    return urlsplit(origin).hostname or ""
