import os
import signal
import shutil
import tempfile

import pytest

from lkharness import LK, binary_path

# Every test is bounded: a hard per-test deadline on top of the per-call timeouts.
TEST_DEADLINE_SECONDS = int(os.environ.get("LATCHKEY_TEST_DEADLINE", "75"))


class _Deadline(Exception):
    pass


@pytest.fixture(autouse=True)
def deadline():
    def on_alarm(signum, frame):
        raise _Deadline(f"test exceeded its {TEST_DEADLINE_SECONDS}s deadline")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(TEST_DEADLINE_SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.fixture(scope="session")
def bin_path():
    return binary_path()


@pytest.fixture
def workdir():
    d = tempfile.mkdtemp(prefix="latchkey-systest-")
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def db_path(workdir):
    return os.path.join(workdir, "latchkey.sqlite")


@pytest.fixture
def spawn(workdir, bin_path):
    """spawn(*args, name=...) -> LK; every process is killed at teardown, and a
    test fails if any of them ever answered internalError."""
    procs = []
    counter = [0]

    def _spawn(*args, name=None, **kw):
        counter[0] += 1
        name = name or f"p{counter[0]}"
        kw.setdefault("stderr_path", os.path.join(workdir, f"{name}.stderr"))
        kw.setdefault("binary", bin_path)
        lk = LK(*args, name=name, **kw)
        procs.append(lk)
        return lk

    yield _spawn
    internal = []
    for lk in procs:
        lk.kill()
        internal += [(lk.name, r) for r in lk.internal_errors]
    assert not internal, f"internalError answers seen: {internal}"
