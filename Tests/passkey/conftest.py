"""Fixtures of the passkey interoperability tests: one latchkey process per test.

The binary is LATCHKEY_BIN (default: the debug build of this checkout); the process
harness is Tests/system/lkharness.py. Every process is killed at teardown and a test fails
if any of them ever answered internalError.
"""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "system"))

from lkharness import LK  # noqa: E402

DEFAULT_BIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".build", "debug", "latchkey")


def latchkey_bin():
    return os.environ.get("LATCHKEY_BIN", DEFAULT_BIN)


@pytest.fixture
def spawn():
    procs = []

    def _spawn(*args, name="lk"):
        lk = LK(*args, name=name, binary=latchkey_bin())
        procs.append(lk)
        return lk

    yield _spawn
    internal = []
    for lk in procs:
        lk.kill()
        internal += [(lk.name, r) for r in lk.internal_errors]
    assert not internal, f"internalError answers seen: {internal}"


@pytest.fixture
def lk(spawn):
    """A seeded process on a manual clock (every challenge and key deterministic)."""
    return spawn("--in-memory", "--seed", "1", "--clock", "manual")


@pytest.fixture
def lk_random(spawn):
    """An unseeded process: fresh randomness on every run."""
    return spawn("--in-memory", "--clock", "manual")
