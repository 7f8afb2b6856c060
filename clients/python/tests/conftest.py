"""Puts the package on sys.path and provides the binary fixtures."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from support import DEFAULT_ARGS, FAKE, real_binary  # noqa: E402

from latchkey import Latchkey  # noqa: E402


@pytest.fixture
def binary() -> str:
    """The real latchkey binary from $LATCHKEY_BIN; skips the test when there is none."""
    path, why = real_binary()
    if path is None:
        pytest.skip(why)
    return path


@pytest.fixture
def lk(binary):
    """A real latchkey in test mode (in memory, seed 1, manual clock)."""
    with Latchkey.spawn(binary, DEFAULT_ARGS, timeout=30) as client:
        yield client


@pytest.fixture
def fake():
    """The stand-in server from clients/testdata (no Swift build needed)."""
    with Latchkey.spawn(sys.executable, [str(FAKE), *DEFAULT_ARGS], timeout=30) as client:
        yield client
