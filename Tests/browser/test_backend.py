"""The web back end's rules (clients/web/server.py), with no Swift build and no browser: a
small stand-in latchkey records what reaches it, so each test can say what was forwarded and
what never was. The real binary and Chromium take over in test_browser.py."""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parents[2] / "clients" / "web" / "server.py"

FAKE = textwrap.dedent('''
    import json, os, sys
    log = open(os.environ["FAKE_LOG"], "a")
    count = 0
    def operation(operation_id, user):
        return {"operationId": operation_id, "userId": user, "applicationId": "default", "registrationId": None,
                "template": "t", "data": "A1*A1.00EUR", "title": "Pay", "message": "Now", "attributes": [],
                "status": "pending", "failureCount": 0, "maxFailureCount": 5, "createdAt": "c", "expiresAt": "e",
                "decidedAt": None, "approvedWith": None, "rejectReason": None, "externalId": None}
    OPERATIONS = {"op-ann": operation("op-ann", "usr_1"), "op-bob": operation("op-bob", "usr_2")}
    OPERATION_METHODS = ("admin/getOperation", "admin/cancelOperation", "admin/operationQrCode",
                         "admin/verifyOfflineOperation", "operation/passkeyOptions")
    def answer(method, p):
        global count
        count += 1
        if method == "admin/configureApplication":
            return {"applicationId": "default", "redirectUrlPrefixes": p.get("redirectUrlPrefixes", ["app://"]),
                    **{k: v for k, v in p.items() if k.startswith("passkey")}}
        if method == "admin/createUser":
            return {"userId": "usr_1"}
        if method in ("user/login", "passkey/login"):
            if method == "user/login" and p.get("password") != "right-password":
                raise LookupError(1702, "invalidCredentials")
            return {"sessionId": f"S{count}-secret-session", "uid": "usr_1"}
        if "sessionId" in p and not str(p["sessionId"]).startswith("S"):
            raise LookupError(1701, "userSessionInvalid")
        if method in OPERATION_METHODS:
            if p.get("operationId") not in OPERATIONS:
                raise LookupError(1104, "notFound")
            operation = dict(OPERATIONS[p["operationId"]])
            if method == "admin/operationQrCode":
                return {"qrPayload": "LATCHKEY-QR-V1\\n" + p["operationId"] + "\\nT\\nM\\nA1\\n\\nnonce\\nsig"}
            if method == "operation/passkeyOptions":
                return {"ceremonyId": f"O{count}", "publicKey": {"challenge": "c"}}
            operation["status"] = {"admin/cancelOperation": "canceled"}.get(method, operation["status"])
            return operation
        if method == "operation/passkeyApprove":
            return {**OPERATIONS["op-ann"], "status": "approved", "approvedWith": "passkey"}
        if method == "admin/createOperation":
            return {**OPERATIONS["op-ann"], "operationId": "op-new", "userId": p["userId"]}
        if method == "admin/configureOperationTemplate":
            return p
        table = {"user/get": {"uid": "usr_1", "email": "ann@example.com", "phoneNumber": None, "accountRecovery": None},
                 "user/logout": {}, "user/passkeys": {"passkeys": []},
                 "passkey/creationOptions": {"ceremonyId": f"C{count}", "publicKey": {}},
                 "passkey/create": {"passkey": {"id": "p1"}}, "passkey/requestOptions": {"ceremonyId": "R", "publicKey": {}},
                 "reset/requestAccountRecovery": {}, "reset/resetPasskeys": {"passkeys": []}}
        if method not in table:
            raise LookupError(-32601, "methodNotFound")
        return table[method]
    for line in sys.stdin:
        m = json.loads(line)
        log.write(json.dumps([m["method"], m.get("params")]) + "\\n"); log.flush()
        try:
            reply = {"jsonrpc": "2.0", "id": m["id"], "result": answer(m["method"], m.get("params") or {})}
        except LookupError as e:
            reply = {"jsonrpc": "2.0", "id": m["id"], "error": {"code": e.args[0], "message": e.args[1], "data": {"reason": e.args[1]}}}
        print(json.dumps(reply), flush=True)
''')


class Site:
    def __init__(self, tmp: Path, *extra):
        self.log = tmp / "calls.jsonl"
        fake = tmp / "latchkey"
        fake.write_text(f"#!{sys.executable}\n{FAKE}")
        fake.chmod(0o755)
        self.process = subprocess.Popen(
            [sys.executable, str(SERVER), "--latchkey", str(fake), "--port", "0", *extra],
            env={**os.environ, "FAKE_LOG": str(self.log)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        assert line.startswith("serving "), self.process.stderr.read()
        self.origin = line.split()[1].rstrip("/")
        self.port = int(line.split()[-1].rsplit(":", 1)[1])

    def request(self, method, path, body=None, headers=None, port=None):
        connection = http.client.HTTPConnection("127.0.0.1", port or self.port, timeout=10)
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        connection.request(method, path, body=data, headers=headers or {})
        response = connection.getresponse()
        payload = response.read()
        connection.close()
        return response.status, response.getheader("Set-Cookie"), (json.loads(payload) if payload.startswith(b"{") else payload)

    def post(self, method, body=None, cookie=None, **headers):
        base = {"Host": self.origin.split("//")[1], "Origin": self.origin, "Content-Type": "application/json"}
        base.update({k.replace("_", "-"): v for k, v in headers.items()})
        if cookie:
            base["Cookie"] = cookie
        return self.request("POST", f"/api/{method}", {} if body is None else body,
                            {k: v for k, v in base.items() if v is not None})

    def calls(self):
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def stop(self):
        self.process.terminate()
        try:
            _, stderr = self.process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, stderr = self.process.communicate()
        return stderr


@pytest.fixture
def site(tmp_path):
    running = Site(tmp_path, "--in-memory", "--demo-user", "ann@example.com")
    yield running
    running.stop()


def sign_in(site):
    status, cookie, body = site.post("user/login", {"email": "ann@example.com", "password": "right-password"})
    assert status == 200 and body == {"uid": "usr_1"}  # the session id never reaches the page
    return cookie.split(";")[0]


def test_start_configures_the_relying_party_for_its_origin(site):
    configure = [params for method, params in site.calls() if method == "admin/configureApplication"][-1]
    assert configure["passkeyRpId"] == "localhost"
    assert configure["passkeyOrigins"] == [site.origin]
    assert configure["redirectUrlPrefixes"] == ["app://", site.origin + "/"]
    assert configure["passkeyUserVerification"] == "required"


def test_session_cookie(site):
    status, cookie, _ = site.post("user/login", {"email": "ann@example.com", "password": "right-password"})
    assert status == 200
    assert "; HttpOnly" in cookie and "; SameSite=Strict" in cookie and "; Path=/" in cookie
    assert "Secure" not in cookie  # plain http on localhost
    session = cookie.split(";")[0]
    assert site.post("user/get", cookie=session)[2] == {"uid": "usr_1", "email": "ann@example.com"}
    # The cookie's session is what Latchkey gets; the page can never name another one.
    assert site.calls()[-1] == ["user/get", {"sessionId": session.split("=", 1)[1]}]
    status, _, body = site.post("user/passkeys", {"sessionId": "S-someone-else"}, cookie=session)
    assert status == 400 and "sessionId" in body["error"]["message"]
    # Signing in again over it ends the older session.
    status, newer, _ = site.post("user/login", {"email": "ann@example.com", "password": "right-password"}, cookie=session)
    assert status == 200 and site.calls()[-1] == ["user/logout", {"sessionId": session.split("=", 1)[1]}]
    session = newer.split(";")[0]
    status, cookie, _ = site.post("user/logout", cookie=session)
    assert status == 200 and cookie.startswith("session=; Max-Age=0")
    assert site.post("user/login", {"email": "ann@example.com", "password": "wrong"})[0] == 401


def test_cross_site_requests_are_refused_before_anything_is_forwarded(site):
    before = len(site.calls())
    assert site.post("user/get", Origin=None)[0] == 403
    assert site.post("user/get", Origin="http://evil.example")[0] == 403
    assert site.post("user/get", Origin=site.origin.replace("localhost", "127.0.0.1"))[0] == 403
    assert site.post("user/get", Content_Type="text/plain")[0] == 415
    assert site.post("user/get", Content_Type="application/x-www-form-urlencoded")[0] == 415
    assert site.post("user/get", Host="evil.example")[0] == 421  # DNS rebinding
    assert site.request("GET", "/api/user/get", headers={"Host": site.origin.split("//")[1]})[0] == 404
    assert site.request("PUT", "/api/user/get")[0] == 501
    assert site.post("user/get", b"[1]")[0] == 400
    assert site.post("user/get", b"{", Content_Length="1")[0] == 400
    assert site.post("user/get", b"{}", Content_Length="-1")[0] == 413
    assert site.post("user/get", b"x" * 70000)[0] == 413
    for method in ("admin/createUser", "delivery/list", "delivery/open", "audit/list", "device/create",
                   "clock/advance", "events/subscribe", "server/activation/prepare", "user/loginX", "../static"):
        assert site.post(method)[0] == 404, method
    assert len(site.calls()) == before  # nothing reached Latchkey


def test_a_passkey_creation_is_finished_by_the_session_that_began_it(site):
    alice, bob = sign_in(site), sign_in(site)
    status, _, options = site.post("passkey/creationOptions", cookie=alice)
    assert status == 200
    ceremony = options["ceremonyId"]
    assert site.post("passkey/create", {"ceremonyId": ceremony, "credential": {}})[0] == 401
    assert site.post("passkey/create", {"ceremonyId": [ceremony], "credential": {}}, cookie=alice)[0] == 400
    status, _, body = site.post("passkey/create", {"ceremonyId": ceremony, "credential": {}}, cookie=bob)
    assert status == 400 and body["error"]["reason"] == "noSessionInProgress"
    assert [c for c in site.calls() if c[0] == "passkey/create"] == []
    status, _, body = site.post("passkey/create", {"ceremonyId": ceremony, "credential": {}, "friendlyName": "K"},
                                cookie=alice)
    assert status == 200 and body == {"passkey": {"id": "p1"}}
    assert site.calls()[-1] == ["passkey/create", {"ceremonyId": ceremony, "credential": {}, "friendlyName": "K"}]
    # Once only: the back end forgets the ceremony (Latchkey uses it up too).
    assert site.post("passkey/create", {"ceremonyId": ceremony, "credential": {}}, cookie=alice)[0] == 400


def test_what_the_back_end_adds_and_reshapes(site):
    assert site.post("reset/requestAccountRecovery", {"email": "ann@example.com"})[0] == 200
    assert site.calls()[-1] == ["reset/requestAccountRecovery",
                                {"email": "ann@example.com", "redirectUrl": site.origin + "/"}]
    assert site.post("reset/requestAccountRecovery", {"email": "a@b.c", "redirectUrl": "https://evil/"})[0] == 400
    assert site.post("reset/resetPasskeys", {"email": "ann@example.com", "verificationCode": "123456",
                                             "ceremonyId": "C", "credential": {"id": "x"}})[0] == 200
    assert site.calls()[-1] == ["reset/resetPasskeys", {"email": "ann@example.com", "verificationCode": "123456",
                                                        "passkey": {"ceremonyId": "C", "credential": {"id": "x"}}}]
    status, cookie, body = site.post("passkey/login", {"ceremonyId": "R", "credential": {}})
    assert status == 200 and body == {"uid": "usr_1"} and "HttpOnly" in cookie


def test_no_secret_in_the_log(tmp_path):
    running = Site(tmp_path, "--in-memory", "--demo-user", "ann@example.com")
    _, cookie, _ = running.post("user/login", {"email": "ann@example.com", "password": "right-password"})
    session = cookie.split(";")[0].split("=", 1)[1]
    running.post("user/login", {"email": "ann@example.com", "password": "wrong-secret"})
    running.request("GET", "/?verification_code=424242&email=ann%40example.com",
                    headers={"Host": running.origin.split("//")[1]})
    log = running.stop()
    assert "right-password" not in log and "wrong-secret" not in log and "424242" not in log
    assert session.endswith("-secret-session") and session not in log
    assert "web: GET / 200" in log and "web: POST /api/user/login 401" in log


def test_secure_cookie_behind_https(tmp_path):
    running = Site(tmp_path, "--in-memory", "--origin", "https://app.localhost")
    try:
        assert running.origin == "https://app.localhost"
        status, cookie, _ = running.post("user/login", {"email": "ann@example.com", "password": "right-password"})
        assert status == 200 and "; Secure" in cookie and "; HttpOnly" in cookie
        configure = [p for m, p in running.calls() if m == "admin/configureApplication"][-1]
        assert configure["passkeyRpId"] == "app.localhost" and configure["passkeyOrigins"] == ["https://app.localhost"]
    finally:
        running.stop()


# -- the payment pages' routes -------------------------------------------------------------------

def operation_hash(operation_id, title, message, data):
    digest = hashlib.sha256()
    for part in (operation_id, title, message, data):
        digest.update(len(part.encode()).to_bytes(4, "big") + part.encode())
    return base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()


ROUTES = ("operation/show", "operation/passkeyOptions", "operation/reject", "operation/qr", "operation/verifyOffline")


def test_operation_routes_serve_only_the_users_own_operations(site):
    ann = sign_in(site)
    before = len(site.calls())
    for route in ROUTES:
        assert site.post(route, {"operationId": "op-ann"})[0] == 401, route  # not signed in
        assert site.post(route, {"operationId": "op-ann"}, cookie=ann, Origin="http://evil.example")[0] == 403
        assert site.post(route, {"operationId": "op-ann"}, cookie=ann, Content_Type="text/plain")[0] == 415
        for member in ("sessionId", "userId", "registrationId"):
            assert site.post(route, {"operationId": "op-ann", member: "x"}, cookie=ann)[0] == 400, (route, member)
    assert len(site.calls()) == before  # nothing reached Latchkey
    for route in ROUTES:
        for other in ("op-bob", "op-unknown", ["op-ann"], None):
            status, _, body = site.post(route, {"operationId": other, **({"code": "1" * 8 + "-" + "1" * 8}
                                                                          if route == "operation/verifyOffline" else {})},
                                        cookie=ann)
            assert (status, body["error"]["reason"]) == (404, "notFound"), (route, other)
    # Another user's operation is read, and nothing is done with it.
    assert {method for method, _ in site.calls()[before:]} == {"user/get", "admin/getOperation"}
    status, _, shown = site.post("operation/show", {"operationId": "op-ann"}, cookie=ann)
    assert status == 200 and shown["data"] == "A1*A1.00EUR" and shown["status"] == "pending"
    assert not {"userId", "attributes", "registrationId", "externalId", "applicationId"} & set(shown)
    assert site.post("operation/demoPayment", cookie=ann)[0] == 404  # only with --demo-payment


def test_what_the_operation_routes_call(site):
    ann = sign_in(site)
    status, _, body = site.post("operation/reject", {"operationId": "op-ann"}, cookie=ann)
    assert status == 200 and body["status"] == "canceled"
    assert site.calls()[-1] == ["admin/cancelOperation", {"operationId": "op-ann"}]
    code = "12345678-87654321"
    assert site.post("operation/verifyOffline", {"operationId": "op-ann", "code": code}, cookie=ann)[0] == 200
    assert site.calls()[-1] == ["admin/verifyOfflineOperation", {"operationId": "op-ann", "code": code}]
    status, _, body = site.post("operation/qr", {"operationId": "op-ann"}, cookie=ann)
    assert site.calls()[-1] == ["admin/operationQrCode", {"operationId": "op-ann"}]
    if status == 503:  # this Python has no segno
        assert body["error"]["reason"] == "unavailable"
    else:
        assert status == 200 and body["image"].startswith("data:image/png;base64,")
        assert base64.b64decode(body["image"].split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_passkey_approval_is_finished_by_its_session_for_what_its_page_showed(site):
    ann, other = sign_in(site), sign_in(site)
    status, _, options = site.post("operation/passkeyOptions", {"operationId": "op-ann"}, cookie=ann)
    assert status == 200
    session = ann.split("=", 1)[1]
    assert site.calls()[-1] == ["operation/passkeyOptions", {"sessionId": session, "operationId": "op-ann"}]
    ceremony = options["ceremonyId"]
    right = operation_hash("op-ann", "Pay", "Now", "A1*A1.00EUR")
    wrong = operation_hash("op-ann", "Pay", "Now", "A1*A100.00EUR")
    approve = {"ceremonyId": ceremony, "credential": {"id": "k"}, "shownHash": right}
    status, _, body = site.post("operation/passkeyApprove", approve, cookie=other)
    assert (status, body["error"]["reason"]) == (400, "noSessionInProgress")
    status, _, body = site.post("operation/passkeyApprove", {**approve, "shownHash": wrong}, cookie=ann)
    assert (status, body["error"]["reason"]) == (409, "operationDataMismatch")
    assert [c for c in site.calls() if c[0] == "operation/passkeyApprove"] == []
    # The refusal used the ceremony up here: the page asks again.
    assert site.post("operation/passkeyApprove", approve, cookie=ann)[0] == 400
    ceremony = site.post("operation/passkeyOptions", {"operationId": "op-ann"}, cookie=ann)[2]["ceremonyId"]
    status, _, body = site.post("operation/passkeyApprove", {**approve, "ceremonyId": ceremony}, cookie=ann)
    assert status == 200 and body["approvedWith"] == "passkey" and "userId" not in body
    assert site.calls()[-1] == ["operation/passkeyApprove", {"ceremonyId": ceremony, "credential": {"id": "k"}}]


def test_demo_payment(tmp_path):
    running = Site(tmp_path, "--in-memory", "--demo-user", "ann@example.com", "--demo-payment")
    try:
        template = [p for m, p in running.calls() if m == "admin/configureOperationTemplate"][-1]
        assert "passkey" in template["allowedMethods"] and "offline" in template["allowedMethods"]
        assert running.post("operation/demoPayment")[0] == 401
        status, _, body = running.post("operation/demoPayment", cookie=sign_in(running))
        assert status == 200 and body["operationId"] == "op-new"
        method, params = running.calls()[-1]
        assert method == "admin/createOperation" and params["userId"] == "usr_1"
        assert params["template"] == template["name"]
    finally:
        running.stop()
