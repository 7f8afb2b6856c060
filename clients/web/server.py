#!/usr/bin/env python3
"""A web back end to copy: password and passkey sign-in in front of Latchkey.

    python3 clients/web/server.py --in-memory --demo-user ann@example.com    # http://localhost:8000/

It spawns `latchkey` once and serves two things on loopback:

- the pages (static/: index.html with app.js; confirm.html and offline.html, where the user
  approves a payment, with confirm.js and offline.js; common.js and operation.js shared; style.css),
- `POST /api/<method>` for the few Latchkey methods a browser may call (ROUTES below), each a
  JSON object in, a JSON object out. Nothing else is forwarded: never admin/*, device/*,
  delivery/*, audit/*, clock/*, events/*.
- `POST /api/operation/<route>` (OPERATION_ROUTES below): the back end's own routes for the
  payment pages. Each checks that the operation is the signed-in user's, then makes the one call
  behind it (an admin one for show, reject, QR and offline code: those stay here, the browser
  only names its operation).

The session is Latchkey's own `sessionId`, kept in an HttpOnly, SameSite=Strict cookie (Secure
when the origin is https) and never shown to the page's JavaScript. Every POST must carry
`Content-Type: application/json` and an `Origin` equal to this site's origin, and a `Host` equal
to its host (DNS rebinding), so a cross-site form or script cannot use the user's cookie. No
secret is ever put in a URL or a log line (the request log has no query strings).

At start it configures the application's Relying Party for where it is served
(`admin/configureApplication`: passkeyRpId = the origin's host, passkeyOrigins = [the origin],
and the origin as a redirect prefix for account-recovery links). Only the Python client of
clients/python is needed (standard library).

Flags: --latchkey PATH (else $LATCHKEY_BIN, else `latchkey` on PATH), --in-memory or --db PATH,
--port N (0: any free port), --origin URL (when a TLS proxy serves it elsewhere, e.g.
https://app.example.com), --user-verification required|preferred, --demo-user EMAIL (creates the
user with a random password printed on stderr: a demo only), --deliver-command CMD (Latchkey's:
how email/SMS go out), --mailbox-dir DIR (test/demo only: each delivered message is written to
DIR as a JSON file, standing for the user's inbox; it adds nothing to the HTTP surface),
--demo-payment (a demo only: configures the template DEMO_TEMPLATE at start and adds the route
`operation/demoPayment`, which makes a payment of DEMO_PAYMENT for the signed-in user to approve).
The offline page's QR code needs segno (`pip install segno`); without it that one route answers
`unavailable`. The first line on stdout is `serving <origin>/ on <address>:<port>` once it listens.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import http.cookies
import http.server
import json
import os
import secrets
import shlex
import signal
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "python"))
from latchkey import Latchkey, LatchkeyError  # noqa: E402

try:
    import segno  # the offline page's QR code (PyPI: segno)
except ImportError:  # the rest of the example needs only the standard library
    segno = None

STATIC = {"/": ("index.html", "text/html; charset=utf-8"),
          "/confirm": ("confirm.html", "text/html; charset=utf-8"),
          "/offline": ("offline.html", "text/html; charset=utf-8"),
          **{f"/{name}": (name, "text/javascript; charset=utf-8")
             for name in ("app.js", "common.js", "operation.js", "confirm.js", "offline.js")},
          "/style.css": ("style.css", "text/css; charset=utf-8")}
MAX_BODY = 64 * 1024
CEREMONY_SECONDS = 300

# What the page may call: method → (the body members it may send, what the session does).
#   "need": the cookie's session is added as `sessionId`; "start": the result's sessionId goes
#   into the cookie (and not to the page); "end": as "need", then the cookie is cleared;
#   None: no session.
ROUTES = {
    "user/login": ({"email", "password"}, "start"),
    "user/logout": (set(), "end"),
    "user/get": (set(), "need"),
    "user/passkeys": (set(), "need"),
    "passkey/creationOptions": (set(), "need"),
    "passkey/create": ({"ceremonyId", "credential", "friendlyName"}, "need"),
    "passkey/remove": ({"passkeyId"}, "need"),
    "passkey/requestOptions": ({"email"}, None),
    "passkey/login": ({"ceremonyId", "credential"}, "start"),
    "reset/requestAccountRecovery": ({"email"}, None),
    "reset/passkeyCreationOptions": ({"email", "verificationCode"}, None),
    "reset/resetPasskeys": ({"email", "verificationCode", "ceremonyId", "credential", "friendlyName"}, None),
}
STATUS = {"invalidParams": 400, "userSessionInvalid": 401, "invalidCredentials": 401, "rateLimited": 429,
          "notFound": 404, "methodNotFound": 501, "authMethodNotAllowed": 403, "operationNotPending": 409,
          "operationDataMismatch": 409, "unavailable": 503}
COOKIE = "session"

# The payment pages' routes: route → the body members the page may send. Every one needs the
# session, and every one but demoPayment names an operation the back end checks is the signed-in
# user's (another user's answers as an unknown one: notFound) before the call behind it:
#   show             admin/getOperation → what the page shows (OPERATION_SHOWN)
#   passkeyOptions   operation/passkeyOptions with the cookie's session (the ceremony is kept
#                    for this session and operation, as passkey/creationOptions' are)
#   passkeyApprove   operation/passkeyApprove; the page also sends `shownHash`, the operation
#                    hash of what it displayed (title, message, data), and the back end refuses
#                    (operationDataMismatch, nothing forwarded) one that is not the operation's
#   reject           admin/cancelOperation: the contract has no rejection by browser (a phone
#                    rejects with a signed reason); the back end that made the operation cancels
#                    it, and it ends `canceled`
#   qr               admin/operationQrCode → the payload as a PNG data URL, for the user's phone
#   verifyOffline    admin/verifyOfflineOperation with the code the user typed
#   demoPayment      (--demo-payment only) admin/createOperation of DEMO_TEMPLATE for the user
OPERATION_ROUTES = {
    "operation/show": {"operationId"},
    "operation/passkeyOptions": {"operationId"},
    "operation/passkeyApprove": {"ceremonyId", "credential", "shownHash"},
    "operation/reject": {"operationId"},
    "operation/qr": {"operationId"},
    "operation/verifyOffline": {"operationId", "code"},
    "operation/demoPayment": set(),
}
# What the page gets of an operation: never its attributes (they are not signed: the page shows
# the data, which is) nor the user's or registration's ids.
OPERATION_SHOWN = ("operationId", "template", "title", "message", "data", "status", "createdAt", "expiresAt",
                   "decidedAt", "approvedWith", "rejectReason", "failureCount", "maxFailureCount")
# --demo-payment: a payment (operation data of template number 1) with an amount, the payee's IBAN, a due date
# and a reference; approvable by passkey and offline as well as on a phone.
DEMO_TEMPLATE = {
    "name": "web-demo-payment", "title": "Confirm payment",
    "message": "Check the amount and the payee before you approve.",
    "data": "A1*A${amount}${currency}*I${iban}*D${dueDate}*R${reference}",
    "attributes": [{"type": "amount", "label": "Amount", "amount": "${amount}", "currency": "${currency}"},
                   {"type": "keyValue", "label": "To account", "value": "${iban}"},
                   {"type": "keyValue", "label": "Due date", "value": "${dueDate}"},
                   {"type": "keyValue", "label": "Reference", "value": "${reference}"}],
    "allowedMethods": ["pin", "touchId", "faceId", "passkey", "offline"], "ttlSeconds": 900}
DEMO_PAYMENT = {"amount": "1500.00", "currency": "EUR", "iban": "CZ2730300000001165254011",
                "dueDate": "20260131", "reference": "INV-2026-0042"}


def operation_hash(operation) -> str:
    """The contract's operation hash: unpadded base64url SHA-256 of operationId, title, message
    and data, each a 4-byte big-endian byte length and its UTF-8 bytes (operation.js has the same)."""
    digest = hashlib.sha256()
    for name in ("operationId", "title", "message", "data"):
        raw = str(operation[name]).encode()
        digest.update(len(raw).to_bytes(4, "big") + raw)
    return base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()


def refusal(status, reason, message):
    return status, {"error": {"reason": reason, "message": message}}, None


def failure(error: LatchkeyError):
    """(status, JSON error, cookie action) for a Latchkey error."""
    if error.code is None:  # the process died or timed out: say nothing more
        return 502, {"error": {"reason": "unavailable", "message": "Try again later"}}, None
    answer = {"reason": error.reason, "message": error.message}
    data = {k: v for k, v in error.data.items() if k != "reason"} if isinstance(error.data, dict) else {}
    if data:
        answer["data"] = data
    return STATUS.get(error.reason, 400), {"error": answer}, ("end" if error.reason == "userSessionInvalid" else None)


class App:
    """The Latchkey process and what the routes need besides it."""

    def __init__(self, lk: Latchkey, origin: str, demo_payment: bool = False):
        self.lk = lk
        self.origin = origin
        self.demo_payment = demo_payment
        self.host = urlsplit(origin).netloc
        self.secure = origin.startswith("https://")
        # creation ceremony → (the session that asked, expiry): passkey/create takes only the
        # ceremony, so the back end checks that the same signed-in browser finishes it.
        self.creations: dict = {}
        # operation approval ceremony → (session, operationId, expiry): likewise.
        self.approvals: dict = {}
        self.lock = threading.Lock()

    def forward(self, method, body, session):
        """(status, JSON result, cookie action) for one route."""
        allowed, mode = ROUTES[method]
        extra = set(body) - allowed
        if extra:
            return 400, {"error": {"reason": "invalidParams", "message": "unexpected members: " + ", ".join(sorted(extra))}}, None
        params = dict(body)
        if mode == "end" and not session:
            return 200, {}, "end"
        if mode in ("need", "end"):
            if not session:
                return 401, {"error": {"reason": "userSessionInvalid", "message": "Not signed in"}}, None
            if method != "passkey/create":  # it takes the ceremony, checked below
                params["sessionId"] = session
        if method == "passkey/create":
            with self.lock:  # used once, and only by its owner (another session's try burns nothing)
                ceremony = body.get("ceremonyId")
                owner, expires = self.creations.get(ceremony if isinstance(ceremony, str) else None, (None, 0))
                mine = owner == session and expires > time.monotonic()
                if mine:
                    del self.creations[ceremony]
            if not mine:
                return 400, {"error": {"reason": "noSessionInProgress", "message": "No passkey creation in progress"}}, None
        if method == "reset/requestAccountRecovery":
            params["redirectUrl"] = self.origin + "/"  # the link in the message opens this page
        if method == "reset/resetPasskeys":
            params = {"email": body.get("email"), "verificationCode": body.get("verificationCode"),
                      "passkey": {k: body[k] for k in ("ceremonyId", "credential", "friendlyName") if k in body}}
        try:
            result = self.lk.call(method, params)
        except LatchkeyError as error:
            return failure(error)
        if method == "passkey/creationOptions":
            with self.lock:
                now = time.monotonic()
                self.creations = {k: v for k, v in self.creations.items() if v[1] > now}
                self.creations[result["ceremonyId"]] = (session, now + CEREMONY_SECONDS)
        if method == "user/get":
            result = {"uid": result.get("uid"), "email": result.get("email")}
        if mode == "start":
            if session:  # a sign-in over an older session ends that one
                try:
                    self.lk.call("user/logout", {"sessionId": session})
                except LatchkeyError:
                    pass
            return 200, {"uid": result["uid"]}, ("start", result["sessionId"])
        return 200, result, ("end" if mode == "end" else None)

    def operation(self, route, body, session):
        """(status, JSON result, cookie action) for one of OPERATION_ROUTES."""
        extra = set(body) - OPERATION_ROUTES[route]
        if extra:
            return refusal(400, "invalidParams", "unexpected members: " + ", ".join(sorted(extra)))
        if route == "operation/demoPayment" and not self.demo_payment:
            return refusal(404, "forbidden", "Not found")
        if not session:
            return refusal(401, "userSessionInvalid", "Not signed in")
        try:
            user = self.lk.call("user/get", {"sessionId": session})["uid"]
            if route == "operation/demoPayment":
                made = self.lk.call("admin/createOperation", {
                    "userId": user, "template": DEMO_TEMPLATE["name"], "parameters": DEMO_PAYMENT})
                return 200, shown(made), None
            if route == "operation/passkeyApprove":
                return self.passkey_approve(body, session, user)
            operation = self.owned(body.get("operationId"), user)
            if operation is None:
                return refusal(404, "notFound", "No such operation")
            operation_id = operation["operationId"]
            if route == "operation/show":
                return 200, shown(operation), None
            if route == "operation/passkeyOptions":
                result = self.lk.call("operation/passkeyOptions", {"sessionId": session, "operationId": operation_id})
                with self.lock:
                    now = time.monotonic()
                    self.approvals = {k: v for k, v in self.approvals.items() if v[2] > now}
                    self.approvals[result["ceremonyId"]] = (session, operation_id, now + CEREMONY_SECONDS)
                return 200, result, None
            if route == "operation/reject":
                return 200, shown(self.lk.call("admin/cancelOperation", {"operationId": operation_id})), None
            if route == "operation/qr":
                if segno is None:
                    return refusal(503, "unavailable", "This back end has no QR code library (pip install segno)")
                payload = self.lk.call("admin/operationQrCode", {"operationId": operation_id})["qrPayload"]
                # Error correction M; five pixels a module and the standard quiet zone of four.
                image = segno.make_qr(payload, error="m").png_data_uri(scale=5, border=4)
                return 200, {"image": image, "operation": shown(operation)}, None
            code = body.get("code")
            return 200, shown(self.lk.call("admin/verifyOfflineOperation", {"operationId": operation_id, "code": code})), None
        except LatchkeyError as error:
            return failure(error)

    def owned(self, operation_id, user):
        """The operation, when it is the user's (of this site's application); else None."""
        if not isinstance(operation_id, str) or not operation_id:
            return None
        try:
            operation = self.lk.call("admin/getOperation", {"operationId": operation_id})
        except LatchkeyError as error:
            if error.reason in ("notFound", "invalidParams"):
                return None
            raise
        return operation if operation["userId"] == user and operation["applicationId"] == "default" else None

    def passkey_approve(self, body, session, user):
        ceremony = body.get("ceremonyId")
        with self.lock:  # used once, and only by the session that asked for it
            owner, operation_id, expires = self.approvals.get(ceremony if isinstance(ceremony, str) else None,
                                                              (None, None, 0))
            mine = owner == session and expires > time.monotonic()
            if mine:
                del self.approvals[ceremony]
        if not mine:
            return refusal(400, "noSessionInProgress", "No approval in progress")
        operation = self.owned(operation_id, user)
        if operation is None:
            return refusal(404, "notFound", "No such operation")
        # What the page displayed must be the operation: the page hashes the title, message and
        # data it rendered (a phone signs that hash; a passkey's challenge binds the operation's
        # own, so this is the back end's check of the display, made before anything is approved).
        if body.get("shownHash") != operation_hash(operation):
            return refusal(409, "operationDataMismatch",
                           "What this page showed is not the payment on record: nothing was approved")
        approved = self.lk.call("operation/passkeyApprove", {"ceremonyId": ceremony, "credential": body.get("credential")})
        return 200, shown(approved), None


def shown(operation):
    return {k: operation.get(k) for k in OPERATION_SHOWN}


class Handler(http.server.BaseHTTPRequestHandler):
    server_version = "latchkey-web"
    sys_version = ""
    timeout = 15  # seconds a slow client may hold a connection
    app: App = None  # set in main()

    def log_message(self, fmt, *args):  # the path only: never a query string, never a body
        sys.stderr.write(f"web: {self.command} {self.path.split('?')[0]} {args[1] if len(args) > 1 else ''}\n")

    def send(self, status, body: bytes, content_type, cookie=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; "
                         "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
        if cookie is not None:
            self.send_header("Set-Cookie", cookie)
        self.end_headers()
        self.wfile.write(body)

    def send_json(self, status, value, cookie=None):
        self.send(status, json.dumps(value).encode(), "application/json", cookie)

    def refuse(self, status, message):
        self.send_json(status, {"error": {"reason": "forbidden", "message": message}})

    def do_GET(self):
        if self.headers.get("Host") != self.app.host:
            return self.refuse(421, "Wrong host")
        page = STATIC.get(self.path.split("?")[0])
        if page is None:
            return self.refuse(404, "Not found")
        self.send(200, (HERE / "static" / page[0]).read_bytes(), page[1])

    def do_POST(self):
        # CSRF and DNS rebinding: same host, same origin, a JSON body (a cross-site form cannot
        # send that content type without a CORS preflight, which is never answered).
        if self.headers.get("Host") != self.app.host:
            return self.refuse(421, "Wrong host")
        if self.headers.get("Origin") != self.app.origin:
            return self.refuse(403, "Cross-origin request refused")
        if self.headers.get("Content-Type", "").split(";")[0].strip().lower() != "application/json":
            return self.refuse(415, "JSON only")
        method = self.path[len("/api/"):] if self.path.startswith("/api/") else None
        if method not in ROUTES and method not in OPERATION_ROUTES:
            return self.refuse(404, "Not found")
        length = self.headers.get("Content-Length", "0")
        if not length.isdigit() or int(length) > MAX_BODY:
            return self.refuse(413, "A body of at most 64 KiB, with its length")
        length = int(length)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            body = None
        if not isinstance(body, dict):
            return self.refuse(400, "A JSON object, please")
        cookies = http.cookies.SimpleCookie(self.headers.get("Cookie", ""))
        session = cookies[COOKIE].value if COOKIE in cookies else None
        if method in OPERATION_ROUTES:
            status, result, action = self.app.operation(method, body, session)
        else:
            status, result, action = self.app.forward(method, body, session)
        self.send_json(status, result, self.cookie(action))

    def cookie(self, action):
        if action is None:
            return None
        attributes = "; Path=/; HttpOnly; SameSite=Strict" + ("; Secure" if self.app.secure else "")
        if action == "end":
            return f"{COOKIE}=; Max-Age=0{attributes}"
        return f"{COOKIE}={action[1]}{attributes}"  # a session cookie: gone when the browser closes


def configure(lk: Latchkey, origin: str, user_verification: str) -> bool:
    """Points the default application's Relying Party at this site; False if this latchkey has
    no passkeys yet (it then ignores the passkey members)."""
    current = lk.call("admin/configureApplication", {"applicationId": "default"})
    prefixes = list(current.get("redirectUrlPrefixes", []))
    if origin + "/" not in prefixes:
        prefixes.append(origin + "/")
    config = lk.call("admin/configureApplication", {
        "applicationId": "default", "redirectUrlPrefixes": prefixes,
        "passkeyRpId": urlsplit(origin).hostname, "passkeyRpName": "Latchkey web example",
        "passkeyOrigins": [origin], "passkeyUserVerification": user_verification})
    return config.get("passkeyRpId") == urlsplit(origin).hostname


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latchkey", default=os.environ.get("LATCHKEY_BIN"))
    store = parser.add_mutually_exclusive_group()
    store.add_argument("--in-memory", action="store_true", help="a throwaway store")
    store.add_argument("--db", help="Latchkey's store (default: its own default)")
    parser.add_argument("--bind", default="127.0.0.1", help="address to listen on (loopback)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--origin", help="the public origin (default http://localhost:PORT)")
    parser.add_argument("--user-verification", choices=["required", "preferred"], default="required")
    parser.add_argument("--demo-user", metavar="EMAIL")
    parser.add_argument("--deliver-command", metavar="CMD")
    parser.add_argument("--mailbox-dir", metavar="DIR", help="test/demo only: delivered messages as files")
    parser.add_argument("--demo-payment", action="store_true", help="demo only: a route that makes a payment to approve")
    args = parser.parse_args(argv)

    latchkey_args = ["--in-memory"] if args.in_memory else (["--db", args.db] if args.db else [])
    if args.mailbox_dir:
        os.makedirs(args.mailbox_dir, mode=0o700, exist_ok=True)
        box = shlex.quote(os.path.abspath(args.mailbox_dir))
        # One file per message, written then renamed, so a reader never sees half of one.
        args.deliver_command = (f't={box}/.tmp-$$; cat > "$t" && mv "$t" {box}/msg-$(date +%s%N)-$$.json')
    if args.deliver_command:
        latchkey_args += ["--deliver-command", args.deliver_command]

    httpd = http.server.ThreadingHTTPServer((args.bind, args.port), Handler)
    httpd.daemon_threads = True
    origin = args.origin or f"http://localhost:{httpd.server_address[1]}"
    try:
        lk = Latchkey.spawn(args.latchkey, latchkey_args, timeout=30,
                            on_stderr=lambda line: sys.stderr.write(f"latchkey: {line.rstrip()}\n"))
    except BaseException:
        httpd.server_close()
        raise
    try:
        if not configure(lk, origin, args.user_verification):
            print("web: this latchkey has no passkeys yet: password sign-in only", file=sys.stderr)
        if args.demo_user:
            password = secrets.token_urlsafe(12)
            lk.call("admin/createUser", {"email": args.demo_user, "password": password})
            print(f"web: demo user {args.demo_user} password {password} (a demo only)", file=sys.stderr)
        if args.demo_payment:
            lk.call("admin/configureOperationTemplate", DEMO_TEMPLATE)
        Handler.app = App(lk, origin, args.demo_payment)
        signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=httpd.shutdown).start())
        print(f"serving {origin}/ on {args.bind}:{httpd.server_address[1]}", flush=True)
        try:
            httpd.serve_forever()
        except KeyboardInterrupt:
            pass
    finally:
        httpd.server_close()
        lk.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
