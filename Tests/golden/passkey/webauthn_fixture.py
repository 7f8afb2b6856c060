"""A deterministic outside authenticator for the passkey golden transcripts.

Keys come from names (ES256 and EdDSA from a hash of the name, RS256 from primes found by a
seeded search), credential ids from a hash of the name, ES256 signatures are RFC 6979, so a
scenario's every byte is the same on every run. Each method can forge one field, so a transcript
can show every Relying Party check failing by its name.
"""
import base64, hashlib, json, random

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa

N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def cbor(value):
    """Canonical CBOR (CTAP2) of ints, bytes, text, lists, dicts, bools and None."""
    def head(major, n):
        if n < 24:
            return bytes([major << 5 | n])
        for size, info in ((1, 24), (2, 25), (4, 26), (8, 27)):
            if n < 1 << (8 * size):
                return bytes([major << 5 | info]) + n.to_bytes(size, "big")
        raise ValueError("too big")
    if value is True:
        return b"\xf5"
    if value is False:
        return b"\xf4"
    if value is None:
        return b"\xf6"
    if isinstance(value, int):
        return head(0, value) if value >= 0 else head(1, -1 - value)
    if isinstance(value, bytes):
        return head(2, len(value)) + value
    if isinstance(value, str):
        raw = value.encode()
        return head(3, len(raw)) + raw
    if isinstance(value, list):
        return head(4, len(value)) + b"".join(cbor(v) for v in value)
    if isinstance(value, dict):
        items = sorted(((cbor(k), cbor(v)) for k, v in value.items()), key=lambda kv: (len(kv[0]), kv[0]))
        return head(5, len(items)) + b"".join(k + v for k, v in items)
    raise TypeError(type(value))


def _prime(rng, bits):
    while True:
        candidate = rng.getrandbits(bits) | (1 << (bits - 1)) | 1
        if all(pow(a, candidate - 1, candidate) == 1 for a in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)):
            return candidate


def rsa_key(name, bits=2048):
    rng = random.Random(hashlib.sha256(b"latchkey-golden-rsa:" + name.encode()).digest())
    e = 65537
    while True:
        p, q = _prime(rng, bits // 2), _prime(rng, bits // 2)
        phi = (p - 1) * (q - 1)
        if p != q and phi % e and (p * q).bit_length() == bits:
            break
    d = pow(e, -1, phi)
    numbers = rsa.RSAPrivateNumbers(p, q, d, d % (p - 1), d % (q - 1), pow(q, -1, p), rsa.RSAPublicNumbers(e, p * q))
    return numbers.private_key()


FLAG_UP, FLAG_UV, FLAG_BE, FLAG_BS, FLAG_AT, FLAG_ED = 0x01, 0x04, 0x08, 0x10, 0x40, 0x80


class Authenticator:
    """One credential of an outside authenticator (a browser's, a security key's)."""

    def __init__(self, name, alg=-7, synced=False):
        self.name, self.alg, self.synced = name, alg, synced
        seed = hashlib.sha256(b"latchkey-golden:" + name.encode()).digest()
        self.credential_id = hashlib.sha256(b"credential:" + name.encode()).digest()[:16]
        self.count = 0
        if alg == -7:
            self.key = ec.derive_private_key(int.from_bytes(seed, "big") % (N - 1) + 1, ec.SECP256R1())
        elif alg == -8:
            self.key = ed25519.Ed25519PrivateKey.from_private_bytes(seed)
        else:
            self.key = rsa_key(name)
        self.user_handle = None

    def cose(self, alg=None, override=None):
        alg = self.alg if alg is None else alg
        if self.alg == -7:
            numbers = self.key.public_key().public_numbers()
            key = {1: 2, 3: alg, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")}
        elif self.alg == -8:
            from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
            key = {1: 1, 3: alg, -1: 6, -2: self.key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)}
        else:
            numbers = self.key.public_key().public_numbers()
            key = {1: 3, 3: alg, -1: numbers.n.to_bytes(256, "big"), -2: numbers.e.to_bytes(3, "big")}
        key.update(override or {})
        return cbor(key)

    def sign(self, data):
        if self.alg == -7:
            return self.key.sign(data, ec.ECDSA(hashes.SHA256(), deterministic_signing=True))
        if self.alg == -8:
            return self.key.sign(data)
        return self.key.sign(data, padding.PKCS1v15(), hashes.SHA256())

    def flags(self, uv=True, up=True):
        flags = (FLAG_UP if up else 0) | (FLAG_UV if uv else 0)
        if self.synced:
            flags |= FLAG_BE | FLAG_BS
        return flags

    @staticmethod
    def client_data(kind, challenge, origin, cross_origin=False, **override):
        data = {"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": cross_origin}
        data.update(override)
        return json.dumps(data, separators=(",", ":")).encode()

    def create(self, options, origin="https://localhost", rp_id=None, flags=None, client_data=None, cose=None,
               attested_id=None, fmt="none", att_stmt=None, auth_data=None, attestation_object=None, raw_id=None):
        """A RegistrationResponseJSON for creation `options`; each keyword forges one part."""
        rp_id = rp_id or options["rp"]["id"]
        self.user_handle = options["user"]["id"]
        client_data = client_data or self.client_data("webauthn.create", options["challenge"], origin)
        cred_id = self.credential_id if attested_id is None else attested_id
        if auth_data is None:
            auth_data = (hashlib.sha256(rp_id.encode()).digest() + bytes([(self.flags() if flags is None else flags) | FLAG_AT])
                         + self.count.to_bytes(4, "big") + bytes(16) + len(cred_id).to_bytes(2, "big") + cred_id
                         + (cose or self.cose()))
        if fmt == "packed" and att_stmt is None:
            att_stmt = {"alg": self.alg, "sig": self.sign(auth_data + hashlib.sha256(client_data).digest())}
        if attestation_object is None:
            attestation_object = cbor({"fmt": fmt, "attStmt": att_stmt or {}, "authData": auth_data})
        raw = self.credential_id if raw_id is None else raw_id
        return {"id": b64(raw), "rawId": b64(raw), "type": "public-key",
                "response": {"clientDataJSON": b64(client_data), "attestationObject": b64(attestation_object),
                             "transports": ["usb"]},
                "authenticatorAttachment": "cross-platform", "clientExtensionResults": {}}

    def get(self, options, origin="https://localhost", rp_id=None, flags=None, client_data=None, count=None,
            auth_data=None, signature=None, user_handle=None, raw_id=None):
        """An AuthenticationResponseJSON for request `options`; each keyword forges one part."""
        rp_id = rp_id or options["rpId"]
        client_data = client_data or self.client_data("webauthn.get", options["challenge"], origin)
        if count is None:
            if not self.synced:
                self.count += 1
            count = self.count
        if auth_data is None:
            auth_data = (hashlib.sha256(rp_id.encode()).digest() + bytes([self.flags() if flags is None else flags])
                         + count.to_bytes(4, "big"))
        if signature is None:
            signature = self.sign(auth_data + hashlib.sha256(client_data).digest())
        raw = self.credential_id if raw_id is None else raw_id
        handle = self.user_handle if user_handle is None else user_handle
        return {"id": b64(raw), "rawId": b64(raw), "type": "public-key",
                "response": {"clientDataJSON": b64(client_data), "authenticatorData": b64(auth_data),
                             "signature": b64(signature), "userHandle": handle},
                "authenticatorAttachment": "cross-platform", "clientExtensionResults": {}}
