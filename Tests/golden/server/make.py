#!/usr/bin/env python3
"""Records the golden transcripts of the `server/` methods (devices outside the process).

usage: make.py BINARY [FILTER...]      (needs the `cryptography` package: make venv)

Each scenario below drives the binary as an outside device would: fixed test keys (private
scalars derived from their names), deterministic ECDSA (RFC 6979), the binary seeded and on a
manual clock, so every challenge it hands out and every signature made over it is the same on
every run. A scenario checks each answer as it goes (it fails loudly when the server does not
answer what the contract says), then its requests are written to NAME.in.jsonl and a replay of
them to NAME.out.jsonl, which run.py compares byte for byte from then on.
"""
import base64, hashlib, json, os, subprocess, sys

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

HERE = os.path.dirname(os.path.abspath(__file__))
ARGS = ["--in-memory", "--seed", "1", "--clock", "manual"]
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Key:
    """A P-256 key whose private scalar is derived from `name`."""

    def __init__(self, name):
        scalar = int.from_bytes(hashlib.sha256(b"latchkey-golden:" + name.encode()).digest(), "big") % (N - 1) + 1
        self.private = ec.derive_private_key(scalar, ec.SECP256R1())
        numbers = self.private.public_key().public_numbers()
        self.sec1 = b"\x04" + numbers.x.to_bytes(32, "big") + numbers.y.to_bytes(32, "big")
        self.public = b64(self.sec1)

    def sign(self, payload, der=False):
        signature = self.private.sign(payload, ec.ECDSA(hashes.SHA256(), deterministic_signing=True))
        if der:
            return b64(signature)
        r, s = decode_dss_signature(signature)
        return b64(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def der_integer(value):
    """A DER INTEGER of a big-endian unsigned value: minimal, with a zero byte before a set sign bit."""
    value = value.lstrip(b"\x00") or b"\x00"
    if value[0] & 0x80:
        value = b"\x00" + value
    return b"\x02" + bytes([len(value)]) + value


def payload(operation, subject, challenge, role, context_hash=""):
    return "\n".join(["LATCHKEY-V1", operation, subject, challenge, role, context_hash]).encode()


def context_hash(title, content, mime):
    data = b""
    for field in (title, content, mime):
        raw = (field or "").encode()
        data += len(raw).to_bytes(4, "big") + raw
    return b64(hashlib.sha256(data).digest())


class Session:
    """One binary process; every request is kept for the transcript."""

    def __init__(self, binary):
        self.proc = subprocess.Popen([binary] + ARGS, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.lines, self.next_id = [], 1

    def raw(self, line):
        """Sends a line as is; answers the response to it."""
        self.lines.append(line)
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()
        while True:
            answer = json.loads(self.proc.stdout.readline())
            if "id" in answer:
                return answer

    def call(self, method, /, **params):
        request = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.next_id += 1
        return self.raw(json.dumps(request, separators=(",", ":"), ensure_ascii=False))

    def ok(self, method, /, **params):
        answer = self.call(method, **params)
        if "result" not in answer:
            raise AssertionError(f"{method}: expected a result, got {answer}")
        return answer["result"]

    def fails(self, method, reason, /, **params):
        answer = self.call(method, **params)
        got = answer.get("error", {}).get("data", {}).get("reason")
        if got != reason:
            raise AssertionError(f"{method}: expected {reason}, got {answer}")
        return answer["error"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


class Phone:
    """A device outside the process: its keys, and the proofs and signatures the contract asks for."""

    def __init__(self, session, name):
        self.s, self.name = session, name
        self.installation = "install-" + name
        self.keys = {"device": Key(name + ":device")}
        self.registration = None

    def key(self, role):
        return self.keys.setdefault(role, Key(f"{self.name}:{role}"))

    def proof(self, role, operation, subject, challenge, key=None):
        return {"publicKey": (key or self.key(role)).public,
                "proof": self.key(role).sign(payload(operation, subject, challenge, role)) if key is None
                else key.sign(payload(operation, subject, challenge, role))}

    def prepare(self, code, **extra):
        return self.s.ok("server/activation/prepare", activationCode=code, installationId=self.installation, **extra)

    def commit(self, prepared, factors=("pin",), **extra):
        subject, challenge = prepared["activationId"], prepared["challenge"]
        keys = {role: self.proof(role, "activate", subject, challenge) for role in ("device",) + tuple(factors)}
        result = self.s.ok("server/activation/commit", activationId=subject, keys=keys, **extra)
        self.registration = result["registrationId"]
        return result

    def signatures(self, operation, challenge, factor=None, context="", signers=None):
        signers = signers or {}
        out = {"device": signers.get("device", self.key("device")).sign(payload(operation, self.registration, challenge["challenge"],
                                                                                 "device", context))}
        if factor:
            out[factor] = signers.get(factor, self.key(factor)).sign(payload(operation, self.registration, challenge["challenge"],
                                                                             factor, context))
        return out

    def challenge(self, **extra):
        return self.s.ok("server/authentication/challenge", registrationId=self.registration, **extra)

    def verify(self, factor="pin", expect=None, operation="authenticate", signers=None, **extra):
        challenge = self.challenge()
        signatures = self.signatures(operation, challenge, factor, challenge["contextHash"], signers)
        params = dict(registrationId=self.registration, challengeId=challenge["challengeId"], signatures=signatures, **extra)
        if expect:
            return self.s.fails("server/authentication/verify", expect, **params)
        return self.s.ok("server/authentication/verify", **params)


def activated(s, name="phone", user="alice", factors=("pin",)):
    s.ok("admin/createUser", userId=user, email=f"{user}@example.com")
    code = s.ok("admin/createActivationCode", userId=user)["activationCode"]
    phone = Phone(s, name)
    phone.commit(phone.prepare(code), factors)
    return phone


# -- scenarios: each a function of a Session; its docstring is the transcript's description --

def prepared_activation(s):
    """A prepared activation of alice's phone, and the device and PIN keys' good proofs for it."""
    s.ok("admin/createUser", userId="alice", email="alice@example.com")
    code = s.ok("admin/createActivationCode", userId="alice")["activationCode"]
    phone = Phone(s, "phone")
    prepared = phone.prepare(code)
    return phone, prepared, {role: phone.proof(role, "activate", prepared["activationId"], prepared["challenge"])
                             for role in ("device", "pin")}


def activation_lifecycle(s):
    """An outside device activates with device and PIN keys, authenticates, and reads its status."""
    s.ok("admin/createUser", userId="alice", email="alice@example.com")
    code = s.ok("admin/createActivationCode", userId="alice")["activationCode"]
    phone = Phone(s, "phone")
    prepared = phone.prepare(code)
    phone.commit(prepared, ("pin",), activationName="Alice's phone", tokenPurpose="none")
    s.ok("admin/getRegistration", registrationId=phone.registration)
    phone.verify()
    s.ok("server/registration/status", registrationId=phone.registration)
    s.ok("audit/list")


def signature_forms(s):
    """Raw r‖s and strict DER signatures are both accepted; proofs too."""
    s.ok("admin/createUser", userId="alice", email="alice@example.com")
    code = s.ok("admin/createActivationCode", userId="alice")["activationCode"]
    phone = Phone(s, "phone")
    prepared = phone.prepare(code)
    subject, challenge = prepared["activationId"], prepared["challenge"]
    keys = {role: {"publicKey": phone.key(role).public,
                   "proof": phone.key(role).sign(payload("activate", subject, challenge, role), der=(role == "device"))}
            for role in ("device", "pin")}
    phone.registration = s.ok("server/activation/commit", activationId=subject, keys=keys)["registrationId"]
    c = phone.challenge()
    p = lambda role: payload("authenticate", phone.registration, c["challenge"], role)
    s.ok("server/authentication/verify", registrationId=phone.registration, challengeId=c["challengeId"],
         signatures={"device": phone.key("device").sign(p("device"), der=True), "pin": phone.key("pin").sign(p("pin"))})
    # s + n: a minimal positive INTEGER of 33 significant bytes is strict DER; it decodes, lies outside 1…n−1, and
    # counts as a failed factor.
    c = phone.challenge()
    r_s = base64.urlsafe_b64decode(phone.key("pin").sign(p("pin")) + "==")
    big_s = (int.from_bytes(r_s[32:], "big") + N).to_bytes(33, "big")
    body = der_integer(r_s[:32]) + b"\x02\x21" + big_s
    der = b"\x30" + bytes([len(body)]) + body
    error = s.fails("server/authentication/verify", "authenticationFailed", registrationId=phone.registration,
                    challengeId=c["challengeId"], signatures={"device": phone.key("device").sign(p("device")), "pin": b64(der)})
    assert error["data"]["remainingAttempts"] == 4, error


def wrong_pin_counts(s):
    """A PIN signature by the wrong key counts (as a wrong PIN), uses the challenge up; five lock the registration."""
    phone = activated(s)
    wrong = {"pin": Key("not-the-pin")}
    phone.verify(expect="authenticationFailed", signers=wrong)
    s.ok("server/registration/status", registrationId=phone.registration)
    for _ in range(3):
        phone.verify(expect="authenticationFailed", signers=wrong)
    phone.verify(expect="registrationLocked", signers=wrong)
    s.fails("server/authentication/challenge", "registrationLocked", registrationId=phone.registration)
    s.ok("server/registration/status", registrationId=phone.registration)


def replayed_challenge(s):
    """A challenge is single-use: a replayed verify answers noSessionInProgress, success or not."""
    phone = activated(s)
    c = phone.challenge()
    signatures = phone.signatures("authenticate", c, "pin")
    s.ok("server/authentication/verify", registrationId=phone.registration, challengeId=c["challengeId"], signatures=signatures)
    s.fails("server/authentication/verify", "noSessionInProgress", registrationId=phone.registration,
            challengeId=c["challengeId"], signatures=signatures)
    c2 = phone.challenge()
    s.fails("server/authentication/verify", "authenticationFailed", registrationId=phone.registration, challengeId=c2["challengeId"],
            signatures=phone.signatures("authenticate", c2, "pin", signers={"pin": Key("wrong")}))
    s.fails("server/authentication/verify", "noSessionInProgress", registrationId=phone.registration,
            challengeId=c2["challengeId"], signatures=phone.signatures("authenticate", c2, "pin"))
    s.fails("server/authentication/verify", "noSessionInProgress", registrationId=phone.registration,
            challengeId="00000000-0000-4000-8000-000000000000", signatures=phone.signatures("authenticate", c2, "pin"))


def challenge_expiry(s):
    """A challenge is valid while now < issuedAt + 300: at 300 s it answers sessionExpired."""
    phone = activated(s)
    c = phone.challenge()
    s.ok("clock/advance", seconds=299)
    c2 = phone.challenge()
    s.ok("server/authentication/verify", registrationId=phone.registration, challengeId=c["challengeId"],
         signatures=phone.signatures("authenticate", c, "pin"))
    s.ok("clock/advance", seconds=300)
    s.fails("server/authentication/verify", "sessionExpired", registrationId=phone.registration, challengeId=c2["challengeId"],
            signatures=phone.signatures("authenticate", c2, "pin"))


def stranger_device_signature(s):
    """A device signature by a stranger answers registrationRemoved and counts nothing, whatever else the call
    carries (a method the registration has not activated, a token purpose, no second factor): the device is checked
    first, and the challenge is used up."""
    phone = activated(s)
    for _ in range(6):
        phone.verify(expect="registrationRemoved", signers={"device": Key("stranger")})
    stranger = {"device": Key("stranger"), "faceId": Key("stranger-face")}
    phone.verify(factor="faceId", expect="registrationRemoved", signers=stranger)
    phone.verify(factor=None, expect="registrationRemoved", signers=stranger, tokenPurpose="addOrUpdateRecovery")
    c = phone.challenge()
    s.fails("server/authMethod/add", "registrationRemoved", registrationId=phone.registration, challengeId=c["challengeId"],
            signatures=phone.signatures("addAuthMethod", c, "faceId", signers=stranger), method="touchId",
            key=Phone(s, "thief").proof("touchId", "addAuthMethod", phone.registration, c["challenge"]))
    s.ok("server/registration/status", registrationId=phone.registration)
    phone.verify()
    # The verify reached the signatures: the challenge is used up, and the same challengeId then verifies nothing.
    c = phone.challenge()
    s.fails("server/authentication/verify", "registrationRemoved", registrationId=phone.registration, challengeId=c["challengeId"],
            signatures=phone.signatures("authenticate", c, "pin", signers={"device": Key("stranger")}))
    s.fails("server/authentication/verify", "noSessionInProgress", registrationId=phone.registration, challengeId=c["challengeId"],
            signatures=phone.signatures("authenticate", c, "pin"))


def device_only_verify(s):
    """A device-only verify succeeds, but a token needs a verified two-factor key."""
    phone = activated(s)
    phone.verify(factor=None)
    phone.verify(factor=None, expect="authMethodNotAllowed", tokenPurpose="addOrUpdateRecovery")
    phone.verify(factor="faceId", expect="authMethodNotAllowed")


def pushed_context(s):
    """A pushed authentication: the challenge carries its context and hash; a signature that ignores the
    context fails (the PIN counts); a two-factor success approves it; a cancel rejects the next one."""
    phone = activated(s)
    push = s.ok("admin/pushAuthentication", registrationId=phone.registration, contextTitle="Pay 12 EUR",
                contextContent="to Example Shop", contextMIME="text/plain")
    c = phone.challenge()
    assert c["contextHash"] == context_hash("Pay 12 EUR", "to Example Shop", "text/plain"), c
    signatures = phone.signatures("authenticate", c, "pin", context=c["contextHash"])
    signatures["pin"] = phone.key("pin").sign(payload("authenticate", phone.registration, c["challenge"], "pin"))
    s.fails("server/authentication/verify", "authenticationFailed", registrationId=phone.registration, challengeId=c["challengeId"],
            signatures=signatures)
    s.ok("admin/getAuthentication", authenticationId=push["authenticationId"])
    phone.verify()
    s.ok("admin/getAuthentication", authenticationId=push["authenticationId"])
    second = s.ok("admin/pushAuthentication", registrationId=phone.registration, contextTitle="Log in")
    c = phone.challenge()
    s.ok("server/authentication/cancel", registrationId=phone.registration, challengeId=c["challengeId"])
    s.ok("admin/getAuthentication", authenticationId=second["authenticationId"])
    s.fails("server/authentication/cancel", "noSessionInProgress", registrationId=phone.registration, challengeId=c["challengeId"])


def proofs_refused(s):
    """Proofs of possession: another key's proof (key substitution), another role, operation, subject or challenge,
    each answers proofInvalid naming the role, and spends nothing: the activation then commits."""
    phone, prepared, good = prepared_activation(s)
    subject, challenge = prepared["activationId"], prepared["challenge"]
    thief = Key("thief")
    cases = [
        ("device", {"publicKey": phone.key("device").public, "proof": thief.sign(payload("activate", subject, challenge, "device"))}),
        ("pin", {"publicKey": phone.key("pin").public, "proof": phone.key("pin").sign(payload("activate", subject, challenge, "device"))}),
        ("pin", {"publicKey": phone.key("pin").public, "proof": phone.key("pin").sign(payload("recover", subject, challenge, "pin"))}),
        ("pin", {"publicKey": phone.key("pin").public, "proof": phone.key("pin").sign(payload("activate", "other", challenge, "pin"))}),
        ("pin", {"publicKey": phone.key("pin").public, "proof": phone.key("pin").sign(payload("activate", subject, "AAAA", "pin"))}),
    ]
    for role, bad in cases:
        keys = dict(good, **{role: bad})
        error = s.fails("server/activation/commit", "proofInvalid", activationId=subject, keys=keys)
        assert error["data"]["keyRole"] == role, error
    s.ok("server/activation/commit", activationId=subject, keys=good)


def hostile_keys(s):
    """Keys that are not 65-byte uncompressed points on P-256, and signatures that do not decode: invalidParams; a
    missing proof: proofInvalid."""
    s.ok("admin/createUser", userId="alice", email="alice@example.com")
    code = s.ok("admin/createActivationCode", userId="alice")["activationCode"]
    phone = Phone(s, "phone")
    prepared = phone.prepare(code)
    subject, challenge = prepared["activationId"], prepared["challenge"]
    good = phone.proof("device", "activate", subject, challenge)
    sec1 = phone.key("device").sec1
    off_curve = sec1[:-1] + bytes([sec1[-1] ^ 1])
    p = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
    big_x = b"\x04" + p.to_bytes(32, "big") + sec1[33:]
    compressed = bytes([2 + (sec1[-1] & 1)]) + sec1[1:33]
    for public in [b64(off_curve), b64(b"\x00"), b64(b"\x04" + bytes(64)), b64(compressed), b64(big_x), b64(sec1[:64]),
                   b64(sec1) + "=", base64.b64encode(sec1).decode(), ""]:
        s.fails("server/activation/commit", "invalidParams", activationId=subject, keys={"device": dict(good, publicKey=public)})
    r_s = base64.urlsafe_b64decode(good["proof"] + "==")
    non_minimal_der = b"\x30\x46\x02\x21\x00" + r_s[:32] + b"\x02\x21\x00" + r_s[32:]
    for proof in [b64(r_s[:63]), b64(non_minimal_der), b64(b"\x30\x00"), "!!", good["proof"] + "A"]:
        s.fails("server/activation/commit", "invalidParams", activationId=subject, keys={"device": dict(good, proof=proof)})
    s.fails("server/activation/commit", "invalidParams", activationId=subject, keys={})
    # A missing proof is a failing one: proofInvalid naming its role, nothing spent.
    for keys, role in [({"device": good, "pin": {"publicKey": good["publicKey"]}}, "pin"), ({"device": {"publicKey": good["publicKey"]}}, "device")]:
        error = s.fails("server/activation/commit", "proofInvalid", activationId=subject, keys=keys)
        assert error["data"]["keyRole"] == role, error
    zero = b64(bytes(64))
    s.fails("server/activation/commit", "proofInvalid", activationId=subject, keys={"device": dict(good, proof=zero)})
    for installation in ["", "x" * 129, "tab\there", "é"]:
        s.fails("server/activation/prepare", "invalidParams", activationCode=code, installationId=installation)
    registration = s.ok("server/activation/commit", activationId=subject, keys={"device": good})["registrationId"]
    c = s.ok("server/authentication/challenge", registrationId=registration)
    two = {"device": zero, "pin": zero, "faceId": zero}
    s.fails("server/authentication/verify", "invalidParams", registrationId=registration, challengeId=c["challengeId"], signatures=two)
    s.fails("server/authentication/challenge", "invalidParams", registrationId=registration, purpose="addAuthMethod")


def unknown_roles(s):
    """A member of keys or signatures that names no role (faceID, bogus) answers invalidParams naming it
    (keys.faceID, signatures.bogus), on every method that takes them, and spends nothing: the same activation,
    challenge and recovery then succeed."""
    phone, prepared, good = prepared_activation(s)
    subject, challenge = prepared["activationId"], prepared["challenge"]
    for extra in ["faceID", "bogus", "recovery"]:
        error = s.fails("server/activation/commit", "invalidParams", activationId=subject,
                        keys=dict(good, **{extra: phone.proof("faceId", "activate", subject, challenge)}))
        assert [e["path"] for e in error["data"]["errors"]] == [f"keys.{extra}"], error
    phone.commit(prepared, ("pin",))
    c = phone.challenge()
    signatures = phone.signatures("authenticate", c, "pin")
    for extra in ["faceID", "bogus"]:
        error = s.fails("server/authentication/verify", "invalidParams", registrationId=phone.registration, challengeId=c["challengeId"],
                        signatures=dict(signatures, **{extra: signatures["pin"]}))
        assert [e["path"] for e in error["data"]["errors"]] == [f"signatures.{extra}"], error
    error = s.fails("server/authentication/verify", "invalidParams", registrationId=phone.registration, challengeId=c["challengeId"],
                    signatures={"device": signatures["device"], "faceID": signatures["pin"]})
    assert [e["path"] for e in error["data"]["errors"]] == ["signatures.faceID"], error
    s.ok("server/authentication/verify", registrationId=phone.registration, challengeId=c["challengeId"], signatures=signatures)
    c = phone.challenge()
    add = dict(registrationId=phone.registration, challengeId=c["challengeId"], method="faceId",
               signatures=dict(phone.signatures("addAuthMethod", c, "pin"), touchID="AAAA"),
               key=phone.proof("faceId", "addAuthMethod", phone.registration, c["challenge"]))
    error = s.fails("server/authMethod/add", "invalidParams", **add)
    assert [e["path"] for e in error["data"]["errors"]] == ["signatures.touchID"], error
    del add["signatures"]["touchID"]
    s.ok("server/authMethod/add", **add)
    token = phone.verify(tokenPurpose="addOrUpdateRecovery")["token"]
    recovery = Key("recovery-key")
    s.ok("server/recovery/set", registrationId=phone.registration, token=token,
         key={"publicKey": recovery.public, "proof": recovery.sign(payload("setRecovery", phone.registration, token, "recovery"))})
    new = Phone(s, "new-phone")
    new.registration = phone.registration
    c = s.ok("server/recovery/challenge", registrationId=phone.registration, installationId=new.installation)
    keys = {role: new.proof(role, "recover", phone.registration, c["challenge"]) for role in ("device", "pin")}
    recovered = dict(registrationId=phone.registration, challengeId=c["challengeId"],
                     recoverySignature=recovery.sign(payload("recover", phone.registration, c["challenge"], "recovery")))
    error = s.fails("server/recovery/commit", "invalidParams", keys=dict(keys, PIN=keys["pin"]), **recovered)
    assert [e["path"] for e in error["data"]["errors"]] == ["keys.PIN"], error
    s.ok("server/recovery/commit", keys=keys, **recovered)
    new.verify()


def recovery_after_pin_lock(s):
    """A registration locked by wrong PINs recovers: server/recovery/challenge and commit proceed, and leave it
    active with its PIN counter at zero; the new keys authenticate. An operator's lock still refuses recovery."""
    phone, recovery, new = recoverable(s)
    wrong = {"pin": Key("not-the-pin")}
    for _ in range(4):
        phone.verify(expect="authenticationFailed", signers=wrong)
    phone.verify(expect="registrationLocked", signers=wrong)
    status = s.ok("server/registration/status", registrationId=phone.registration)
    assert status["state"] == "locked", status
    c = s.ok("server/recovery/challenge", registrationId=phone.registration, installationId=new.installation)
    assert "device" not in c["authMethodsForActivation"], c
    keys = {role: new.proof(role, "recover", phone.registration, c["challenge"]) for role in ("device", "pin")}
    s.ok("server/recovery/commit", registrationId=phone.registration, challengeId=c["challengeId"],
         recoverySignature=recovery.sign(payload("recover", phone.registration, c["challenge"], "recovery")), keys=keys)
    status = s.ok("server/registration/status", registrationId=phone.registration)
    assert status["state"] == "active" and status["remainingAttemptsPIN"] == status["totalAttemptsPIN"], status
    new.verify()
    # An operator's lock is not the owner's to lift: recovery still refuses it.
    token = new.verify(tokenPurpose="addOrUpdateRecovery")["token"]
    s.ok("server/recovery/set", registrationId=phone.registration, token=token,
         key={"publicKey": recovery.public, "proof": recovery.sign(payload("setRecovery", phone.registration, token, "recovery"))})
    s.ok("admin/lockRegistration", registrationId=phone.registration)
    s.fails("server/recovery/challenge", "lockedByAdmin", registrationId=phone.registration, installationId="install-third")


def add_and_remove_methods(s):
    """authMethod/add needs a second factor allowed to add the method; remove needs the device alone, checked before what is
    asked of it (a stranger's device signature asking to remove `device` answers registrationRemoved, the phone's own answers
    cannotDeactivateDevice)."""
    phone = activated(s)
    c = phone.challenge()
    face = phone.key("faceId")
    add = lambda c, factor, **extra: dict(registrationId=phone.registration, challengeId=c["challengeId"],
                                          signatures=phone.signatures("addAuthMethod", c, factor), method="faceId",
                                          key=phone.proof("faceId", "addAuthMethod", phone.registration, c["challenge"]), **extra)
    s.fails("server/authMethod/add", "authMethodNotAllowed", **add(c, None))
    c = phone.challenge()
    params = add(c, "pin")
    params["key"] = {"publicKey": face.public, "proof": Key("thief").sign(payload("addAuthMethod", phone.registration, c["challenge"], "faceId"))}
    s.fails("server/authMethod/add", "proofInvalid", **params)
    s.ok("server/authMethod/add", **add(c, "pin"))
    c = phone.challenge()
    s.fails("server/authMethod/add", "authMethodNotAllowed", **dict(add(c, "pin"), method="device"))
    phone.verify(factor="faceId")
    c = phone.challenge()
    s.fails("server/authMethod/remove", "registrationRemoved", registrationId=phone.registration, challengeId=c["challengeId"],
            signatures={"device": Key("stranger").sign(payload("removeAuthMethod", phone.registration, c["challenge"], "device"))},
            method="device")
    c = phone.challenge()
    s.fails("server/authMethod/remove", "cannotDeactivateDevice", registrationId=phone.registration, challengeId=c["challengeId"],
            signatures=phone.signatures("removeAuthMethod", c), method="device")
    c = phone.challenge()
    s.ok("server/authMethod/remove", registrationId=phone.registration, challengeId=c["challengeId"],
         signatures=phone.signatures("removeAuthMethod", c), method="pin")
    phone.verify(factor="pin", expect="authMethodNotAllowed")
    s.ok("server/registration/status", registrationId=phone.registration)


def remove_registration(s):
    """A locked registration can still remove itself with a removeRegistration challenge and the device's signature; a
    stranger's device signature uses the challenge up."""
    phone = activated(s)
    for _ in range(5):
        phone.verify(expect="authenticationFailed" if _ < 4 else "registrationLocked", signers={"pin": Key("wrong")})
    s.fails("server/authentication/challenge", "registrationLocked", registrationId=phone.registration)
    c = s.ok("server/authentication/challenge", registrationId=phone.registration, purpose="removeRegistration")
    s.fails("server/registration/remove", "registrationRemoved", registrationId=phone.registration, challengeId=c["challengeId"],
            signatures={"device": Key("stranger").sign(payload("removeRegistration", phone.registration, c["challenge"], "device"))})
    s.fails("server/registration/remove", "noSessionInProgress", registrationId=phone.registration, challengeId=c["challengeId"],
            signatures=phone.signatures("removeRegistration", c))
    c = s.ok("server/authentication/challenge", registrationId=phone.registration, purpose="removeRegistration")
    s.ok("server/registration/remove", registrationId=phone.registration, challengeId=c["challengeId"],
         signatures=phone.signatures("removeRegistration", c))
    s.ok("server/registration/status", registrationId=phone.registration)
    s.fails("server/authentication/challenge", "registrationRemoved", registrationId=phone.registration, purpose="removeRegistration")


def remove_counts_nothing_unless_active(s):
    """A registration that is not active never counts an attempt, removal included: a wrong PIN with a removal answers the
    state (a PIN-locked one stays at 5, an operator's lock is not turned into a PIN lock) and removes nothing; the device
    signature alone still removes it."""
    phone = activated(s)
    wrong = {"pin": Key("wrong")}

    def remove(expect=None, factor=None, signers=None):
        c = s.ok("server/authentication/challenge", registrationId=phone.registration, purpose="removeRegistration")
        params = dict(registrationId=phone.registration, challengeId=c["challengeId"],
                      signatures=phone.signatures("removeRegistration", c, factor, signers=signers))
        return s.fails("server/registration/remove", expect, **params) if expect else s.ok("server/registration/remove", **params)

    s.ok("admin/lockRegistration", registrationId=phone.registration)
    for _ in range(5):
        remove("lockedByAdmin", "pin", wrong)
    s.ok("admin/getRegistration", registrationId=phone.registration)
    s.ok("admin/unlockRegistration", registrationId=phone.registration)
    for _ in range(5):
        phone.verify(expect="authenticationFailed" if _ < 4 else "registrationLocked", signers=wrong)
    remove("registrationLocked", "pin", wrong)
    s.ok("admin/getRegistration", registrationId=phone.registration)
    remove()
    s.ok("server/registration/status", registrationId=phone.registration)


def recovery_lifecycle(s):
    """Set a recovery key with a token, lose the phone, recover onto new keys; the old phone is refused and the
    recovery key, used once, recovers nothing more."""
    phone = activated(s)
    token = phone.verify(tokenPurpose="addOrUpdateRecovery")["token"]
    recovery = Key("recovery-key")
    bad = {"publicKey": recovery.public, "proof": recovery.sign(payload("setRecovery", phone.registration, "not-the-token", "recovery"))}
    s.fails("server/recovery/set", "proofInvalid", registrationId=phone.registration, token=token, key=bad)
    good = {"publicKey": recovery.public, "proof": recovery.sign(payload("setRecovery", phone.registration, token, "recovery"))}
    s.ok("server/recovery/set", registrationId=phone.registration, token=token, key=good)
    s.fails("server/recovery/set", "tokenInvalid", registrationId=phone.registration, token=token, key=good)
    new = Phone(s, "new-phone")
    new.registration = phone.registration
    c = s.ok("server/recovery/challenge", registrationId=phone.registration, installationId=new.installation)
    keys = {role: new.proof(role, "recover", phone.registration, c["challenge"]) for role in ("device", "pin")}
    s.fails("server/recovery/commit", "invalidParams", registrationId=phone.registration, challengeId=c["challengeId"],
            recoverySignature=recovery.sign(payload("recover", phone.registration, c["challenge"], "recovery")),
            keys=dict(keys, faceId=new.proof("faceId", "recover", phone.registration, c["challenge"])))
    s.fails("server/recovery/commit", "invalidParams", registrationId=phone.registration, challengeId=c["challengeId"],
            recoverySignature=recovery.sign(payload("recover", phone.registration, c["challenge"], "recovery")),
            keys={"device": keys["device"]})
    s.fails("server/recovery/commit", "recoveryCodeInvalid", registrationId=phone.registration, challengeId=c["challengeId"],
            recoverySignature=Key("guess").sign(payload("recover", phone.registration, c["challenge"], "recovery")), keys=keys)
    c = s.ok("server/recovery/challenge", registrationId=phone.registration, installationId=new.installation)
    keys = {role: new.proof(role, "recover", phone.registration, c["challenge"]) for role in ("device", "pin")}
    s.ok("server/recovery/commit", registrationId=phone.registration, challengeId=c["challengeId"],
         recoverySignature=recovery.sign(payload("recover", phone.registration, c["challenge"], "recovery")), keys=keys)
    phone.verify(expect="registrationRemoved")
    new.verify()
    s.fails("server/recovery/challenge", "recoveryNotActivated", registrationId=phone.registration, installationId=new.installation)
    s.ok("server/registration/status", registrationId=phone.registration)


def recoverable(s):
    """An activated phone whose recovery key is set, and a new phone to recover its registration onto."""
    phone = activated(s)
    token = phone.verify(tokenPurpose="addOrUpdateRecovery")["token"]
    recovery = Key("recovery-key")
    s.ok("server/recovery/set", registrationId=phone.registration, token=token,
         key={"publicKey": recovery.public, "proof": recovery.sign(payload("setRecovery", phone.registration, token, "recovery"))})
    new = Phone(s, "new-phone")
    new.registration = phone.registration
    return phone, recovery, new


def old_phone_after_recovery(s):
    """The registration recovered onto a new phone's device and faceId keys: the old phone is refused with
    registrationRemoved whatever it signs with (its PIN is no longer activated) and counts nothing; the recovery's
    audit events carry the installation that asked; a recovery challenge is not an authentication's, so
    server/authentication/cancel refuses it and the recovery still commits."""
    phone, recovery, new = recoverable(s)
    c = s.ok("server/recovery/challenge", registrationId=phone.registration, installationId=new.installation)
    s.fails("server/authentication/cancel", "noSessionInProgress", registrationId=phone.registration, challengeId=c["challengeId"])
    keys = {role: new.proof(role, "recover", phone.registration, c["challenge"]) for role in ("device", "faceId")}
    s.ok("server/recovery/commit", registrationId=phone.registration, challengeId=c["challengeId"],
         recoverySignature=recovery.sign(payload("recover", phone.registration, c["challenge"], "recovery")), keys=keys)
    phone.verify(expect="registrationRemoved")
    phone.verify(factor=None, expect="registrationRemoved")
    phone.verify(expect="registrationRemoved", tokenPurpose="deleteRecovery")
    status = s.ok("server/registration/status", registrationId=phone.registration)
    assert status["remainingAttemptsPIN"] == status["totalAttemptsPIN"], status
    new.verify(factor="faceId")
    events = s.ok("audit/list", registrationId=phone.registration)["events"]
    recovered = [e for e in events if e["type"] == "recoveryCompleted"]
    assert recovered and recovered[0].get("installationId") == new.installation, events


def recovery_locked(s):
    """Five wrong recovery signatures lock recovery; the sixth answers recoveryLocked."""
    phone, recovery, new = recoverable(s)
    for attempt in range(5):
        c = s.ok("server/recovery/challenge", registrationId=phone.registration, installationId=new.installation)
        keys = {role: new.proof(role, "recover", phone.registration, c["challenge"]) for role in ("device", "pin")}
        s.fails("server/recovery/commit", "recoveryCodeInvalid" if attempt < 4 else "recoveryLocked", registrationId=phone.registration,
                challengeId=c["challengeId"], keys=keys,
                recoverySignature=Key("guess").sign(payload("recover", phone.registration, c["challenge"], "recovery")))
    s.fails("server/recovery/challenge", "recoveryLocked", registrationId=phone.registration, installationId=new.installation)


def recovery_delete(s):
    """A deleteRecovery token deletes the recovery key; with nothing to delete the token is not spent."""
    phone = activated(s)
    token = phone.verify(tokenPurpose="deleteRecovery")["token"]
    s.fails("server/recovery/delete", "recoveryNotActivated", registrationId=phone.registration, token=token)
    set_token = phone.verify(tokenPurpose="addOrUpdateRecovery")["token"]
    recovery = Key("recovery-key")
    s.fails("server/recovery/set", "tokenPurposeMismatch", registrationId=phone.registration, token=token,
            key={"publicKey": recovery.public, "proof": recovery.sign(payload("setRecovery", phone.registration, token, "recovery"))})
    s.ok("server/recovery/set", registrationId=phone.registration, token=set_token,
         key={"publicKey": recovery.public, "proof": recovery.sign(payload("setRecovery", phone.registration, set_token, "recovery"))})
    s.ok("server/recovery/delete", registrationId=phone.registration, token=token, tokenPurpose="none")
    s.fails("server/recovery/challenge", "recoveryNotActivated", registrationId=phone.registration, installationId="x")


def activation_codes(s):
    """A prepared code is bound to its installation; the same installation replaces its activation; wrong codes are
    limited per installation."""
    s.ok("admin/createUser", userId="alice", email="alice@example.com")
    code = s.ok("admin/createActivationCode", userId="alice")["activationCode"]
    a, b = Phone(s, "a"), Phone(s, "b")
    first = a.prepare(code)
    s.fails("server/activation/prepare", "activationCodeInvalid", activationCode=code, installationId=b.installation)
    second = a.prepare(code)
    s.fails("server/activation/commit", "noSessionInProgress", activationId=first["activationId"],
            keys={"device": a.proof("device", "activate", first["activationId"], first["challenge"])})
    for _ in range(4):  # the refused prepare above counted as one wrong code
        s.fails("server/activation/prepare", "activationCodeInvalid", activationCode="00000000000", installationId=b.installation)
    s.fails("server/activation/prepare", "rateLimited", activationCode=code, installationId=b.installation)
    a.commit(second)
    s.fails("server/activation/commit", "noSessionInProgress", activationId=second["activationId"],
            keys={"device": a.proof("device", "activate", second["activationId"], second["challenge"])})


def onboarding(s):
    """Onboarding for an outside device: start, a wrong then the right OTP from delivery/list, commit; the registration
    waits for verification; a second start from the installation is refused while one runs; cancel ends one (audited with
    the installation that started it)."""
    s.ok("admin/createUser", userId="alice", email="alice@example.com")
    phone = Phone(s, "phone")
    process = s.ok("server/onboarding/start", credentials={"email": "alice@example.com"}, installationId=phone.installation)["processId"]
    s.fails("server/onboarding/start", "onboardingInProgress", credentials={"email": "alice@example.com"}, installationId=phone.installation)
    s.ok("server/onboarding/status", processId=process)
    otp = s.ok("delivery/list", to="alice@example.com")["messages"][-1]["code"]
    s.fails("server/onboarding/activate", "otpInvalid", processId=process, otp="00000" if otp != "00000" else "11111")
    prepared = s.ok("server/onboarding/activate", processId=process, otp=otp)
    phone.commit(prepared)
    s.ok("server/onboarding/status", processId=process)
    s.fails("server/authentication/challenge", "verificationPending", registrationId=phone.registration)
    s.ok("admin/completeVerification", registrationId=phone.registration, approved=True)
    s.ok("server/onboarding/status", processId=process)
    phone.verify()
    other = s.ok("server/onboarding/start", credentials={"loginName": "nobody"}, installationId="install-2")["processId"]
    s.fails("server/onboarding/resendOtp", "resendLimited", processId=other)
    s.ok("clock/advance", seconds=30)
    s.ok("server/onboarding/resendOtp", processId=other)
    s.ok("server/onboarding/cancel", processId=other)
    s.fails("server/onboarding/cancel", "onboardingNotRunning", processId=other)
    # Its cancellation is audited with the installation that started it (the call names only the process).
    cancelled = [e for e in s.ok("audit/list")["events"] if e["type"] == "onboardingCancelled"]
    assert [e.get("installationId") for e in cancelled] == ["install-2"], cancelled
    s.fails("server/onboarding/status", "onboardingNotRunning", processId="00000000-0000-4000-8000-000000000000")
    s.fails("server/onboarding/start", "invalidParams", credentials={"nickname": "al"}, installationId="install-3")


def cancel_after_expiry_rejects_push(s):
    """A phone that cancels after its challenge's 300 s still says no: server/authentication/cancel answers
    sessionExpired, the push it picked up (time to live 3600 s) is rejected all the same, and the next challenge picks
    up nothing. A push whose own time is over when the cancel comes stays expired."""
    phone = activated(s)
    push = s.ok("admin/pushAuthentication", registrationId=phone.registration, contextTitle="Log in", ttlSeconds=3600)
    c = phone.challenge()
    s.ok("clock/advance", seconds=300)
    s.fails("server/authentication/cancel", "sessionExpired", registrationId=phone.registration, challengeId=c["challengeId"])
    s.ok("admin/getAuthentication", authenticationId=push["authenticationId"])
    c = phone.challenge()
    assert "authenticationId" not in c, c
    short = s.ok("admin/pushAuthentication", registrationId=phone.registration, contextTitle="Pay", ttlSeconds=60)
    c = phone.challenge()
    s.ok("clock/advance", seconds=60)
    s.ok("server/authentication/cancel", registrationId=phone.registration, challengeId=c["challengeId"])
    s.ok("admin/getAuthentication", authenticationId=short["authenticationId"])


SCENARIOS = [activation_lifecycle, signature_forms, wrong_pin_counts, replayed_challenge, challenge_expiry, stranger_device_signature,
             device_only_verify, pushed_context, proofs_refused, hostile_keys, add_and_remove_methods, remove_registration,
             recovery_lifecycle, old_phone_after_recovery, recovery_locked, recovery_delete, activation_codes, onboarding,
             unknown_roles, recovery_after_pin_lock, remove_counts_nothing_unless_active, cancel_after_expiry_rejects_push]


def record(scenarios, folder, argv):
    """Runs the scenarios whose names contain a filter (all without one) and writes each one's
    transcript, description and recorded answers into `folder`."""
    binary, filters = argv[0], argv[1:]
    for scenario in scenarios:
        name = scenario.__name__
        if filters and not any(f in name for f in filters):
            continue
        session = Session(binary)
        try:
            scenario(session)
        finally:
            session.close()
        base = os.path.join(folder, name)
        with open(base + ".in.jsonl", "w") as f:
            f.write("\n".join(session.lines) + "\n")
        with open(base + ".description", "w") as f:
            f.write(" ".join(scenario.__doc__.split()) + "\n")
        replay = subprocess.run([binary] + ARGS, input=open(base + ".in.jsonl", "rb").read(), stdout=subprocess.PIPE, check=True)
        with open(base + ".out.jsonl", "wb") as f:
            f.write(replay.stdout)
        print(f"recorded {os.path.basename(folder)}/{name} ({len(session.lines)} requests)")


def main():
    record(SCENARIOS, HERE, sys.argv[1:])


if __name__ == "__main__":
    main()
