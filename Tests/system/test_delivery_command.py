"""--deliver-command runs off the request path (issue 25, point 1): no request, response or
notification waits for a delivery; a command still running after 10 s is stopped with every
process it started; a failure is audited `deliveryFailed`; a command that exits 0 and leaves a
child behind has succeeded and holds nothing; the process exits promptly at end of input.

The time bounds are correctness properties, not benchmarks: the server must answer while a
delivery is under way."""
import os
import time

FAST = 2.0  # a request on an idle in-memory server answers in milliseconds; 2 s is generous


def delivery_failures(lk):
    return [e.get("detail") for e in lk.ok("audit/list")["events"] if e["type"] == "deliveryFailed"]


def wait_for_failures(lk, count, timeout):
    deadline = time.monotonic() + timeout
    while True:
        failed = delivery_failures(lk)
        if len(failed) >= count or time.monotonic() > deadline:
            return failed
        time.sleep(0.2)


def timed(lk, method, **params):
    started = time.monotonic()
    result = lk.ok(method, **params)
    return result, time.monotonic() - started


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for our purpose (it only waits for its parent, init, to reap it).
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_slow_command_holds_no_request_and_is_stopped_with_its_processes(spawn, workdir):
    pidfile = os.path.join(workdir, "grandchild.pid")
    slow = spawn("--in-memory", "--deliver-command", "sleep 30; true", name="slow")
    # The same, with a grandchild whose pid we can see, and one that left the command's process group (setsid): both must be
    # stopped with the command ("stopped together with every process it started").
    family = spawn("--in-memory", "--deliver-command",
                   f"sleep 300 & echo $! > {pidfile}.tmp; mv {pidfile}.tmp {pidfile}; "
                   f"setsid sleep 301 & echo $! > {pidfile}.setsid.tmp; mv {pidfile}.setsid.tmp {pidfile}.setsid; wait; true",
                   name="family")
    for lk in (slow, family):
        lk.ok("admin/createUser", userId="lee", email="lee@example.com")
    started = time.monotonic()
    for lk in (slow, family):
        _, took = timed(lk, "reset/requestPasswordReset", email="lee@example.com", redirectUrl="app://r")
        assert took < FAST, took
    for i in range(5):
        for lk in (slow, family):
            result, took = timed(lk, "ping", echo=i)
            assert result == {"echo": i} and took < FAST, took
    # A second delivery while the first is under way does not wait either (another user: the
    # first one's sends are limited to one per 30 s).
    slow.ok("admin/createUser", userId="max", email="max@example.com")
    _, took = timed(slow, "reset/requestPasswordReset", email="max@example.com", redirectUrl="app://r")
    assert took < FAST, took
    assert delivery_failures(slow) == []
    deadline = time.monotonic() + 5
    while not (os.path.exists(pidfile) and os.path.exists(pidfile + ".setsid")) and time.monotonic() < deadline:
        time.sleep(0.05)
    grandchild = int(open(pidfile).read())
    escaped = int(open(pidfile + ".setsid").read())
    assert pid_alive(grandchild) and pid_alive(escaped)
    stopped = False
    try:
        _the_slow_command_is_stopped(slow, family, started, grandchild, escaped)
        stopped = True
    finally:
        for pid in () if stopped else (grandchild, escaped):  # a failed test leaves no sleeper behind
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass


def _the_slow_command_is_stopped(slow, family, started, grandchild, escaped):
    # Stopped after 10 s (SIGTERM to the group, SIGKILL a second later) and audited.
    failed = wait_for_failures(slow, 2, timeout=16)
    elapsed = time.monotonic() - started
    assert failed == ["passwordReset", "passwordReset"], failed
    assert 9.5 < elapsed < 16, elapsed
    assert wait_for_failures(family, 1, timeout=5) == ["passwordReset"]
    assert not pid_alive(grandchild), "a process the command started survived its stop"
    assert not pid_alive(escaped), "a process the command started in a session of its own survived its stop"
    stderr = slow.stderr_bytes()
    assert b"delivery command was stopped" in stderr
    # No secret in the log: the reset code never appears.
    code = [m for m in slow.ok("delivery/list")["messages"] if m.get("code")][0]["code"]
    assert code.encode() not in stderr
    for lk in (slow, family):
        assert lk.close(timeout=5) == 0


def test_a_child_left_behind_holds_nothing_and_is_no_failure(spawn):
    lk = spawn("--in-memory", "--deliver-command", "sleep 14 & exit 0")
    lk.ok("admin/createUser", userId="kim", email="kim@example.com")
    _, took = timed(lk, "reset/requestPasswordReset", email="kim@example.com", redirectUrl="app://r")
    assert took < FAST, took
    for i in range(5):
        result, took = timed(lk, "ping", echo=i)
        assert result == {"echo": i} and took < FAST, took
    time.sleep(1)
    assert delivery_failures(lk) == []
    # End of input: the process exits at once, and its stdout closes though the child lives on.
    started = time.monotonic()
    assert lk.close(timeout=5) == 0
    lk.wait_eof(timeout=1)
    assert time.monotonic() - started < FAST
    assert b"delivery command" not in lk.stderr_bytes()


def test_end_of_input_with_a_delivery_under_way_exits_within_the_grace(spawn):
    """At exit a delivery under way gets 2 s more, then its group is stopped (logged as failed)."""
    lk = spawn("--in-memory", "--deliver-command", "sleep 30; true")
    lk.ok("admin/createUser", userId="kim", email="kim@example.com")
    lk.ok("reset/requestPasswordReset", email="kim@example.com", redirectUrl="app://r")
    started = time.monotonic()
    assert lk.close(timeout=10) == 0
    took = time.monotonic() - started
    assert 1.5 < took < 5, took
    assert b"delivery command was stopped" in lk.stderr_bytes()


def test_a_quick_command_at_end_of_input_still_delivers(spawn, workdir):
    record = os.path.join(workdir, "messages.jsonl")
    lk = spawn("--in-memory", "--deliver-command", f"cat >> {record}")
    lk.ok("admin/createUser", userId="kim", email="kim@example.com")
    lk.ok("reset/requestPasswordReset", email="kim@example.com", redirectUrl="app://r")
    started = time.monotonic()
    assert lk.close(timeout=10) == 0
    assert time.monotonic() - started < FAST
    assert len(open(record).read().splitlines()) == 1


def test_the_command_holds_no_descriptor_of_the_process_but_stderr(workdir, bin_path):
    """README: each command runs "with no descriptor of the process but stderr" — not even one the process inherited without
    close-on-exec (an embedding app's pipe): its fds are 0 (the message), 1 and 2 (the process's stderr), and what it opens."""
    import fcntl
    import subprocess
    listing = os.path.join(workdir, "fds")
    read_end, pipe_end = os.pipe()
    write_end = fcntl.fcntl(pipe_end, fcntl.F_DUPFD, 57)  # above any the command could open itself, none of ours closed
    os.set_inheritable(write_end, True)
    os.close(pipe_end)
    command = f"ls /proc/self/fd > {listing}.tmp; mv {listing}.tmp {listing}"
    lk = subprocess.Popen([bin_path, "--in-memory", "--deliver-command", command], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, pass_fds=(write_end,))
    try:
        lk.communicate(b'{"jsonrpc":"2.0","id":1,"method":"admin/createUser","params":{"userId":"a","email":"a@example.com"}}\n'
                       b'{"jsonrpc":"2.0","id":2,"method":"reset/requestPasswordReset",'
                       b'"params":{"email":"a@example.com","redirectUrl":"app://r"}}\n', timeout=20)
    finally:
        os.close(read_end)
        os.close(write_end)
    deadline = time.monotonic() + 10
    while not os.path.exists(listing) and time.monotonic() < deadline:
        time.sleep(0.05)
    fds = sorted(int(name) for name in open(listing).read().split())
    # ls's own directory handle is the one more than 0, 1 and 2.
    assert fds[:3] == [0, 1, 2] and len(fds) <= 4 and write_end not in fds, (fds, write_end)


def children(pid):
    """The pids of a process's children (every thread's)."""
    found = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                found.update(int(p) for p in f.read().split())
        except OSError:
            pass
    return found


def test_at_most_16_commands_run_at_once_and_the_rest_wait_their_turn(spawn):
    # A command that hangs holds a thread and its processes for 10 s: a flood of messages must not hold as many.
    lk = spawn("--in-memory", "--deliver-command", "sleep 20; true")
    for n in range(20):
        lk.ok("admin/createUser", userId=f"u{n}", email=f"u{n}@example.com")
        lk.ok("reset/requestPasswordReset", email=f"u{n}@example.com", redirectUrl="app://r")
    deadline = time.monotonic() + 5
    while len(children(lk.p.pid)) < 16 and time.monotonic() < deadline:
        time.sleep(0.05)
    for _ in range(10):
        assert len(children(lk.p.pid)) == 16
        assert lk.ok("ping", echo=1) == {"echo": 1}
        time.sleep(0.1)
    assert delivery_failures(lk) == []
    # At end of input, the running ones are stopped within the grace, and the four waiting never ran.
    started = time.monotonic()
    assert lk.close() == 0
    assert time.monotonic() - started < 8
