"""Passkeys in a real browser: headless Chromium (Debian's `chromium` and `chromium-driver`),
driven by Selenium, with Chromium's virtual authenticator (CTAP2, internal transport, resident
keys, user verification), against the web example (clients/web/server.py) and a real latchkey
($LATCHKEY_BIN).

    LATCHKEY_BIN=.build/debug/latchkey .build/venv/bin/python -m pytest -q Tests/browser

The test plays the user and the user's mailbox: the back end runs with `--mailbox-dir`, a
test-only flag that makes Latchkey's `--deliver-command` (the hook a deployment uses for real
email) write each message to a file; the back end's HTTP surface stays the production one (no
delivery/* is ever reachable from the browser).

A screenshot of the page after each step goes to bench/out/browser/ (git-ignored). Loopback
only: Chromium gets a dead proxy for everything that is not loopback. A binary without the
passkey methods fails the passkey tests. The fixtures are in conftest.py, the back end's process
and the user's hands in browser_support.py; the payment pages' tests in test_operations.py."""

from __future__ import annotations

import json
import os

import pytest

pytest.importorskip("selenium", reason="needs Selenium (pip install selenium; the web test venv has it)")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from browser_support import EMAIL, Page, authenticator, password_sign_in, unpadded  # noqa: E402


# -- the tests ---------------------------------------------------------------------------------

def test_page_authenticator_and_password_sign_in(driver, backend_factory):
    """Runs against today's binary: the page, the virtual authenticator, the password sign-in,
    sign-out, and the back end's refusals of cross-site requests."""
    backend = backend_factory()
    page = Page(driver, backend, "password")
    assert page.open() == ("ok", "Ready")
    page.shot("page-loaded")
    assert page.visible("signed-out")
    assert driver.execute_script(
        "return typeof PublicKeyCredential.parseCreationOptionsFromJSON === 'function'"
        " && typeof PublicKeyCredential.parseRequestOptionsFromJSON === 'function'")
    authenticator(driver)
    assert driver.get_credentials() == []

    page.fill("email", EMAIL)
    page.fill("password", "not-the-password")
    state, text = page.click("signin", "wrong-password")
    assert state == "error" and text.startswith("invalidCredentials")
    password_sign_in(page)
    # The session is an HttpOnly cookie: the page's script cannot read it.
    assert driver.execute_script("return document.cookie") == ""
    cookie = driver.get_cookie("session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert page.click("signout", "signed-out") == ("ok", "Signed out")
    assert page.visible("signed-out")

    # CSRF: another origin, no origin, or not JSON: refused before anything is forwarded.
    json_type = {"Content-Type": "application/json"}
    assert backend.post("user/get", {}, {**json_type, "Origin": backend.origin}) == 401
    assert backend.post("user/get", {}, {**json_type, "Origin": "http://evil.localhost"}) == 403
    assert backend.post("user/get", {}, json_type) == 403
    assert backend.post("user/get", {}, {"Content-Type": "text/plain", "Origin": backend.origin}) == 415
    for method in ("admin/createUser", "delivery/list", "audit/list", "device/create", "clock/advance"):
        assert backend.post(method, {}, {**json_type, "Origin": backend.origin}) == 404, method
    # Secrets stay out of the log: the demo password is the only one, on its own line.
    log = "".join(backend.stderr)
    assert log.count(backend.password) == 1


# Chromium's own create()/get() on the page, with options made here, next to the clients'
# software authenticator given the same options: the same JSON members, the same clientData,
# the same authenticatorData layout, CBOR and COSE key. Needs no passkey method of the binary.
BROWSER_CEREMONY = """
const [creation, done] = [arguments[0], arguments[arguments.length - 1]];
(async () => {
  const made = await navigator.credentials.create({publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(creation)});
  const request = {rpId: creation.rp.id, challenge: creation.challenge, userVerification: "required",
                   allowCredentials: [{type: "public-key", id: made.id}]};
  const got = await navigator.credentials.get({publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(request)});
  return [made.toJSON(), got.toJSON(), request];
})().then(done, (e) => done(String(e)));
"""


def test_software_authenticator_matches_chromium(driver, backend_factory):
    from latchkey.authenticator import SoftwareAuthenticator, b64url, b64url_decode, cbor_decode
    backend = backend_factory()
    page = Page(driver, backend, "compare")
    assert page.open() == ("ok", "Ready")
    authenticator(driver)
    creation = {
        "rp": {"id": "localhost", "name": "Latchkey"},
        "user": {"id": b64url(os.urandom(32)), "name": EMAIL, "displayName": EMAIL},
        "challenge": b64url(os.urandom(32)), "timeout": 300000, "attestation": "none",
        "pubKeyCredParams": [{"type": "public-key", "alg": alg} for alg in (-7, -8, -257)],
        "excludeCredentials": [],
        "authenticatorSelection": {"residentKey": "required", "requireResidentKey": True,
                                   "userVerification": "required"}}
    result = driver.execute_async_script(BROWSER_CEREMONY, creation)
    assert isinstance(result, list), result
    chrome_made, chrome_got, request = result
    software = SoftwareAuthenticator(backend.origin)
    soft_made, soft_got = software.create(creation), None
    soft_got = software.get({**request, "allowCredentials": [{"type": "public-key", "id": soft_made["id"]}]})

    def shape(value):
        return {k: shape(v) if isinstance(v, dict) else type(v).__name__ for k, v in value.items()}
    assert shape(soft_made) == shape(chrome_made)
    assert shape(soft_got) == shape(chrome_got)
    for soft, chrome in ((soft_made, chrome_made), (soft_got, chrome_got)):
        assert soft["type"] == chrome["type"] and soft["clientExtensionResults"] == chrome["clientExtensionResults"] == {}
        assert soft["authenticatorAttachment"] == chrome["authenticatorAttachment"]
        soft_client = json.loads(b64url_decode(soft["response"]["clientDataJSON"]))
        chrome_client = json.loads(b64url_decode(chrome["response"]["clientDataJSON"]))
        chrome_client.pop("other_keys_can_be_added_here", None)  # Chromium adds it now and then
        assert list(soft_client.items())[:1] == list(chrome_client.items())[:1]
        assert {k: v for k, v in soft_client.items() if k != "challenge"} == \
            {k: v for k, v in chrome_client.items() if k != "challenge"}
    # Registration: attestationObject's map in the same order, authData laid out alike.
    soft_att = b64url_decode(soft_made["response"]["attestationObject"])
    chrome_att = b64url_decode(chrome_made["response"]["attestationObject"])
    assert list(cbor_decode(soft_att)) == list(cbor_decode(chrome_att)) == ["fmt", "attStmt", "authData"]
    soft_auth, chrome_auth = cbor_decode(soft_att)["authData"], cbor_decode(chrome_att)["authData"]
    assert soft_auth[:32] == chrome_auth[:32]  # SHA-256 of the RP id
    assert soft_auth[32] == chrome_auth[32]    # flags: UP UV AT (the virtual authenticator is not BE)
    assert chrome_made["response"]["publicKeyAlgorithm"] == soft_made["response"]["publicKeyAlgorithm"] == -7
    cred_len = int.from_bytes(chrome_auth[53:55], "big")
    chrome_cose = cbor_decode(chrome_auth[55 + cred_len:])
    soft_cose = cbor_decode(soft_auth[55 + int.from_bytes(soft_auth[53:55], "big"):])
    assert list(chrome_cose) == list(soft_cose) == [1, 3, -1, -2, -3]
    assert sorted(chrome_made["response"]["transports"]) == ["internal"]
    # Assertion: the same flags; the counter as each counts (Chromium's virtual one counts too).
    assert b64url_decode(soft_got["response"]["authenticatorData"])[32] == \
        b64url_decode(chrome_got["response"]["authenticatorData"])[32]
    assert chrome_got["response"]["userHandle"] == creation["user"]["id"]
    page.shot("compared")


def test_passkey_life_cycle(passkeys, driver, backend_factory):
    backend = backend_factory()
    page = Page(driver, backend, "lifecycle")
    assert page.open() == ("ok", "Ready")
    authenticator(driver)

    # Register after a password sign-in.
    password_sign_in(page)
    page.fill("passkey-name", "Laptop")
    assert page.click("add-passkey", "passkey-added") == ("ok", "Passkey added")
    [held] = driver.get_credentials()
    assert held.is_resident_credential
    assert page.passkeys() == [unpadded(held.id)]
    assert page.click("signout", "signed-out")[0] == "ok"

    # Sign in by name, then with no name (discoverable).
    page.fill("email", EMAIL)
    assert page.click("passkey-signin", "passkey-by-name") == ("ok", "Signed in with a passkey")
    assert page.click("signout", "signed-out-again")[0] == "ok"
    assert page.click("passkey-signin-any", "passkey-discoverable") == ("ok", "Signed in with a passkey (discoverable)")
    assert page.click("signout", "signed-out-3")[0] == "ok"
    old = driver.get_credentials()

    # The authenticator is lost: request a code, take it from the mailbox, reset onto a new one.
    driver.remove_virtual_authenticator()
    authenticator(driver)
    page.fill("reset-email", EMAIL)
    state, text = page.click("request-code", "code-requested")
    assert state == "ok" and "code is on its way" in text
    page.fill("reset-code", backend.code())
    assert page.click("reset-passkeys", "passkeys-reset") == ("ok", "Passkeys reset: sign in with the new one")
    [new] = driver.get_credentials()
    assert new.id != old[0].id
    page.fill("email", EMAIL)
    assert page.click("passkey-signin", "new-passkey-signed-in") == ("ok", "Signed in with a passkey")
    assert page.passkeys() == [unpadded(new.id)]
    assert page.click("signout", "signed-out-4")[0] == "ok"

    # The old authenticator turns up again: its assertion is refused.
    driver.remove_virtual_authenticator()
    authenticator(driver)
    driver.add_credential(old[0])
    state, text = page.click("passkey-signin-any", "old-passkey-refused")
    assert state == "error" and text.startswith("passkeyInvalid") and "(check: credential)" in text, text
    assert page.visible("signed-out")


def test_user_verification_only_preferred(passkeys, driver, backend_factory):
    """An authenticator that cannot verify the user, where the application only prefers it."""
    backend = backend_factory("--user-verification", "preferred")
    page = Page(driver, backend, "no-uv")
    assert page.open() == ("ok", "Ready")
    authenticator(driver, user_verification=False)
    password_sign_in(page)
    page.fill("passkey-name", "Security key without PIN")
    assert page.click("add-passkey", "passkey-added-without-uv") == ("ok", "Passkey added")
    [held] = driver.get_credentials()
    assert page.click("signout", "signed-out")[0] == "ok"
    page.fill("email", EMAIL)
    assert page.click("passkey-signin", "signed-in-without-uv") == ("ok", "Signed in with a passkey")
    # Remove it from the list: the page's last button.
    driver.find_element(By.CSS_SELECTOR, f'#passkeys li[data-id="{unpadded(held.id)}"] button').click()
    WebDriverWait(driver, 10).until(lambda d: page.passkeys() == [])
    page.shot("passkey-removed")
