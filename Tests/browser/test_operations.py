"""Payments approved in a real browser: the web example's confirm and offline pages
(clients/web/static/confirm.html, offline.html) in headless Chromium, against its back end and a
real latchkey ($LATCHKEY_BIN), screenshots in bench/out/browser/ (payment-*, tamper-*, offline-*).

The back end runs with `--demo-payment` (a demo route that makes a payment for the signed-in user)
on a SQLite file, and the test opens a second latchkey on the same file (SQLite takes several
processes on one file; the key file beside it is shared, so sealed keys read the same): it stands
for the bank's other systems — it reads outcomes with admin/getOperation, makes the attacker's
payment, and makes the activation code of the user's phone. Nothing new is reachable from the
browser for it.

The phone of the offline test is the Python reference device (clients/python/latchkey/device.py)
activated through the `server/` surface: it reads the QR code that the test takes back from
Chromium's screenshot with Debian's `zbarimg` (zbar-tools), and computes the code the user types.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import shutil
import subprocess
from urllib.parse import parse_qs, urlsplit

import pytest

pytest.importorskip("selenium", reason="needs Selenium (pip install selenium; the web test venv has it)")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from browser_support import EMAIL, Page, authenticator, passkey_sign_in, password_sign_in  # noqa: E402
from latchkey import Latchkey  # noqa: E402
from latchkey import device as reference  # noqa: E402

TEMPLATE = "web-demo-payment"  # the back end's DEMO_TEMPLATE
SHOWN = {"amount": "1 500.00 EUR", "iban": "CZ27 3030 0000 0011 6525 4011", "date": "31 January 2026",
         "reference": "INV-2026-0042"}
RAW = ("A1500.00EUR", "CZ2730300000001165254011", "20260131", "A1*")  # never on the page as such
PIN = "1234"


@pytest.fixture
def bank(passkeys, backend_factory, backend_binary, tmp_path):
    """(the back end, a second latchkey on its store)."""
    db = tmp_path / "latchkey.sqlite"
    backend = backend_factory("--demo-payment", db=db)
    with Latchkey.spawn(backend_binary, ["--db", str(db)], timeout=30) as lk:
        yield backend, lk


@pytest.fixture(scope="session")
def zbarimg():
    path = shutil.which("zbarimg")
    if not path:
        pytest.skip("needs Debian's zbar-tools (apt-get install -y zbar-tools)")
    return path


def operation_hash(operation_id, title, message, data):
    """The contract's operation hash (the page's operation.js and the back end compute it too)."""
    digest = hashlib.sha256()
    for part in (operation_id, title, message, data):
        raw = part.encode()
        digest.update(len(raw).to_bytes(4, "big") + raw)
    return base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()


def order_payment(page):
    """The signed-in user orders the demo payment: the confirm page opens for it; answers its id."""
    assert page.follow("demo-payment", "/confirm", "confirm-page") == ("ok", "Check the payment, then approve it")
    return parse_qs(urlsplit(page.driver.current_url).query)["operation"][0]


def shown_fields(page):
    return page.driver.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('#fields [data-field]')]"
        ".map((row) => [row.dataset.field, row.querySelector('dd').textContent]))")


def assert_shows_the_payment(page, fields=SHOWN):
    assert shown_fields(page) == fields
    assert page.text("#op-title") == "Confirm payment"
    body = page.text("body")
    assert not [raw for raw in RAW if raw in body], body  # formatted, never the data string


def test_approve_a_payment_with_a_passkey(bank, driver):
    """Sign in with a passkey, order a payment, see it as a bank shows it, approve it with the
    passkey: the page says so, and so does Latchkey (admin/getOperation on the shared store)."""
    backend, lk = bank
    page = Page(driver, backend, "payment")
    assert page.open() == ("ok", "Ready")
    authenticator(driver)
    passkey_sign_in(page)
    operation_id = order_payment(page)
    assert_shows_the_payment(page)
    assert page.text("#op-status") == "Waiting for your approval"
    assert lk.call("admin/getOperation", {"operationId": operation_id})["status"] == "pending"

    assert page.click("approve", "approved") == ("ok", "Payment approved")
    assert page.text("#op-status") == "Approved with a passkey"
    assert not driver.find_element(By.ID, "approve").is_enabled()
    operation = lk.call("admin/getOperation", {"operationId": operation_id})
    assert (operation["status"], operation["approvedWith"]) == ("approved", "passkey")
    assert operation["data"] == "A1*A1500.00EUR*ICZ2730300000001165254011*D20260131*RINV-2026-0042"

    # Opened again, the page shows the outcome and offers nothing more.
    assert page.open(f"/confirm?operation={operation_id}") == ("ok", "This payment is decided")
    assert page.text("#op-status") == "Approved with a passkey"
    page.shot("reopened")


# The man in the middle of part 1: when the page sends the user's assertion, it swaps in a
# ceremony of its own payment (and that payment's hash, so the back end's display check passes).
SWAP_CEREMONY = """
const [other, otherHash] = arguments;
const real = window.fetch;
window.fetch = async (url, init) => {
  if (url === "/api/operation/passkeyApprove") {
    const body = JSON.parse(init.body);
    const options = await (await real("/api/operation/passkeyOptions", {method: "POST",
      headers: {"Content-Type": "application/json"}, body: JSON.stringify({operationId: other})})).json();
    init = {...init, body: JSON.stringify({...body, ceremonyId: options.ceremonyId, shownHash: otherHash})};
  }
  return real(url, init);
};
"""

# Part 2: the payment's data rewritten on its way to the page, before the page's script runs.
REWRITE_DISPLAY = """
const real = window.fetch;
window.fetch = async (url, init) => {
  const response = await real(url, init);
  if (url !== "/api/operation/show") return response;
  const operation = await response.json();
  operation.data = operation.data.replace("*A1500.00EUR*", "*A15000.00EUR*");
  return new Response(JSON.stringify(operation), {status: response.status, headers: {"Content-Type": "application/json"}});
};
"""


def test_a_tampered_amount_is_refused(bank, driver):
    """What "a tampered amount is refused" can mean with a passkey, honestly.

    An authenticator shows no amount (WebAuthn has no transaction display; Secure Payment
    Confirmation would add one): the user trusts the page. What binds the amount is the
    challenge: Latchkey makes it SHA-256 of the operation's id, its hash (over title, message and
    data) and a nonce, so an assertion approves the operation it was made for and no other.

    1. A man in the middle between the page and the back end (here a script wrapping the page's
       fetch) lets the user approve the 1 500.00 EUR payment on screen, then presents the
       assertion for a tampered copy: 15 000.00 EUR to another IBAN, a pending payment of the
       same user, with a ceremony of its own and that payment's own hash. Latchkey refuses it
       (passkeyInvalid, check: challenge); the page says so; neither payment is approved, and
       nothing is counted on either.
    2. The display is tampered with instead: the operation's data is rewritten on its way to the
       page, which shows 15 000.00 EUR. The page sends the operation hash of what it displayed
       with the approval (as a phone signs the hash of what it shows), and the back end refuses
       an approval whose displayed hash is not the operation's (operationDataMismatch) before
       anything reaches Latchkey. This catches a display changed on the way to the page by
       anything that does not also rewrite the approval; it cannot stop a script running inside
       the page, which could lie about what it displayed — no web page can, that is what the
       phone's own display (and part 1's binding) is for.
    3. Without the tampering, the same payment is approved; the tampered copy stays pending."""
    backend, lk = bank
    page = Page(driver, backend, "tamper")
    assert page.open() == ("ok", "Ready")
    authenticator(driver)
    passkey_sign_in(page)
    operation_id = order_payment(page)
    assert_shows_the_payment(page)
    mine = lk.call("admin/getOperation", {"operationId": operation_id})
    theirs = lk.call("admin/createOperation", {
        "userId": mine["userId"], "template": TEMPLATE, "parameters": {
            "amount": "15000.00", "currency": "EUR", "iban": "DE89370400440532013000",
            "dueDate": "20260131", "reference": "INV-2026-0042"}})
    assert theirs["data"] == "A1*A15000.00EUR*IDE89370400440532013000*D20260131*RINV-2026-0042"

    # 1. The user's assertion, presented for the tampered payment.
    driver.execute_script(SWAP_CEREMONY, theirs["operationId"],
                          operation_hash(*(theirs[k] for k in ("operationId", "title", "message", "data"))))
    state, text = page.click("approve", "assertion-swapped-refused")
    assert state == "error" and text.startswith("passkeyInvalid") and "(check: challenge)" in text, text
    for operation in (mine, theirs):
        now = lk.call("admin/getOperation", {"operationId": operation["operationId"]})
        assert (now["status"], now["failureCount"]) == ("pending", 0), now

    # 2. The tampered display: the page shows 15 000.00 EUR, and its approval is refused.
    script = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": REWRITE_DISPLAY})
    assert page.open(f"/confirm?operation={operation_id}") == ("ok", "Check the payment, then approve it")
    assert shown_fields(page)["amount"] == "15 000.00 EUR"
    page.shot("display-tampered")
    state, text = page.click("approve", "display-tampered-refused")
    assert state == "error" and text.startswith("operationDataMismatch"), text
    assert "nothing was approved" in text
    now = lk.call("admin/getOperation", {"operationId": operation_id})
    assert (now["status"], now["failureCount"]) == ("pending", 0), now

    # 3. The page as the bank sent it: approved; the tampered copy is still pending.
    driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})
    assert page.open(f"/confirm?operation={operation_id}") == ("ok", "Check the payment, then approve it")
    assert_shows_the_payment(page)
    assert page.click("approve", "approved") == ("ok", "Payment approved")
    assert lk.call("admin/getOperation", {"operationId": operation_id})["approvedWith"] == "passkey"
    assert lk.call("admin/getOperation", {"operationId": theirs["operationId"]})["status"] == "pending"


def test_reject_a_payment(bank, driver):
    """Reject: the back end cancels the operation (there is no rejection by browser)."""
    backend, lk = bank
    page = Page(driver, backend, "reject")
    assert page.open() == ("ok", "Ready")
    password_sign_in(page)
    operation_id = order_payment(page)
    assert page.click("reject", "rejected") == ("ok", "Payment rejected: nothing will be paid")
    assert page.text("#op-status") == "Canceled"
    assert lk.call("admin/getOperation", {"operationId": operation_id})["status"] == "canceled"
    # An unknown payment, like another user's, is none of this page's.
    assert page.open("/confirm?operation=00000000-0000-4000-8000-000000000000")[0] == "error"


def offline_code(phone, activation, payload, pin):
    """The code the phone shows for a scanned payload: the reference device's `offline_code` when
    it has one, else the contract's derivation here (ECDH with the registration's server key,
    HKDF-SHA256, HMAC-SHA256, RFC 4226 truncation), after checking the server's signature."""
    if hasattr(phone, "offline_code"):
        return phone.offline_code(payload, pin=pin)["code"]
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    lines = payload.split("\n")
    assert len(lines) == 8 and lines[0] == "LATCHKEY-QR-V1", payload
    assert reference.verify(activation["operationSigningKey"], lines[7], "\n".join(lines[:7]).encode())
    def unescape(line):
        return re.sub(r"\\([\\n])", lambda m: "\n" if m.group(1) == "n" else "\\", line)
    operation_id, nonce = lines[1], lines[6]
    hashed = operation_hash(operation_id, unescape(lines[2]), unescape(lines[3]), lines[4])
    server = ec.EllipticCurvePublicKey.from_encoded_point(
        ec.SECP256R1(), reference.b64url_decode(activation["serverPublicKey"]))
    registration = phone.registration_id
    storage = phone.storage

    def part(private, role):
        key = ec.derive_private_key(int.from_bytes(private, "big"), ec.SECP256R1())
        k = HKDF(hashes.SHA256(), 32, b"", f"LATCHKEY-OTP-V1\n{role}\n{registration}".encode()).derive(
            key.exchange(ec.ECDH(), server))
        m = hmac.new(k, f"LATCHKEY-OTP-V1\n{operation_id}\n{hashed}\n{nonce}".encode(), hashlib.sha256).digest()
        offset = m[31] & 0x0F
        return "%08d" % ((int.from_bytes(m[offset:offset + 4], "big") & 0x7FFFFFFF) % 10 ** 8)
    device = reference.b64url_decode(storage["activation.possessionKey"])
    pin_key = reference.mask(reference.b64url_decode(storage["activation.pinMaskedKey"]), pin,
                             reference.b64url_decode(storage["activation.pinSalt"]), reference.PIN_ROUNDS)
    return part(device, "device") + "-" + part(pin_key, "pin")


def test_approve_a_payment_offline_with_a_qr_code(bank, driver, zbarimg):
    """The user's phone has no network: the offline page shows the server's QR code, the test
    reads it back from Chromium's screenshot with zbarimg, the phone (the Python reference
    device, activated on the server/ surface) checks it and computes the code, Chromium types
    it in — a wrong one first, which counts — and the page shows the payment approved."""
    backend, lk = bank
    driver.set_window_size(900, 1400)  # the payment, the QR code and the code field in one screenshot
    page = Page(driver, backend, "offline")
    assert page.open() == ("ok", "Ready")
    password_sign_in(page)
    operation_id = order_payment(page)

    # The user's phone, activated with a code from the bank's other systems.
    user = lk.call("admin/getOperation", {"operationId": operation_id})["userId"]
    code = lk.call("admin/createActivationCode", {"userId": user})["activationCode"]
    phone = reference.Device(lk, installation_id="phone-of-" + EMAIL, storage={})
    offer = phone.prepare_activation(code)
    activation = {**phone.commit_activation(offer, pin=PIN), "operationSigningKey": offer["operationSigningKey"]}

    scanned = "Scan the code with your phone, then type the code it shows"
    assert page.follow("offline-link", "/offline", "qr-shown") == ("ok", scanned)
    WebDriverWait(driver, 10).until(lambda d: d.execute_script(
        "const qr = document.getElementById('qr'); return qr.complete && qr.naturalWidth > 0"))
    assert_shows_the_payment(page)
    shot = page.shot("qr-for-the-phone")
    read = subprocess.run([zbarimg, "--raw", "-q", str(shot)], capture_output=True, text=True, timeout=60)
    assert read.returncode == 0, read.stderr
    payload = read.stdout[:-1] if read.stdout.endswith("\n") else read.stdout
    lines = payload.split("\n")
    assert (len(lines), lines[0], lines[1]) == (8, "LATCHKEY-QR-V1", operation_id), payload
    assert lines[4] == "A1*A1500.00EUR*ICZ2730300000001165254011*D20260131*RINV-2026-0042"

    # A wrong code (a stranger's digits): refused, counted on the operation only.
    page.fill("code", "00000000-00000000")
    state, text = page.click("verify", "wrong-code")
    assert state == "error" and text.startswith("authenticationFailed") and "(attempts left: 4)" in text, text
    assert lk.call("admin/getOperation", {"operationId": operation_id})["failureCount"] == 1

    answer = offline_code(phone, activation, payload, PIN)
    assert len(answer) == 17 and answer[8] == "-"
    page.fill("code", answer)
    assert page.click("verify", "approved") == ("ok", "Payment approved")
    assert page.text("#op-status") == "Approved offline, with your phone"
    assert not page.visible("scan")
    operation = lk.call("admin/getOperation", {"operationId": operation_id})
    assert (operation["status"], operation["approvedWith"]) == ("approved", "offline")


# The page's reader of operation data against the Python reference device's, on the same inputs:
# the same fields, or the same first rule broken.
DATA_CASES = [
    "A1*A1500.00EUR*ICZ2730300000001165254011*D20260131*RINV-2026-0042",
    "A0", "A99*T", "A1*A.5EUR*IDE89370400440532013000,DEUTDEFF*QACC-1*Na\\*b\\\\c\\nd*Tž",
    "A1*IDE89370400440532013000,DEUTDEFF500*D20240229", "",
    "B1", "A", "A100", "A1*", "A1*A12EU", "A1*A1.2.3EUR", "A1*A12eur", "A1*AEUR",
    "A1*ICZ2730300000001165254012", "A1*IDE89370400440532013000,deutdeff", "A1*IDE89370400440532013000,A,B",
    "A1*D20250229", "A1*D2026013", "A1*X1", "A1*N\\x", "A1*Na\\", "A1*Q", "A1*T1*T2*T3*T4*T5*T6",
    "A1*N" + "x" * 252, "A1*N" + "x" * 251, "A1*N\ttab",
]
READ_DATA = """
const [cases, done] = [arguments[0], arguments[arguments.length - 1]];
import("/operation.js").then(async (m) => {
  const out = [];
  for (const data of cases) {
    try { out.push({ok: m.parseOperationData(data)}); } catch (e) { out.push({rule: e.rule ?? String(e)}); }
  }
  const hash = await m.operationHash({operationId: "op-1", title: "Confirm payment", message: "Pay\\nnow", data: cases[0]});
  done({out, hash, shown: m.parseOperationData(cases[0]).fields.map(m.fieldText)});
}, (e) => done(String(e)));
"""


def test_the_pages_data_reader_agrees_with_the_reference_device(driver, backend_factory):
    if not hasattr(reference, "parse_operation_data"):
        pytest.skip("the Python reference device has no operation-data reader yet")
    backend = backend_factory()
    page = Page(driver, backend, "data-reader")
    assert page.open() == ("ok", "Ready")
    result = driver.execute_async_script(READ_DATA, DATA_CASES)
    assert isinstance(result, dict), result
    for data, got in zip(DATA_CASES, result["out"]):
        try:
            expected = {"ok": reference.parse_operation_data(data)}
        except reference.OperationDataError as error:
            expected = {"rule": error.rule}
        assert got == expected, data
    assert result["hash"] == operation_hash("op-1", "Confirm payment", "Pay\nnow", DATA_CASES[0])
    assert result["shown"] == list(SHOWN.values())
