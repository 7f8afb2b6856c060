"""Process lifetime: signals, EOF, the `exit` notification, test-mode flags and the
store file's mode (PROTOCOL.md "Transport" and "Command line")."""
import json
import os
import signal
import stat
import subprocess
import threading
import time

import pytest

from lkharness import check_not_internal


def assert_clean_stdout(lk):
    """Every stdout line is one complete JSON-RPC message; nothing partial at the end."""
    assert lk.partial == b"", f"partial line on stdout: {lk.partial[:200]!r}"
    assert not lk.bad_lines, f"non-JSON lines on stdout: {lk.bad_lines[:3]}"
    for line in lk.raw_lines:
        assert line.endswith(b"\n")
        msg = json.loads(line)
        assert msg.get("jsonrpc") == "2.0", line


# --------------------------------------------------------------------------
# SIGTERM / SIGINT
# --------------------------------------------------------------------------
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.parametrize("store", ["memory", "file"])
def test_signal_while_idle_exits_0(spawn, db_path, sig, store):
    lk = spawn(*(["--in-memory"] if store == "memory" else ["--db", db_path]))
    assert lk.ok("ping", echo="idle") == {"echo": "idle"}   # answered: now idle (waiting on stdin, or in a look at the store)
    lk.signal(sig)
    assert lk.wait(10) == 0
    lk.wait_eof(10)
    assert_clean_stdout(lk)
    assert len(lk.raw_lines) == 1


def pipeline_writer(lk, requests, stop):
    try:
        for i, (method, params) in enumerate(requests, 1):
            if stop.is_set():
                return
            lk.send(method, params, id=i)
    except (BrokenPipeError, OSError, ValueError):
        pass


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.parametrize("workload", ["ping-memory", "createUser-file"])
def test_signal_with_requests_pipelined(spawn, db_path, sig, workload):
    """Every request is answered completely up to some point, then nothing; exit 0."""
    if workload == "ping-memory":
        lk = spawn("--in-memory")
        requests = [("ping", {"echo": i}) for i in range(1, 200001)]
    else:
        lk = spawn("--db", db_path)
        requests = [("admin/createUser", {"userId": f"term-{i}"}) for i in range(1, 50001)]
    stop = threading.Event()
    writer = threading.Thread(target=pipeline_writer, args=(lk, requests, stop), daemon=True)
    writer.start()
    lk.recv(1, timeout=20)          # the process is busy with the stream
    lk.recv(50, timeout=20)
    lk.signal(sig)
    signalled = time.monotonic()
    rc = lk.wait(20)
    took = time.monotonic() - signalled
    stop.set()
    lk.close_stdin()
    writer.join(10)
    lk.wait_eof(10)
    assert rc == 0, f"exit status {rc}"
    assert took < 5, f"exit took {took:.1f}s after the signal"
    assert_clean_stdout(lk)
    # Answers are exactly requests 1..k, in order, each complete and successful.
    k = len(lk.reply_order)
    assert lk.reply_order == list(range(1, k + 1)), lk.reply_order[:20]
    assert 50 <= k < len(requests), f"{k} answered of {len(requests)}: the signal did not stop the stream"
    for i in range(1, k + 1):
        reply = lk.replies[i]
        check_not_internal(reply)
        assert "result" in reply, reply
        if workload == "ping-memory":
            assert reply["result"] == {"echo": i}
        else:
            assert reply["result"] == {"userId": f"term-{i}"}
    if workload == "createUser-file":
        # What was answered was committed; the store is usable again.
        again = spawn("--db", db_path)
        assert again.err("admin/createUser", userId=f"term-{k}")["code"] == 1001
        assert again.close() == 0


def pipe_pending(fileobj):
    """Bytes written to a pipe and not yet read by the other end (Linux FIONREAD)."""
    import fcntl
    import termios
    import array
    buf = array.array("i", [0])
    fcntl.ioctl(fileobj.fileno(), termios.FIONREAD, buf, True)
    return buf[0]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_during_a_slow_request_finishes_it(spawn, db_path, sig):
    """The request in hand (here a password hash) is answered and committed before exit."""
    lk = spawn("--db", db_path)
    lk.ok("ping")
    lk.send("admin/createUser", {"userId": "in-hand", "password": "a slow salted hash"}, id=1000)
    deadline = time.monotonic() + 10
    while pipe_pending(lk.p.stdin) and 1000 not in lk.replies:   # wait until latchkey has read it
        assert time.monotonic() < deadline, "latchkey never read the request"
        time.sleep(0.001)
    lk.signal(sig)
    assert lk.wait(20) == 0
    lk.wait_eof(10)
    assert_clean_stdout(lk)
    assert lk.replies.get(1000, {}).get("result") == {"userId": "in-hand"}, lk.replies
    again = spawn("--db", db_path)
    assert again.ok("user/login", userId="in-hand", password="a slow salted hash")["uid"] == "in-hand"
    assert again.close() == 0


# --------------------------------------------------------------------------
# EOF and the exit notification
# --------------------------------------------------------------------------
def test_eof_immediately_exits_0(spawn):
    lk = spawn("--in-memory")
    assert lk.close(10) == 0
    lk.wait_eof(10)
    assert lk.raw_lines == [] and lk.partial == b""


def test_eof_after_pipelined_requests_answers_all_then_exits_0(spawn, db_path):
    lk = spawn("--db", db_path)
    n = 500
    lk.write_raw("".join(json.dumps({"jsonrpc": "2.0", "id": i, "method": "ping", "params": {"echo": i}}) + "\n"
                         for i in range(1, n + 1)))
    assert lk.close(20) == 0
    lk.wait_eof(10)
    assert_clean_stdout(lk)
    assert lk.reply_order == list(range(1, n + 1))
    assert all(lk.replies[i]["result"] == {"echo": i} for i in range(1, n + 1))


def test_exit_notification_exits_0_and_answers_nothing_after(spawn):
    lk = spawn("--in-memory")
    lk.write_raw(
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"echo": "before"}}) + "\n"
        + json.dumps({"jsonrpc": "2.0", "method": "exit"}) + "\n"
        + json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"echo": "after"}}) + "\n"
        + json.dumps({"jsonrpc": "2.0", "id": 3, "method": "admin/createUser", "params": {"userId": "x"}}) + "\n")
    # stdin stays open: the process must leave on its own.
    assert lk.wait(10) == 0
    lk.wait_eof(10)
    assert_clean_stdout(lk)
    assert lk.reply_order == [1], [json.loads(l) for l in lk.raw_lines]
    assert lk.replies[1]["result"] == {"echo": "before"}


def test_exit_notification_while_idle(spawn, db_path):
    lk = spawn("--db", db_path)
    assert lk.ok("ping") == {"echo": None}
    lk.notify("exit")
    assert lk.wait(10) == 0
    lk.wait_eof(10)
    assert_clean_stdout(lk)
    assert len(lk.raw_lines) == 1


# --------------------------------------------------------------------------
# Test modes need --in-memory
# --------------------------------------------------------------------------
@pytest.mark.parametrize("args", [
    ["--seed", "1"],
    ["--seed", "1", "--db", "{db}"],
    ["--clock", "manual"],
    ["--clock", "manual", "--db", "{db}"],
    ["--seed", "7", "--clock", "manual", "--db", "{db}"],
])
def test_test_modes_without_in_memory_exit_2(bin_path, workdir, db_path, args):
    args = [a.replace("{db}", db_path) for a in args]
    xdg = os.path.join(workdir, "xdg")
    env = dict(os.environ, XDG_DATA_HOME=xdg, HOME=os.path.join(workdir, "home"))
    p = subprocess.run([bin_path, *args], input=b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n',
                       capture_output=True, timeout=20, env=env)
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert p.stdout == b"", p.stdout               # nothing served
    assert b"--in-memory" in p.stderr, p.stderr    # says why
    # No store was opened or created: neither the named file nor the default one.
    assert not os.path.exists(db_path), "a store file was created by a refused test-mode start"
    assert not os.path.exists(os.path.join(xdg, "latchkey")), "the default store was created"


@pytest.mark.parametrize("args", [["--seed", "1"], ["--clock", "manual"], ["--seed", "1", "--clock", "manual"]])
def test_test_modes_with_in_memory_serve(spawn, args):
    lk = spawn("--in-memory", *args)
    info = lk.ok("server/info")
    assert info["store"] == "memory"
    assert lk.close() == 0


# --------------------------------------------------------------------------
# The store file is created with mode 0600, whatever the umask
# --------------------------------------------------------------------------
def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("umask", [0o000, 0o022])
def test_db_file_created_0600(spawn, workdir, umask):
    db = os.path.join(workdir, f"fresh-{umask:o}.sqlite")
    lk = spawn("--db", db, preexec_fn=lambda: os.umask(umask))
    lk.ok("admin/createUser", userId="mode-check")
    assert os.path.exists(db)
    assert _mode(db) == 0o600, oct(_mode(db))
    # While the process runs, the WAL and shared-memory files carry the same data: not group/world readable.
    for suffix in ("-wal", "-shm"):
        if os.path.exists(db + suffix):
            assert _mode(db + suffix) & 0o077 == 0, f"{suffix}: {oct(_mode(db + suffix))}"
    assert lk.close() == 0
    assert _mode(db) == 0o600, oct(_mode(db))


def test_a_relative_xdg_data_home_is_ignored_as_the_xdg_specification_says(spawn, workdir):
    home = os.path.join(workdir, "home-rel")
    lk = spawn(env=dict(os.environ, XDG_DATA_HOME="relxdg", HOME=home), cwd=workdir)
    lk.ok("admin/createUser", userId="relative")
    assert os.path.isfile(os.path.join(home, ".local", "share", "latchkey", "latchkey.sqlite"))
    assert not os.path.exists(os.path.join(workdir, "relxdg"))
    assert lk.close() == 0


def test_default_store_path_created_0600(spawn, workdir):
    xdg = os.path.join(workdir, "xdg")
    env = dict(os.environ, XDG_DATA_HOME=xdg, HOME=os.path.join(workdir, "home"))
    lk = spawn(env=env, preexec_fn=lambda: os.umask(0))
    assert lk.ok("server/info")["store"] == "sqlite"
    lk.ok("admin/createUser", userId="default-path")
    db = os.path.join(xdg, "latchkey", "latchkey.sqlite")
    assert os.path.isfile(db)
    assert _mode(db) == 0o600, oct(_mode(db))
    assert lk.close() == 0
