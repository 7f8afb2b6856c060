"""A COMMIT cut off by a failover, made deterministic (issue 28's failover, CI failure of stop 33).

The primary flushes a transaction's commit record and waits for its synchronous standby, which
never receives it (the primary's WAL sender is stopped); the primary dies; the standby is
promoted without the transaction. Transaction ids are not unique across that: the new primary
hands the lost transaction's id to the next transactions it runs, so asking the new primary
whether that id committed (txid_status) can answer "committed" for a transaction that is not
there. The latchkey process must answer storeUnavailable (nothing written) — or, had it
committed, ok — and the database must agree with the answer.

Each test spends its cluster (the primary is dead), so `make failover` runs each test of this
file on a primary and standby of its own. Without LATCHKEY_TEST_POSTGRES_HA they skip.
"""
import os
import signal
import socket
import subprocess
import time
import uuid

import pytest

from lkharness import ProtocolFailure, reason
from test_postgres import psql, with_database

HA = os.environ.get("LATCHKEY_TEST_POSTGRES_HA")
PRIMARY = os.environ.get("LATCHKEY_PG_PRIMARY")
STANDBY = os.environ.get("LATCHKEY_PG_STANDBY")
CLUSTER_SH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pg", "cluster.sh")

pytestmark = pytest.mark.skipif(not HA, reason="LATCHKEY_TEST_POSTGRES_HA is not set (make failover starts a primary and a standby)")


def only(host, database):
    """The URI of one server of the pair."""
    return f"postgresql:///{database}?host={host}&user=postgres"


def wait_for(what, predicate, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if predicate():
                return
        except subprocess.CalledProcessError:
            pass  # (the standby has not replayed the table yet)
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}")


def started(spawn, workdir, user):
    """A database, a process on the pair that has written one user, and the request of `user`
    sent while the primary's WAL sender is stopped: the request's commit is flushed on the
    primary and waits for the standby. (process, database, request id, WAL sender's pid)"""
    name = "lk_fc_" + uuid.uuid4().hex[:10]
    psql(f"CREATE DATABASE {name}", HA)
    lk = spawn("--db", with_database(HA, name), "--key-file", os.path.join(workdir, "latchkey.key"), name="W")
    lk.ok("admin/createUser", userId="before")
    wait_for("the standby to have the first user",
             lambda: psql('SELECT count(*) FROM "user"', only(STANDBY, name)) == "1")
    walsender = int(psql("SELECT pid FROM pg_stat_replication WHERE application_name = 's1'", HA))
    os.kill(walsender, signal.SIGSTOP)
    sent = lk.send("admin/createUser", {"userId": user})
    wait_for("the commit to wait for the standby", lambda: psql(
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'", only(PRIMARY, "postgres")) == "1")
    return lk, name, sent, walsender


def fail_over(lk, name, stopped):
    """With `lk` stopped: the primary dies (with `stopped`, a stopped process of it), the standby is
    promoted, and the new primary runs transactions that take the ids after the last it saw."""
    lk.signal(signal.SIGSTOP)
    try:
        stopping = subprocess.Popen(["bash", CLUSTER_SH, "kill", PRIMARY])
        time.sleep(0.3)
        os.kill(stopped, signal.SIGKILL)
        stopping.wait(30)
        subprocess.run(["bash", CLUSTER_SH, "promote", STANDBY], check=True)
        for _ in range(20):
            psql("SELECT txid_current()", only(STANDBY, name))
    finally:
        lk.signal(signal.SIGCONT)


def test_a_commit_the_standby_never_had_is_not_acknowledged(spawn, workdir):
    lk, name, sent, walsender = started(spawn, workdir, "cut-off")
    fail_over(lk, name, walsender)

    reply = lk.recv(sent, timeout=30)
    there = psql('SELECT count(*) FROM "user" WHERE "id" = \'cut-off\'', only(STANDBY, name)) == "1"
    assert not there, "the standby never received the transaction, yet it is there"
    assert reason(reply) == "storeUnavailable", f"a write the new primary does not have was answered {reply}"
    # The same call made again answers as if for the first time, and the process works on.
    assert reason(lk.request("admin/createUser", userId="cut-off")) == "ok"
    assert psql('SELECT count(*) FROM "user"', only(STANDBY, name)) == "2"


def test_a_commit_the_standby_had_is_acknowledged_though_its_answer_was_lost(spawn, workdir):
    lk, name, sent, walsender = started(spawn, workdir, "committed")
    # The commit's backend stops; the standby then gets the commit, and the primary dies before
    # the backend could answer.
    backend = int(psql("SELECT pid FROM pg_stat_activity WHERE wait_event = 'SyncRep'", only(PRIMARY, "postgres")))
    os.kill(backend, signal.SIGSTOP)
    os.kill(walsender, signal.SIGCONT)
    wait_for("the standby to have the transaction",
             lambda: psql('SELECT count(*) FROM "user" WHERE "id" = \'committed\'', only(STANDBY, name)) == "1")
    fail_over(lk, name, backend)

    reply = lk.recv(sent, timeout=30)
    assert reason(reply) == "ok", f"a write the new primary has was answered {reply}"
    assert reason(lk.request("admin/createUser", userId="committed")) != "ok"
    assert psql('SELECT count(*) FROM "user"', only(STANDBY, name)) == "2"


def cut_connections(pid):
    """Shuts down every socket of process `pid` (its PostgreSQL connections: its stdio are pipes), from outside it:
    pidfd_getfd(2) duplicates each into this process, and shutdown(2) acts on the socket both descriptors share. The
    server's end stays as it is: a backend waiting for its standby goes on waiting."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    cut = 0
    pidfd = os.pidfd_open(pid)
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                if not os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:"):
                    continue
            except FileNotFoundError:
                continue
            mine = libc.syscall(438, pidfd, int(fd), 0)  # SYS_pidfd_getfd (the same number on every architecture)
            assert mine >= 0, f"pidfd_getfd: {os.strerror(ctypes.get_errno())} (the test needs to be allowed to ptrace the process)"
            with socket.socket(fileno=mine) as sock:
                sock.shutdown(socket.SHUT_RDWR)
            cut += 1
    finally:
        os.close(pidfd)
    assert cut > 0, "the process had no socket to cut"


def test_a_commit_still_waiting_for_its_standby_is_waited_for_past_the_budget(spawn, workdir):
    """The connection of a COMMIT that waits for its standby is lost while the primary lives: the commit is still in flight,
    and whether it commits is known only when it ends. The call waits for that (past the 10 s in which a server must answer
    at all), then answers its result: answering storeUnavailable before would be wrong once the standby comes back."""
    lk, name, sent, walsender = started(spawn, workdir, "in-flight")
    cut_connections(lk.p.pid)
    # Its first lookup waits the whole budget (10 s) on the lock the COMMIT holds, then says it waits on: the old answer,
    # storeUnavailable, came at that moment instead.
    wait_for("the process to answer, or to wait on for the commit in flight",
             lambda: sent in lk.replies or "is still running on the server" in lk.stderr_bytes().decode(), timeout=15)
    with pytest.raises(ProtocolFailure, match="no reply"):
        reply = lk.recv(sent, timeout=1)
        pytest.fail(f"answered {reply} while its commit was still in flight")
    os.kill(walsender, signal.SIGCONT)
    reply = lk.recv(sent, timeout=30)
    assert reason(reply) == "ok", f"a write the primary committed was answered {reply}"
    assert psql('SELECT count(*) FROM "user" WHERE "id" = \'in-flight\'', only(PRIMARY, name)) == "1"
