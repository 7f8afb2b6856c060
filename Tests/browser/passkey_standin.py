#!/usr/bin/env python3
"""A STAND-IN for the binary's passkey methods, until they land: delete it then.

    python3 Tests/browser/passkey_standin.py [latchkey flags...]     # $LATCHKEY_BIN underneath

It speaks NDJSON JSON-RPC on stdio like latchkey and forwards every call to a real latchkey
($LATCHKEY_BIN_REAL, else $LATCHKEY_BIN), except the passkey methods of the contract
("Passkeys (WebAuthn)"), which it answers itself with PyPI `webauthn` (py_webauthn) as the
Relying Party. It lets the browser test and the clients' passkey life cycles run before the
binary has passkeys, to check the page, the back end and the tests themselves — never the
binary. Its shortcuts, none of which the binary takes:

- passkey/login makes the session with user/login, so it remembers the passwords given to
  admin/createUser (a test tool, in memory only);
- reset/passkeyCreationOptions checks the code only against those it saw used (reset/resetPasskeys
  checks it through the real binary, which consumes it);
- `data.check` names only the checks it makes itself (type, challenge, origin, credential,
  userHandle, signCount, userVerification); whatever py_webauthn refuses is "signature" or
  "attestation";
- passkey audit events are kept here and added to audit/list.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python"))
import webauthn  # noqa: E402
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url  # noqa: E402

from latchkey import Latchkey, LatchkeyError  # noqa: E402

PASSKEY_METHODS = ["passkey/creationOptions", "passkey/create", "passkey/requestOptions", "passkey/login",
                   "passkey/remove", "user/passkeys", "reset/passkeyCreationOptions", "reset/resetPasskeys"]


class Refusal(Exception):
    def __init__(self, code, reason, message, **data):
        super().__init__(message)
        self.error = {"code": code, "message": message, "data": {"reason": reason, **data}}


def invalid(check):
    return Refusal(1950, "passkeyInvalid", "The passkey credential failed a check", check=check)


class StandIn:
    def __init__(self, lk):
        self.lk = lk
        self.rp = {"passkeyRpId": "localhost", "passkeyRpName": "Latchkey",
                   "passkeyOrigins": ["https://localhost"], "passkeyUserVerification": "required"}
        self.users = {}       # uid → {email, password, handle}
        self.passkeys = {}    # credential id (b64url) → record
        self.ceremonies = {}  # id → {kind, challenge, uid, expires}
        self.events = []
        self.key = secrets.token_bytes(32)
        self.used_codes = set()

    # -- plumbing ------------------------------------------------------------------------------
    def call(self, method, params):
        handler = getattr(self, "m_" + method.replace("/", "_").replace(".", "_"), None)
        if handler is None:
            return self.lk.call(method, params)
        return handler(params or {})

    def user_by_email(self, email):
        return next((uid for uid, u in self.users.items() if u["email"] and u["email"].lower() == (email or "").lower()), None)

    def ceremony(self, kind, challenge, uid=None):
        cid = str(uuid.uuid4())
        self.ceremonies[cid] = {"kind": kind, "challenge": challenge, "uid": uid, "expires": time.monotonic() + 300}
        return cid

    def take(self, cid, kinds):
        c = self.ceremonies.pop(cid, None)
        if c is None or c["kind"] not in kinds:
            raise Refusal(1200, "noSessionInProgress", "No ceremony in progress")
        if c["expires"] < time.monotonic():
            raise Refusal(1201, "sessionExpired", "The ceremony expired")
        return c

    def listed(self, uid):
        return sorted((self.public(p) for p in self.passkeys.values() if p["uid"] == uid), key=lambda p: p["createdAt"])

    @staticmethod
    def public(p):
        return {k: p[k] for k in ("id", "friendlyName", "createdAt", "lastUsedAt", "algorithm", "backupEligible",
                                  "backedUp", "transports", "aaguid")}

    def audit(self, uid, kind, **extra):
        self.events.append({"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "type": kind, "userId": uid, **extra})

    def check_client_data(self, credential, kind, ceremony):
        client = json.loads(base64url_to_bytes(credential["response"]["clientDataJSON"]))
        if client.get("type") != kind:
            raise invalid("type")
        if client.get("challenge") != ceremony["challenge"]:
            raise invalid("challenge")
        if client.get("origin") not in self.rp["passkeyOrigins"] or client.get("crossOrigin") is True:
            raise invalid("origin")

    def flags(self, auth_data_b64):
        flags = base64url_to_bytes(auth_data_b64)[32]
        if self.rp["passkeyUserVerification"] == "required" and not flags & 0x04:
            raise invalid("userVerification")
        return bool(flags & 0x08), bool(flags & 0x10)

    # -- overridden and new methods --------------------------------------------------------------
    def m_rpc_discover(self, params):
        document = self.lk.call("rpc.discover")
        names = {m["name"] for m in document["methods"]}
        document["methods"] += [{"name": n, "params": [], "result": {"name": "result", "schema": {}}}
                                for n in PASSKEY_METHODS if n not in names]
        return document

    def m_admin_configureApplication(self, params):
        mine = {k: params.pop(k) for k in list(params) if k in self.rp}
        result = self.lk.call("admin/configureApplication", params)
        self.rp.update(mine)
        return {**result, **self.rp}

    def m_admin_createUser(self, params):
        result = self.lk.call("admin/createUser", params)
        self.users[result["userId"]] = {"email": params.get("email"), "password": params.get("password"),
                                        "handle": secrets.token_bytes(32)}
        return result

    def m_audit_list(self, params):
        result = self.lk.call("audit/list", params)
        mine = [e for e in self.events if not params.get("userId") or e["userId"] == params["userId"]]
        return {"events": result["events"] + mine}

    def creation_options(self, uid, kind):
        user = self.users[uid]
        challenge = bytes_to_base64url(secrets.token_bytes(32))
        public_key = {
            "rp": {"id": self.rp["passkeyRpId"], "name": self.rp["passkeyRpName"]},
            "user": {"id": bytes_to_base64url(user["handle"]), "name": user["email"] or uid, "displayName": user["email"] or uid},
            "challenge": challenge,
            "pubKeyCredParams": [{"type": "public-key", "alg": a} for a in (-7, -8, -257)],
            "timeout": 300000,
            "excludeCredentials": [{"type": "public-key", "id": p["id"]} for p in self.listed(uid)] if kind == "create" else [],
            "authenticatorSelection": {"residentKey": "required", "requireResidentKey": True,
                                       "userVerification": self.rp["passkeyUserVerification"]},
            "attestation": "none",
        }
        return {"ceremonyId": self.ceremony(kind, challenge, uid), "publicKey": public_key}

    def register(self, ceremony, credential, name):
        self.check_client_data(credential, "webauthn.create", ceremony)
        backup_eligible, backed_up = self.flags(credential["response"]["authenticatorData"])
        try:
            verified = webauthn.verify_registration_response(
                credential=credential, expected_challenge=base64url_to_bytes(ceremony["challenge"]),
                expected_rp_id=self.rp["passkeyRpId"], expected_origin=self.rp["passkeyOrigins"],
                require_user_verification=self.rp["passkeyUserVerification"] == "required")
        except Exception:
            raise invalid("attestation")
        cid = bytes_to_base64url(verified.credential_id)
        if cid in self.passkeys:
            raise Refusal(1001, "alreadyExists", "The credential is registered already")
        from latchkey.authenticator import cbor_decode
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        return {"id": cid, "uid": ceremony["uid"], "friendlyName": name or "Passkey", "createdAt": now,
                "lastUsedAt": None, "algorithm": cbor_decode(verified.credential_public_key)[3],
                "backupEligible": backup_eligible, "backedUp": backed_up,
                "transports": credential["response"].get("transports", []), "aaguid": verified.aaguid,
                "publicKey": verified.credential_public_key, "signCount": verified.sign_count}

    def m_passkey_creationOptions(self, params):
        uid = self.lk.call("user/get", {"sessionId": params["sessionId"]})["uid"]
        return self.creation_options(uid, "create")

    def m_passkey_create(self, params):
        ceremony = self.take(params["ceremonyId"], ["create"])
        record = self.register(ceremony, params["credential"], params.get("friendlyName"))
        self.passkeys[record["id"]] = record
        self.audit(record["uid"], "passkeyCreated")
        return {"passkey": self.public(record)}

    def m_user_passkeys(self, params):
        return {"passkeys": self.listed(self.lk.call("user/get", {"sessionId": params["sessionId"]})["uid"])}

    def m_passkey_remove(self, params):
        uid = self.lk.call("user/get", {"sessionId": params["sessionId"]})["uid"]
        record = self.passkeys.get(params["passkeyId"])
        if record is None or record["uid"] != uid:
            raise Refusal(1000, "notFound", "No such passkey", kind="passkey")
        del self.passkeys[params["passkeyId"]]
        self.audit(uid, "passkeyRemoved")
        return {"passkeys": self.listed(uid)}

    def m_passkey_requestOptions(self, params):
        who = params.get("email")
        uid = self.user_by_email(who) if who else None
        allow = [p["id"] for p in self.listed(uid)] if uid else []
        if who and not allow:  # looks the same every time, tells nothing
            allow = [bytes_to_base64url(hmac.new(self.key, who.lower().encode(), hashlib.sha256).digest())]
        challenge = bytes_to_base64url(secrets.token_bytes(32))
        return {"ceremonyId": self.ceremony("get", challenge, uid if who else None), "publicKey": {
            "rpId": self.rp["passkeyRpId"], "challenge": challenge, "timeout": 300000,
            "userVerification": self.rp["passkeyUserVerification"],
            "allowCredentials": [{"type": "public-key", "id": i} for i in allow]}}

    def m_passkey_login(self, params):
        ceremony = self.take(params["ceremonyId"], ["get"])
        credential = params["credential"]
        self.check_client_data(credential, "webauthn.get", ceremony)
        record = self.passkeys.get(credential["id"])
        if record is None or (ceremony["uid"] and record["uid"] != ceremony["uid"]):
            self.audit(ceremony["uid"], "passkeyRejected", check="credential")
            raise invalid("credential")
        user = self.users[record["uid"]]
        handle = credential["response"].get("userHandle")
        if handle and base64url_to_bytes(handle) != user["handle"]:
            raise invalid("userHandle")
        _, backed_up = self.flags(credential["response"]["authenticatorData"])
        new_count = int.from_bytes(base64url_to_bytes(credential["response"]["authenticatorData"])[33:37], "big")
        try:
            verified = webauthn.verify_authentication_response(
                credential=credential, expected_challenge=base64url_to_bytes(ceremony["challenge"]),
                expected_rp_id=self.rp["passkeyRpId"], expected_origin=self.rp["passkeyOrigins"],
                credential_public_key=record["publicKey"], credential_current_sign_count=0,
                require_user_verification=self.rp["passkeyUserVerification"] == "required")
        except Exception:
            raise invalid("signature")
        if (record["signCount"] or new_count) and new_count <= record["signCount"]:
            self.audit(record["uid"], "passkeyCloneSuspected")
            raise invalid("signCount")
        record.update(signCount=verified.new_sign_count, backedUp=backed_up,
                      lastUsedAt=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        self.audit(record["uid"], "passkeyLogin")
        return self.lk.call("user/login", {"email": user["email"], "password": user["password"]})

    def m_reset_passkeyCreationOptions(self, params):
        uid = self.user_by_email(params.get("email"))
        if uid is None or (params.get("email"), params.get("verificationCode")) in self.used_codes:
            raise Refusal(1900, "verificationCodeInvalid", "The code is wrong", remainingAttempts=4)
        return self.creation_options(uid, "reset")

    def m_reset_resetPasskeys(self, params):
        passkey = params.get("passkey") or {}
        ceremony = self.take(passkey.get("ceremonyId"), ["reset"])
        record = self.register(ceremony, passkey["credential"], passkey.get("friendlyName"))
        self.lk.call("reset/resetPasskeys", {k: params[k] for k in ("email", "verificationCode")})  # checks, consumes
        self.used_codes.add((params["email"], params["verificationCode"]))
        for cid in [c for c, p in self.passkeys.items() if p["uid"] == record["uid"]]:
            del self.passkeys[cid]
        self.passkeys[record["id"]] = record
        self.audit(record["uid"], "passkeysReset")
        return {"passkeys": self.listed(record["uid"])}


def main():
    real = os.environ.get("LATCHKEY_BIN_REAL") or os.environ.get("LATCHKEY_BIN")
    with Latchkey.spawn(real, sys.argv[1:], timeout=60) as lk:
        standin = StandIn(lk)
        for line in sys.stdin:
            if not line.strip():
                continue
            message = json.loads(line)
            reply = {"jsonrpc": "2.0", "id": message.get("id")}
            try:
                reply["result"] = standin.call(message["method"], message.get("params"))
            except LatchkeyError as error:
                reply["error"] = {"code": error.code, "message": error.message,
                                  **({"data": error.data} if error.data is not None else {})}
            except Refusal as refusal:
                reply["error"] = refusal.error
            except (KeyError, TypeError, ValueError) as error:
                reply["error"] = {"code": -32602, "message": f"invalid params ({type(error).__name__})",
                                  "data": {"reason": "invalidParams"}}
            except Exception as error:  # a bug here: say so and keep serving
                print(f"stand-in: {type(error).__name__}: {error}", file=sys.stderr)
                reply["error"] = {"code": -32603, "message": "internal error", "data": {"reason": "internalError"}}
            if "id" in message:
                sys.stdout.write(json.dumps(reply) + "\n")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
