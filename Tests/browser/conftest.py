"""The browser tests' fixtures: the latchkey binary ($LATCHKEY_BIN), the web back end as a
process (browser_support.Backend), and headless Chromium (Debian's `chromium` and
`chromium-driver`) driven by Selenium. test_backend.py uses none of them."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from browser_support import Backend
from latchkey import Latchkey


@pytest.fixture(scope="session")
def binary():
    path = os.environ.get("LATCHKEY_BIN")
    if not path or not os.access(path, os.X_OK):
        pytest.skip("LATCHKEY_BIN is not set to an executable latchkey (make build; then LATCHKEY_BIN=.build/debug/latchkey)")
    return os.path.abspath(path)


@pytest.fixture(scope="session")
def has_passkeys(binary):
    """True when the binary has the passkey methods."""
    with Latchkey.spawn(binary, ["--in-memory"]) as lk:
        return any(m["name"] == "passkey/creationOptions" for m in lk.call("rpc.discover")["methods"])


@pytest.fixture(scope="session")
def backend_binary(binary, tmp_path_factory):
    """The latchkey the back end spawns."""
    return binary


@pytest.fixture
def passkeys(has_passkeys):
    """Listed first, so a test that needs the passkey methods skips before Chromium starts."""
    assert has_passkeys, "this latchkey has no passkey methods (rpc.discover lists no passkey/creationOptions)"


@pytest.fixture
def backend_factory(backend_binary):
    started = []

    def start(*extra, db=None):
        started.append(Backend(backend_binary, *extra, db=db))
        return started[-1]
    yield start
    for backend in started:
        backend.stop()


@pytest.fixture(scope="session")
def chromium():
    browser = shutil.which("chromium")
    driver = shutil.which("chromedriver")
    if not (browser and driver):
        pytest.skip("needs Debian's chromium and chromium-driver (apt-get install -y chromium chromium-driver)")
    return browser, driver


@pytest.fixture
def driver(chromium):
    pytest.importorskip("selenium", reason="needs Selenium (pip install selenium; the web test venv has it)")
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    browser, chromedriver = chromium
    profile = tempfile.mkdtemp(prefix="latchkey-chromium-")
    options = Options()
    options.binary_location = browser
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=900,1000",
                 f"--user-data-dir={profile}", "--no-first-run", "--no-default-browser-check",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-default-apps", "--disable-extensions", "--metrics-recording-only",
                 # Loopback only: everything else goes to a dead proxy (loopback bypasses it).
                 "--proxy-server=http://127.0.0.1:9"):
        options.add_argument(flag)
    chrome = webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)
    try:
        yield chrome
    finally:
        chrome.quit()
        shutil.rmtree(profile, ignore_errors=True)
