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

Needs the ``cryptography`` package (``pip install cryptography``, ≥ 44).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import struct
from typing import Any, Callable, Dict, List, MutableMapping, Optional

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import (decode_dss_signature,
                                                            encode_dss_signature)
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from ._generated import ERROR_CODES
from .client import LatchkeyError

__all__ = [
    "Device", "DeviceError", "PIN_ROUNDS", "RECOVERY_ROUNDS", "BACKUP_FORMAT",
    "b64url", "b64url_decode", "payload", "context_hash", "public_key", "sign", "verify",
    "new_private_key", "mask", "pin_violations",
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
#: The PIN rules of the activation's offer (``numeric,4,8``): a server/ challenge carries none,
#: and only the device can check a new PIN. An item of this device's own (not in the Swift one).
PIN_RULES = "activation.pinRules"
ONBOARDING_PROCESS = "onboarding.processId"
RECOVERY_REGISTRATION_ID = "recovery.registrationId"
RECOVERY_SALT = "recovery.salt"
RECOVERY_MASKED_KEY = "recovery.maskedKey"
ACTIVATION_ITEMS = (REGISTRATION_ID, METHODS, POSSESSION_KEY, PIN_SALT, PIN_MASKED_KEY,
                    *BIOMETRIC_KEYS.values(), LAST_METHOD, PIN_RULES)
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
        self._keep_activation(result["registrationId"], made, pin, result["activatedAuthMethods"], offer)
        self._wipe(RECOVERY_ITEMS)
        return result

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
            private = mask(b64url_decode(self.storage[PIN_MASKED_KEY]), pin,
                           b64url_decode(self.storage[PIN_SALT]), PIN_ROUNDS)
            signatures["pin"] = signed("pin", private)
        elif method in BIOMETRIC:
            if BIOMETRIC_KEYS[method] not in self.storage:
                raise DeviceError("biometryKeyInvalidated",
                                  f"The {method} key was destroyed by a change of biometric enrolment",
                                  authMethod=method, activatedAuthMethods=self.methods)
            signatures[method] = signed(method, b64url_decode(self.storage[BIOMETRIC_KEYS[method]]))
        return signatures

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
                         methods: List[str], offer: Dict[str, Any]) -> None:
        self._wipe(ACTIVATION_ITEMS)
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
