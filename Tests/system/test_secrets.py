"""Secret hygiene (security properties 1 and 4, "Conventions: Errors").

One process at --log-level trace on a file store runs every flow family once,
with wrong tries too, while subscribed to every event topic. Every secret used or
issued is collected (PINs, passwords, recovery codes, activation codes, tokens,
session ids, OTPs, reset codes, and the wrong ones a user typed). Then:

- stderr (the log; a failing --deliver-command adds error lines) holds none of them, in clear or in an obvious encoding;
- the SQLite file (and its -wal/-shm while the process runs, and after exit)
  holds none of them, in clear or in an obvious encoding;
- stdout holds a secret only where the contract puts it: a token, session id,
  activation code or generated recovery code in the result that issues it; a
  one-time code in delivery/list and delivery/open results and in the
  delivery/sent and reset/accountRecoveryCallback notifications. No error
  message or error data ever holds one;
- the store file's mode is 0600.
"""
import base64
import binascii
import hashlib
import json
import os
import random
import stat
import string
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden", "passkey"))
from webauthn_fixture import Authenticator, b64  # noqa: E402  (a fixed outside authenticator's key)

_KEY = Authenticator("alice-secret-key")
#: A passkey registered elsewhere, imported with the user (a public key: no secret).
IMPORTED_PASSKEY = {"credentialId": b64(_KEY.credential_id), "publicKey": b64(_KEY.cose()), "friendlyName": "Alice's key"}

from lkharness import pin

ISSUED = "issued"        # may appear only in the result of the response that issued it
ONE_TIME = "oneTime"     # may appear only in the out-of-band channel (delivery, callback)
INPUT = "input"          # typed by the user; never appears in any output

OOB_RESULTS = {"delivery/list", "delivery/open"}
OOB_NOTIFICATIONS = {"delivery/sent", "reset/accountRecoveryCallback"}


class Secret:
    def __init__(self, label, value, kind, issued_by=None):
        self.label, self.value, self.kind, self.issued_by = label, value, kind, issued_by

    def __repr__(self):
        return f"<{self.label} {self.kind}>"


def _b64_fragments(raw):
    """Base64 text that must appear wherever `raw` is base64-encoded, at any alignment."""
    out = set()
    for k in range(3):
        enc = base64.b64encode(b"\0" * k + raw).decode()
        start = -(-8 * k // 6)
        end = (8 * (k + len(raw))) // 6
        frag = enc[start:end]
        if len(frag) >= 6:
            out.add(frag)
            out.add(frag.translate(str.maketrans("+/", "-_")))
    return out


def _b64url_decode(text):
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return None


def text_forms(value):
    """Spellings of the secret as text: clear, normalised, case-changed."""
    forms = {value, value.lower(), value.upper()}
    if "-" in value and not value.startswith("-"):
        forms.add(value.replace("-", ""))
        forms.add(value.replace("-", "").lower())
    return {f for f in forms if len(f) >= 4}


def byte_forms(secret):
    """Byte patterns that betray the secret in a file or a log."""
    pats = set()
    for t in text_forms(secret.value):
        raw = t.encode()
        pats.add(raw)
        pats.add(t.encode("utf-16-le"))
        pats.add(t.encode("utf-16-be"))
        pats.add(raw.hex().encode())
        pats.add(raw.hex().upper().encode())
        for frag in _b64_fragments(raw):
            pats.add(frag.encode())
    # Tokens and session ids are base64url of random bytes: their decoded bytes too.
    if secret.label.startswith(("token", "sessionId")):
        dec = _b64url_decode(secret.value)
        if dec and len(dec) >= 12:
            pats.add(dec)
            pats.add(dec.hex().encode())
            pats.add(dec.hex().upper().encode())
            pats.add(base64.b64encode(dec).rstrip(b"="))
    # An unkeyed hash is not among property 1's forms ("salted slow hashes or keyed hashes only"): anyone holding the file could
    # confirm a guessed or leaked secret with one. SHA-256 of the secret, alone or after a purpose label and a NUL.
    for label in UNKEYED_LABELS:
        digest = hashlib.sha256((label + "\0" if label else "").encode() + secret.value.encode())
        pats.update({digest.digest(), digest.hexdigest().encode()})
    # A recovery grant's stored form, were it unkeyed: the hash of the hash of the token.
    grant = hashlib.sha256(b"grant\0" + secret.value.encode()).hexdigest()
    pats.add(hashlib.sha256(b"grantSecret\0" + grant.encode()).hexdigest().encode())
    return pats


#: Purpose labels a store might put before a secret it hashes.
UNKEYED_LABELS = ("", "session", "token", "activation", "activation-id", "passkey-ceremony", "reset-code", "grant", "onboarding")


def find_secrets(blob, secrets):
    """[(secret, pattern)] for every secret some form of which occurs in blob (bytes)."""
    hits = []
    for s in secrets:
        for p in byte_forms(s):
            if p in blob:
                hits.append((s.label, s.value, p[:60]))
                break
    return hits


def rand_digits(rng, n, avoid=()):
    while True:
        v = "".join(rng.choice(string.digits) for _ in range(n))
        if v[0] != "0" and v not in avoid and len(set(v)) >= 4:
            return v


def test_no_secret_leaks_at_trace_level(spawn, workdir, db_path):
    rng = random.Random()
    # A failing --deliver-command exercises the error log path with a code in hand.
    lk = spawn("--db", db_path, "--log-level", "trace", "--deliver-command", "cat >/dev/null; exit 3", name="trace")
    secrets = []

    def issued(label, value, reply_id):
        assert isinstance(value, str) and value, (label, value)
        secrets.append(Secret(label, value, ISSUED, reply_id))
        return value

    def one_time(label, value):
        assert isinstance(value, str) and value, (label, value)
        secrets.append(Secret(label, value, ONE_TIME))
        return value

    def typed(label, value):
        secrets.append(Secret(label, value, INPUT))
        return value

    def call(method, **params):
        """-> (result, request id)"""
        i = lk.send(method, params)
        reply = lk.recv(i)
        assert "result" in reply, f"{method}: {reply}"
        return reply["result"], i

    def fail(method, expect, **params):
        i = lk.send(method, params)
        reply = lk.recv(i)
        assert "error" in reply, f"{method} succeeded: {reply}"
        assert reply["error"]["data"]["reason"] == expect, reply
        return reply["error"]

    def last_code(to, purpose):
        msgs = [m for m in lk.ok("delivery/list", to=to)["messages"] if m["purpose"] == purpose]
        assert msgs, (to, purpose)
        return msgs[-1]

    pins = {k: typed(f"pin{k}", rand_digits(rng, 8)) for k in ("1", "2", "3", "4")}
    wrong_pin = typed("wrongPin", rand_digits(rng, 8, pins.values()))
    password1 = typed("password1", "Pw1-" + "".join(rng.choice(string.ascii_letters) for _ in range(14)))
    password2 = typed("password2", "Pw2-" + "".join(rng.choice(string.ascii_letters) for _ in range(14)))
    password3 = typed("password3", "Pw3-" + "".join(rng.choice(string.ascii_letters) for _ in range(14)))
    wrong_password = typed("wrongPassword", "Bad-" + "".join(rng.choice(string.ascii_letters) for _ in range(14)))
    chosen_rc = typed("chosenRecoveryCode", "My-Own-" + "".join(rng.choice(string.ascii_letters) for _ in range(12)))
    wrong_rc = typed("wrongRecoveryCode", "Not-Mine-" + "".join(rng.choice(string.ascii_letters) for _ in range(12)))

    lk.ok("events/subscribe", topics=["delivery", "accountRecovery", "accountRecoveryCallback", "audit"])

    # --- users --------------------------------------------------------------
    email1, phone1 = "alice.secret@example.com", "+15550100001"
    email2, phone2 = "bob.secret@example.com", "+15550100002"
    lk.ok("admin/createUser", userId="alice", email=email1, phoneNumber=phone1, password=password1,
          birthDate="1985-04-12", passkeys=[IMPORTED_PASSKEY])
    lk.ok("admin/createUser", userId="bob", email=email2, phoneNumber=phone2, password=password3,
          birthDate="1991-09-30")

    # --- activation with a PIN; a wrong activation code -------------------------
    res, i = call("admin/createActivationCode", userId="alice")
    act_code = issued("activationCode1", res["activationCode"], i)
    dev1 = lk.ok("device/create", name="Alice's phone")["deviceId"]
    wrong_ac = typed("wrongActivationCode", rand_digits(rng, len(act_code), [act_code]))
    fail("activation/start", "activationCodeInvalid", deviceId=dev1, activationCode=wrong_ac)
    lk.ok("config/load")
    lk.ok("pin/validate", pin=pins["1"])
    lk.ok("activation/start", deviceId=dev1, activationCode=act_code)
    res, i = call("activation/finish", deviceId=dev1, authParameter=pin(pins["1"]), tokenPurpose="addOrUpdateRecovery")
    reg1 = res["registrationId"]
    token1 = issued("token1", res["token"], i)
    # A used activation code is refused without being quoted.
    dev_other = lk.ok("device/create")["deviceId"]
    fail("activation/start", "activationCodeInvalid", deviceId=dev_other, activationCode=act_code)

    # --- authentication: wrong PIN, right PIN with a token ---------------------------
    lk.ok("authentication/start", deviceId=dev1)
    fail("authentication/finish", "authenticationFailed", deviceId=dev1, authParameter=pin(wrong_pin))
    lk.ok("authentication/start", deviceId=dev1)
    res, i = call("authentication/finish", deviceId=dev1, authParameter=pin(pins["1"]), tokenPurpose="deleteRecovery")
    issued("token2", res["token"], i)

    # --- change the PIN ---------------------------------------------------------------
    lk.ok("authMethod/startAddOrUpdate", deviceId=dev1)
    lk.ok("authMethod/finishAddOrUpdate", deviceId=dev1, activationParameter=pin(pins["2"]),
          authParameter=pin(pins["1"]))
    lk.ok("authentication/start", deviceId=dev1)
    fail("authentication/finish", "authenticationFailed", deviceId=dev1, authParameter=pin(pins["1"]))

    # --- recovery code: set with a token, back up, restore, recover ---------------------
    res, i = call("recovery/generateCode")
    generated_rc = issued("generatedRecoveryCode", res["recoveryCode"], i)
    fail("recovery/startAddOrUpdate", "tokenInvalid", deviceId=dev1,
         token=typed("forgedToken", base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode()))
    lk.ok("recovery/startAddOrUpdate", deviceId=dev1, token=token1)
    res, i = call("recovery/finishAddOrUpdate", deviceId=dev1,
                  recoveryParameter={"method": "backup", "recoveryCode": chosen_rc}, tokenPurpose="addOrUpdateRecovery")
    token3 = issued("token3", res["token"], i)
    fail("recovery/startAddOrUpdate", "tokenInvalid", deviceId=dev1, token=token1)   # used
    # Replace it with the generated code, authorised by the token the last step issued.
    lk.ok("recovery/startAddOrUpdate", deviceId=dev1, token=token3)
    lk.ok("recovery/finishAddOrUpdate", deviceId=dev1,
          recoveryParameter={"method": "backup", "recoveryCode": generated_rc})
    assert lk.ok("device/isRecoveryActivated", deviceId=dev1) == {"activated": True}
    backup = lk.ok("device/backup", deviceId=dev1, kind="computerEncrypted")["backupId"]
    dev2 = lk.ok("device/restore", backupId=backup, biometry="none")["deviceId"]
    lk.ok("recovery/start", deviceId=dev2)
    fail("recovery/finish", "recoveryCodeInvalid", deviceId=dev2,
         recoveryParameter={"method": "backup", "recoveryCode": chosen_rc}, authParameter=pin(pins["3"]))
    lk.ok("recovery/start", deviceId=dev2)
    fail("recovery/finish", "recoveryCodeInvalid", deviceId=dev2,
         recoveryParameter={"method": "backup", "recoveryCode": wrong_rc}, authParameter=pin(pins["3"]))
    lk.ok("recovery/start", deviceId=dev2)
    res, i = call("recovery/finish", deviceId=dev2, recoveryParameter={"method": "backup", "recoveryCode": generated_rc},
                  authParameter=pin(pins["3"]), tokenPurpose="addOrUpdateRecovery")
    assert res["registrationId"] == reg1
    issued("token4", res["token"], i)
    lk.ok("authentication/start", deviceId=dev2)
    lk.ok("authentication/finish", deviceId=dev2, authParameter=pin(pins["3"]))

    # --- sign-in, grace-period account recovery ------------------------------------------
    fail("user/login", "invalidCredentials", userId="alice", password=wrong_password)
    res, i = call("user/login", email=email1, password=password1)
    session1 = issued("sessionId1", res["sessionId"], i)
    lk.ok("user/get", sessionId=session1)
    lk.ok("accountRecovery/start", sessionId=session1)
    lk.ok("accountRecovery/status", sessionId=session1)
    fail("accountRecovery/start", "accountRecoveryNotAllowed", sessionId=session1)
    # Outside the insecure window a password change is refused (the reason is not the point here).
    early = typed("earlyPassword", "Early-Pw-" + "".join(rng.choice(string.ascii_letters) for _ in range(10)))
    assert "error" in lk.request("accountRecovery/resetPassword", sessionId=session1, newPassword=early)
    lk.ok("accountRecovery/cancel", sessionId=session1)
    lk.ok("user/passkeys", sessionId=session1)
    # What names a creation ceremony or an activation lets whoever holds it finish it with keys of
    # their own: the store keeps neither (only their keyed hashes).
    res, i = call("passkey/creationOptions", sessionId=session1)
    issued("ceremonyId1", res["ceremonyId"], i)
    res, i = call("admin/createActivationCode", userId="bob")
    act_code3 = issued("activationCode3", res["activationCode"], i)
    res, i = call("server/activation/prepare", activationCode=act_code3, installationId="secrets-app")
    issued("activationId1", res["activationId"], i)

    # --- verification-code reset: password reset -------------------------------------------
    assert lk.ok("reset/requestPasswordReset", email=email1, redirectUrl="app://reset") == {}
    reset_code = one_time("passwordResetCode", last_code(email1, "passwordReset")["code"])
    wrong_reset = typed("wrongResetCode", rand_digits(rng, len(reset_code), [reset_code]))
    fail("reset/updatePassword", "verificationCodeInvalid", email=email1, verificationCode=wrong_reset, password=password2)
    fail("reset/resetPasskeys", "verificationCodeInvalid", email=email1, verificationCode=reset_code)
    lk.ok("reset/updatePassword", email=email1, verificationCode=reset_code, password=password2)
    fail("user/get", "userSessionInvalid", sessionId=session1)     # a password change ended it
    res, i = call("user/login", userId="alice", password=password2)
    session2 = issued("sessionId2", res["sessionId"], i)

    # --- verification-code reset: account recovery deep link, passkey reset ----------------------
    assert lk.ok("reset/requestAccountRecovery", phoneNumber=phone1, redirectUrl="app://recover") == {}
    msg = last_code(phone1, "accountRecovery")
    ar_code = one_time("accountRecoveryCode", msg["code"])
    lk.ok("delivery/open", messageId=msg["id"])
    lk.ok("reset/resetPasskeys", phoneNumber=phone1, verificationCode=ar_code, passkey={"deviceId": dev1, "friendlyName": "New key"})
    # A passkey reset ends every session of the user, as a password change does.
    fail("user/passkeys", "userSessionInvalid", sessionId=session2)

    # --- identity-based onboarding with an OTP -------------------------------------------------
    dev3 = lk.ok("device/create", biometry="touchId")["deviceId"]
    lk.ok("onboarding/start", deviceId=dev3, credentials={"userId": "bob", "birthDate": "1991-09-30"},
          canRestoreSession=True)
    otp = one_time("onboardingOtp", last_code(email2, "onboardingOtp")["code"])
    wrong_otp = typed("wrongOtp", rand_digits(rng, len(otp), [otp]))
    fail("onboarding/activate", "otpInvalid", deviceId=dev3, otp=wrong_otp)
    lk.ok("onboarding/status", deviceId=dev3)
    lk.ok("onboarding/activate", deviceId=dev3, otp=otp)
    res, i = call("activation/finish", deviceId=dev3, authParameter=pin(pins["4"]), tokenPurpose="none")
    lk.ok("admin/completeVerification", registrationId=res["registrationId"], approved=True)
    lk.ok("authentication/start", deviceId=dev3)
    lk.ok("authentication/finish", deviceId=dev3, authParameter=pin(pins["4"]))
    # An onboarding that matches nobody, and one whose OTP is resent.
    dev4 = lk.ok("device/create")["deviceId"]
    lk.ok("onboarding/start", deviceId=dev4, credentials={"email": "nobody@example.com"})
    fail("onboarding/activate", "otpInvalid", deviceId=dev4, otp=wrong_otp)
    lk.ok("onboarding/cancel", deviceId=dev4)

    # --- a second activation code, used by bob with the password reset afterwards -------------------
    res, i = call("admin/createActivationCode", userId="bob")
    issued("activationCode2", res["activationCode"], i)
    res, i = call("user/login", userId="bob", password=password3)
    issued("sessionId3", res["sessionId"], i)

    # --- malformed or refused secrets: the answers never quote them ----------------------------
    def junk(label, prefix="Junk"):
        return typed(label, prefix + "".join(rng.choice(string.ascii_letters) for _ in range(12)))

    long_pin = typed("longPin", rand_digits(rng, 70))
    for p_ in (junk("badPin1", "9"), junk("badPin2"), long_pin):
        res = lk.ok("pin/validate", pin=p_)
        assert res["valid"] is False, res
    short_pw = typed("shortPassword", "S" + "".join(rng.choice(string.ascii_letters) for _ in range(6)))
    fail("reset/updatePassword", "policyViolation", email=email2, verificationCode=junk("badResetCode"),
         password=short_pw)
    fail("reset/updatePassword", "verificationCodeInvalid", email=email2, verificationCode=junk("badResetCode2"),
         password=junk("okPassword"))
    fail("user/login", "invalidCredentials", userId="nobody-here", password=junk("unknownUserPassword"))
    fail("user/get", "userSessionInvalid", sessionId=junk("forgedSession"))
    dev5 = lk.ok("device/create")["deviceId"]
    fail("activation/start", "activationCodeInvalid", deviceId=dev5, activationCode=junk("badActivationCode"))
    fail("onboarding/activate", "onboardingNotRunning", deviceId=dev5, otp=junk("badOtp"))
    fail("recovery/startAddOrUpdate", "tokenInvalid", deviceId=dev2, token=junk("badToken"))
    fail("authentication/finish", "noSessionInProgress", deviceId=dev5, authParameter=pin(junk("noSessionPin", "7")))
    # Broken JSON that carries a secret: the parse error gives a position, never the text.
    broken = (
        '{"jsonrpc":"2.0","id":501,"method":"user/login","params":{"userId":"alice","password":"%s}\n',
        '{"jsonrpc":"2.0","id":502,"method":"user/login","params":{"userId":"alice","password":"%s","password":"x"}}\n',
        '{"jsonrpc":"2.0","id":503,"method":"user/login","params":{"userId":"alice","password":"%s",,}}\n',
    )
    for n, raw in enumerate(broken):
        lk.write_raw(raw % junk(f"passwordInBrokenJson{n}"))
        assert lk.ok("ping", echo="after broken json") == {"echo": "after broken json"}
    lk.write_raw(b'{"jsonrpc":"2.0","id":504,"method":"user/login","params":{"password":"'
                 + junk("passwordInBadUtf8").encode() + b'\xff\xfe"}}\n')
    assert lk.ok("ping") == {"echo": None}

    lk.ok("audit/list", limit=1000)
    lk.ok("admin/listRegistrations", userId="alice")

    # ---- the files while the process still runs ---------------------------------------------------
    def store_files():
        d = os.path.dirname(db_path)
        base = os.path.basename(db_path)
        return sorted(os.path.join(d, f) for f in os.listdir(d) if f.startswith(base))

    running = {}
    for f in store_files():
        with open(f, "rb") as fh:
            running[os.path.basename(f)] = fh.read()
    mode = stat.S_IMODE(os.stat(db_path).st_mode)
    assert mode == 0o600, f"db file mode {oct(mode)}"
    wal = db_path + "-wal"
    if os.path.exists(wal):
        assert stat.S_IMODE(os.stat(wal).st_mode) & 0o077 == 0, oct(os.stat(wal).st_mode)

    assert lk.close() == 0
    after = {}
    for f in store_files():
        with open(f, "rb") as fh:
            after[os.path.basename(f)] = fh.read()
    assert stat.S_IMODE(os.stat(db_path).st_mode) == 0o600

    labels = [s.label for s in secrets]
    assert len(labels) == len(set(labels))
    values = [s.value for s in secrets]
    assert len(values) == len(set(values)), "two secrets collided; rerun"
    problems = []

    # 1. stderr: nothing.
    stderr = lk.stderr_bytes()
    assert stderr, "nothing logged at --log-level trace: is the log captured?"
    for hit in find_secrets(stderr, secrets):
        problems.append(f"stderr holds {hit[0]} ({hit[1]!r}) as {hit[2]!r}")

    # 2. The store: nothing, in any file, running or stopped.
    for when, files in (("while running", running), ("after exit", after)):
        for name, blob in files.items():
            for hit in find_secrets(blob, secrets):
                problems.append(f"{name} ({when}) holds {hit[0]} ({hit[1]!r}) as {hit[2]!r}")

    # 3. stdout: only where the contract puts each secret.
    assert lk.partial == b"" and not lk.bad_lines
    for line in lk.raw_lines:
        msg = json.loads(line)
        text = line.decode()
        for s in secrets:
            if not any(f in text for f in text_forms(s.value)):
                continue
            where = describe(msg, lk)
            if "error" in msg:
                problems.append(f"error answer to {where} holds {s.label} ({s.value!r}): {text.strip()[:300]}")
            elif not allowed_on_stdout(s, msg, lk):
                problems.append(f"{where} holds {s.label} ({s.value!r}): {text.strip()[:300]}")

    # Every one-time code did reach its channel, and every issued secret its result.
    for s in secrets:
        if s.kind == ISSUED:
            assert s.value in json.dumps(lk.replies[s.issued_by]["result"]), s

    assert not problems, "secret leaks:\n" + "\n".join(problems)


def describe(msg, lk):
    if "id" in msg and ("result" in msg or "error" in msg):
        return f"the response to {lk.sent_methods.get(msg['id'], '?')} (id {msg['id']})"
    return f"the notification {msg.get('method')}"


def allowed_on_stdout(secret, msg, lk):
    is_response = "id" in msg and "result" in msg
    if secret.kind == ISSUED:
        return is_response and msg["id"] == secret.issued_by
    if secret.kind == ONE_TIME:
        if is_response:
            return lk.sent_methods.get(msg["id"]) in OOB_RESULTS
        return msg.get("method") in OOB_NOTIFICATIONS
    return False
