"""What the browser tests share besides their fixtures (conftest.py): the web back end as a
process, and the user's hands and eyes on the page. Selenium is imported when present: the
browser tests skip without it (`pytest.importorskip`), and test_backend.py needs none of this."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

try:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.virtual_authenticator import (Protocol, Transport,
                                                                 VirtualAuthenticatorOptions)
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:  # the browser tests skip before they reach any of it
    pass

REPO = Path(__file__).resolve().parents[2]
SERVER = REPO / "clients" / "web" / "server.py"
OUT = REPO / "bench" / "out" / "browser"
EMAIL = "ann@example.com"
sys.path.insert(0, str(REPO / "clients" / "python"))


# -- the back end ------------------------------------------------------------------------------

class Backend:
    """clients/web/server.py on a free loopback port with a throwaway store (or Latchkey's SQLite
    file `db`, which another process of the test may open too); stopped afterwards."""

    def __init__(self, binary, *extra, db=None):
        self.mailbox = tempfile.mkdtemp(prefix="latchkey-mailbox-")
        self.stderr = []
        env = {**os.environ, "LATCHKEY_BIN": binary}
        store = ["--db", str(db)] if db else ["--in-memory"]
        self.process = subprocess.Popen(
            [sys.executable, str(SERVER), *store, "--port", "0", "--demo-user", EMAIL,
             "--mailbox-dir", self.mailbox, *extra],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        threading.Thread(target=self._drain, daemon=True).start()
        line = self.process.stdout.readline()  # "serving http://localhost:PORT/"
        if not line.startswith("serving "):
            self.stop()
            raise RuntimeError("the back end did not start:\n" + "".join(self.stderr))
        self.url = line.split()[1]
        self.origin = self.url.rstrip("/")
        deadline = time.monotonic() + 10
        while not self.password and time.monotonic() < deadline:
            time.sleep(0.05)

    def _drain(self):
        for line in self.process.stderr:
            self.stderr.append(line)

    @property
    def password(self):
        for line in self.stderr:
            match = re.search(r"demo user \S+ password (\S+) \(a demo only\)", line)
            if match:
                return match.group(1)
        return None

    def code(self, timeout=10.0):
        """The newest account-recovery code in the mailbox (delivery runs off the request path)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for path in sorted(Path(self.mailbox).glob("msg-*.json"), reverse=True):
                message = json.loads(path.read_text())
                if message["to"] == EMAIL and message["purpose"] == "accountRecovery":
                    return message["code"]
            time.sleep(0.1)
        raise AssertionError("no account-recovery message arrived")

    def post(self, method, body, headers):
        request = urllib.request.Request(f"{self.origin}/api/{method}", data=json.dumps(body).encode(),
                                         headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.mailbox, ignore_errors=True)


# -- the user's hands and eyes -----------------------------------------------------------------

class Page:
    def __init__(self, driver, backend, prefix):
        self.driver, self.backend, self.prefix, self.step = driver, backend, prefix, 0
        OUT.mkdir(parents=True, exist_ok=True)
        for old in OUT.glob(f"{prefix}-*.png"):
            old.unlink()

    def open(self, path="/"):
        self.driver.get(self.backend.origin + path)
        return self.wait_status()

    def shot(self, name):
        """Saves a screenshot in bench/out/browser/; answers its path."""
        self.step += 1
        path = OUT / f"{self.prefix}-{self.step:02d}-{name}.png"
        self.driver.save_screenshot(str(path))
        return path

    def fill(self, element_id, text):
        field = self.driver.find_element(By.ID, element_id)
        field.clear()
        field.send_keys(text)

    def wait_status(self, timeout=30):
        WebDriverWait(self.driver, timeout).until(
            lambda d: d.find_element(By.ID, "status").text not in ("", "…", "Loading…"))
        status = self.driver.find_element(By.ID, "status")
        return status.get_attribute("data-state"), status.text

    def click(self, element_id, shot):
        """Clicks, waits for the page to report, screenshots; returns (state, status text)."""
        self.driver.execute_script("document.getElementById('status').textContent = '…'")
        self.driver.find_element(By.ID, element_id).click()
        result = self.wait_status()
        self.shot(shot)
        return result

    def follow(self, element_id, path, shot, timeout=30):
        """Clicks something that opens another page (at `path`), waits for that page to report,
        screenshots; returns (state, status text)."""
        self.driver.find_element(By.ID, element_id).click()
        WebDriverWait(self.driver, timeout).until(lambda d: d.current_url.startswith(self.backend.origin + path))
        result = self.wait_status(timeout)
        self.shot(shot)
        return result

    def text(self, selector):
        return self.driver.find_element(By.CSS_SELECTOR, selector).text

    def visible(self, section):
        return self.driver.find_element(By.ID, section).is_displayed()

    def passkeys(self):
        # One script, so a list re-rendered meanwhile cannot leave a stale element behind.
        return self.driver.execute_script(
            "return [...document.querySelectorAll('#passkeys li[data-id]')].map((li) => li.dataset.id)")


def authenticator(driver, user_verification=True):
    """A platform authenticator as a phone or laptop has: CTAP2, internal, resident keys."""
    driver.add_virtual_authenticator(VirtualAuthenticatorOptions(
        protocol=Protocol.CTAP2, transport=Transport.INTERNAL, has_resident_key=True,
        has_user_verification=user_verification, is_user_consenting=True,
        is_user_verified=user_verification))


def unpadded(credential_id):
    """Selenium gives credential ids padded; WebAuthn's JSON and Latchkey write them unpadded."""
    return credential_id.rstrip("=")


def password_sign_in(page):
    page.fill("email", EMAIL)
    page.fill("password", page.backend.password)
    assert page.click("signin", "password-signed-in") == ("ok", "Signed in with a password")
    assert page.visible("signed-in")
    assert page.driver.find_element(By.ID, "whoami").text == EMAIL


def passkey_sign_in(page):
    """The user's first passkey (added after a password sign-in), then a sign-in with it."""
    password_sign_in(page)
    page.fill("passkey-name", "Laptop")
    assert page.click("add-passkey", "passkey-added") == ("ok", "Passkey added")
    assert page.click("signout", "signed-out")[0] == "ok"
    page.fill("email", EMAIL)
    assert page.click("passkey-signin", "passkey-signed-in") == ("ok", "Signed in with a passkey")
