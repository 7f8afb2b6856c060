"""The commit that is cut off in flight (issue 35, point 12).

A COMMIT whose connection is cut while the server may still be committing is decided only by
reading PostgreSQL's rules; this tests it from the outside. A private cluster listens on
127.0.0.1 (a port of its own; the suite's cluster listens on no TCP port) and a small TCP proxy
sits between latchkey and it. Armed before a call, the proxy waits for the COMMIT of the call's
read-write transaction and cuts the connection there, at random:

- `before`: the messages ahead of the COMMIT go through, the COMMIT does not, both sockets close
  (the server rolls the transaction back);
- `during`: the same, with a part of the COMMIT's message sent (the server never reads it whole);
- `after`: the COMMIT goes through and both sockets close at once, its answer never relayed;
- `after-reset`: the same, the server's socket closed with a reset (SO_LINGER 0);
- `after-reply`: the COMMIT goes through, the proxy waits until the server's answer to it has
  arrived (so the commit certainly landed), relays none of it and closes both sockets.

In `after` and `after-reset` the server may or may not read the COMMIT before it finds the
connection gone (a close with unread data, like SO_LINGER 0, sends a reset), so the commit mostly
lands and now and then does not. The call must answer its result when the transaction is in the
database and `storeUnavailable` when it is not, never the other way round; 100 runs, both outcomes seen. The database is read
once the server process of the cut connection has exited: nothing can commit after that.

What the COMMIT looks like on the wire: latchkey speaks through libpq, and sends a transaction's
COMMIT in the round trip of its last writes (pipeline mode, extended protocol): Parse (the first
time on a connection: statement `lkN` with the text "COMMIT"), Bind of that statement to a portal,
Describe, Execute of the portal, then Sync. The proxy follows the frontend protocol (the untyped
startup messages, then typed ones): it remembers each prepared statement's text and each
portal's statement, and the message that carries the COMMIT is the Execute of a portal bound to a
statement whose text is COMMIT (or a simple Query holding a COMMIT). Only a COMMIT that ends a
read-write transaction counts (its BEGIN was not READ ONLY): a read's COMMIT writes nothing.

The seed of the random choices is printed on failure; LATCHKEY_CUT_SEED=N replays a run.
Without PostgreSQL's binaries (initdb, pg_ctl, psql) the test skips.
"""
import glob
import os
import random
import re
import select
import shutil
import socket
import struct
import subprocess
import tempfile
import threading
import time

import pytest

from lkharness import loopback_listener, reason

RUNS = 100
VARIANTS = ("before", "during", "after", "after-reset", "after-reply")


def _bindir():
    """PostgreSQL's newest server binaries (as Tests/pg/cluster.sh finds them), or None."""
    def version(path):
        return [int(p) if p.isdigit() else p for p in re.split(r"[.]", path.split("/")[-2])]
    for d in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=version, reverse=True):
        if all(os.access(os.path.join(d, b), os.X_OK) for b in ("initdb", "pg_ctl", "psql")):
            return d
    return None


BINDIR = _bindir()

pytestmark = pytest.mark.skipif(BINDIR is None, reason="PostgreSQL's binaries are not installed (Tests/pg/cluster.sh install)")


# ---- a private cluster on 127.0.0.1 ----------------------------------------------------------

def _as_owner(cmd):
    """The server refuses to run as root: as root, commands run as `postgres` (as cluster.sh does)."""
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def tcp_cluster():
    """A cluster of its own listening on 127.0.0.1 (and on a Unix socket in its dir); its port."""
    d = tempfile.mkdtemp(prefix="latchkey-pgtcp.")
    os.chmod(d, 0o755)
    if os.geteuid() == 0:
        shutil.chown(d, "postgres", "postgres")
    data = os.path.join(d, "data")
    started = False
    try:
        subprocess.run(_as_owner([f"{BINDIR}/initdb", "-D", data, "-U", "postgres", "-A", "trust", "--no-sync",
                                  "-E", "UTF8", "--locale=C"]), check=True, capture_output=True)
        for _ in range(3):   # (another process may take the free port first)
            port = _free_port()
            options = (f"-c listen_addresses='127.0.0.1' -p {port} -k {d} -c fsync=off -c synchronous_commit=off "
                       "-c full_page_writes=off -c max_connections=100 -c shared_buffers=64MB")
            started = subprocess.run(_as_owner([f"{BINDIR}/pg_ctl", "-D", data, "-l", os.path.join(d, "server.log"),
                                                "-w", "-o", options, "start"]), capture_output=True).returncode == 0
            if started:
                break
        if not started:
            with open(os.path.join(d, "server.log"), errors="replace") as f:
                pytest.fail(f"the private TCP cluster did not start:\n{f.read()[-3000:]}")
        yield port
    finally:
        if started:
            subprocess.run(_as_owner([f"{BINDIR}/pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"]),
                           capture_output=True)
        shutil.rmtree(d, ignore_errors=True)


def psql(port, *sqls):
    """Each statement run in a transaction of its own (one psql); their outputs, one per statement."""
    args = [f"{BINDIR}/psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1",
            f"postgresql://postgres@127.0.0.1:{port}/postgres"]
    for sql in sqls:
        args += ["-c", sql]
    return subprocess.run(args, check=True, capture_output=True, text=True, timeout=30).stdout.split("\n")[:len(sqls)]


# ---- the proxy -----------------------------------------------------------------------------

SSL_REQUEST, GSSENC_REQUEST, CANCEL_REQUEST = 80877103, 80877104, 80877102
COMMIT_TEXT = re.compile(r"^(COMMIT|END)(\s+(WORK|TRANSACTION))?$")
BEGIN_TEXT = re.compile(r"^(BEGIN|START\s+TRANSACTION)\b")
ENDS_TRANSACTION = re.compile(r"^(COMMIT|END|ROLLBACK|ABORT)\b")


def _statements(sql):
    """The statements of a text, normalised (upper case, single spaces, no trailing ';')."""
    return [" ".join(s.split()).upper() for s in sql.split(";") if s.strip()]


def _cstring(body, at):
    end = body.index(b"\0", at)
    return body[at:end].decode("utf-8", "replace"), end + 1


class Frontend:
    """The client's side of one connection: its messages cut out of the byte stream, and what
    the server will run for each (prepared statements, portals, the open transaction)."""

    def __init__(self):
        self.buffer = b""
        self.startup = True
        self.single_byte_answers = 0   # SSLRequest / GSSENCRequest: the server answers one byte
        self.application = None
        self.statements = {}           # prepared statement name -> its text
        self.portals = {}              # portal name -> its statement's text
        self.read_write = None         # the open transaction: None (none), True, False (READ ONLY)

    def messages(self, data):
        """The complete messages `data` ends, as (type, body, raw bytes); type None at startup."""
        self.buffer += data
        out = []
        while True:
            if self.startup:
                if len(self.buffer) < 4:
                    break
                length = struct.unpack("!I", self.buffer[:4])[0]
                if len(self.buffer) < length:
                    break
                raw, self.buffer = self.buffer[:length], self.buffer[length:]
                code = struct.unpack("!I", raw[4:8])[0]
                if code in (SSL_REQUEST, GSSENC_REQUEST):
                    self.single_byte_answers += 1
                elif code != CANCEL_REQUEST:
                    self.startup = False
                    fields = raw[8:].split(b"\0")
                    params = dict(zip(fields[0::2], fields[1::2]))
                    self.application = params.get(b"application_name", b"").decode("utf-8", "replace")
                out.append((None, raw[4:], raw))
            else:
                if len(self.buffer) < 5:
                    break
                length = struct.unpack("!I", self.buffer[1:5])[0]
                if len(self.buffer) < 1 + length:
                    break
                raw, self.buffer = self.buffer[:1 + length], self.buffer[1 + length:]
                out.append((raw[:1], raw[5:], raw))
        return out

    def runs(self, kind, body):
        """The statement texts this message makes the server run (Parse, Bind and the rest run none)."""
        if kind == b"P":
            name, at = _cstring(body, 0)
            self.statements[name] = _cstring(body, at)[0]
        elif kind == b"B":
            portal, at = _cstring(body, 0)
            self.portals[portal] = self.statements.get(_cstring(body, at)[0], "")
        elif kind == b"C":   # Close of a statement or a portal
            (self.statements if body[:1] == b"S" else self.portals).pop(_cstring(body, 1)[0], None)
        elif kind == b"E":
            return _statements(self.portals.get(_cstring(body, 0)[0], ""))
        elif kind == b"Q":
            return _statements(_cstring(body, 0)[0])
        return []

    def commits_a_write(self, kind, body):
        """Whether this message runs a COMMIT of a read-write transaction; follows the
        transaction either way."""
        found = False
        for sql in self.runs(kind, body):
            if BEGIN_TEXT.match(sql):
                self.read_write = "READ ONLY" not in sql
            elif ENDS_TRANSACTION.match(sql):
                found = found or (COMMIT_TEXT.match(sql) is not None and self.read_write is True)
                self.read_write = None
        return found


class Backend:
    """The server's side of one connection, cut into messages (only to find the COMMIT's answer)."""

    def __init__(self, frontend):
        self.frontend = frontend
        self.buffer = b""

    def messages(self, data):
        self.buffer += data
        out = []
        while self.buffer:
            if self.frontend.single_byte_answers:
                self.frontend.single_byte_answers -= 1
                out.append((None, self.buffer[:1]))
                self.buffer = self.buffer[1:]
                continue
            if len(self.buffer) < 5:
                break
            length = struct.unpack("!I", self.buffer[1:5])[0]
            if len(self.buffer) < 1 + length:
                break
            out.append((self.buffer[:1], self.buffer[5:1 + length]))
            self.buffer = self.buffer[1 + length:]
        return out


class CommitCutter:
    """A TCP proxy on 127.0.0.1 to the server at `upstream`; `arm(variant)` cuts the next COMMIT
    of a read-write transaction, on whichever connection it comes, as `variant` says."""

    REPLY_WAIT = 15.0

    def __init__(self, upstream):
        self.upstream = upstream
        self.lock = threading.Condition()
        self.armed = None
        self.cuts = []          # one dict per cut
        self.errors = []        # what went wrong inside the proxy's threads
        self.sockets = set()
        self.closed = False
        self.listener = loopback_listener(self._serve)
        self.port = self.listener.getsockname()[1]

    def arm(self, variant, part=0.5):
        """`part`: for `during`, how much of the COMMIT's message goes through (0 to 1; at least a byte, never all)."""
        with self.lock:
            assert self.armed is None, "armed twice"
            self.armed = (variant, part)

    def _take(self):
        with self.lock:
            variant, self.armed = self.armed, None
            return variant

    def _record(self, cut):
        with self.lock:
            self.cuts.append(cut)
            self.lock.notify_all()

    def close(self):
        with self.lock:
            self.closed = True
            sockets = list(self.sockets)
        for s in [self.listener, *sockets]:
            try:
                s.close()
            except OSError:
                pass

    def _serve(self, client):
        server = None
        try:
            server = socket.create_connection(("127.0.0.1", self.upstream), timeout=10)
            server.settimeout(None)
            for s in (client, server):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self.lock:
                if self.closed:
                    return
                self.sockets.update((client, server))
            self._relay(client, server)
        except OSError:
            pass   # (a socket closed at teardown, or a peer gone)
        except Exception as e:  # noqa: BLE001 — reported by the test
            with self.lock:
                self.errors.append(repr(e))
        finally:
            for s in (client, server):
                if s is not None:
                    try:
                        s.close()
                    except OSError:
                        pass
            with self.lock:
                self.sockets.discard(client)
                self.sockets.discard(server)

    def _relay(self, client, server):
        front = Frontend()
        back = Backend(front)
        while True:
            readable, _, _ = select.select([client, server], [], [])
            if server in readable:
                data = server.recv(65536)
                if not data:
                    return
                back.messages(data)   # (kept in step, for a cut's wait for the COMMIT's answer)
                client.sendall(data)
            if client in readable:
                data = client.recv(65536)
                if not data:
                    return
                messages = front.messages(data)
                out = bytearray()
                for i, (kind, body, raw) in enumerate(messages):
                    armed = self._take() if front.commits_a_write(kind, body) else None
                    if armed is None:
                        out += raw
                        continue
                    self._cut(*armed, client, server, back, out, messages[i:], front.application)
                    return
                if out:
                    server.sendall(bytes(out))

    def _cut(self, variant, part, client, server, back, ahead, rest, application):
        """Cuts the connection at the COMMIT, the first of `rest`; `ahead`: the messages before it."""
        kind, _, raw = rest[0]
        cut = {"variant": variant, "message": (kind or b"").decode(), "application": application,
               "server_port": server.getsockname()[1], "answer": None}
        if variant == "before":
            server.sendall(bytes(ahead))
        elif variant == "during":
            length = min(max(int(len(raw) * part), 1), len(raw) - 1)
            cut["sent"] = f"{length} of {len(raw)} bytes"
            server.sendall(bytes(ahead) + raw[:length])
        else:
            # The COMMIT and what came with it (the Sync that ends the pipeline): the server runs
            # the COMMIT when its Execute arrives; a Flush makes it send the answer even without Sync.
            sent = bytes(ahead) + b"".join(raw for _, _, raw in rest)
            if variant == "after-reply" and not any(kind in (b"S", b"Q") for kind, _, _ in rest):
                sent += b"H\0\0\0\4"
            server.sendall(sent)
            if variant == "after-reset":
                server.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            elif variant == "after-reply":
                cut["answer"] = self._commit_answer(server, back)
        server.close()
        self._record(cut)
        client.close()

    def _commit_answer(self, server, back):
        """Reads (and relays nothing of) what the server answers, up to its answer to the COMMIT."""
        deadline = time.monotonic() + self.REPLY_WAIT
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([server], [], [], left)[0]:
                return "timeout"
            data = server.recv(65536)
            if not data:
                return "eof"
            for kind, body in back.messages(data):
                if kind == b"C" and body.rstrip(b"\0") in (b"COMMIT", b"ROLLBACK"):
                    return body.rstrip(b"\0").decode()
                if kind in (b"E", b"Z"):
                    return {b"E": "error", b"Z": "ready"}[kind]


@pytest.fixture
def cutter(tcp_cluster):
    proxy = CommitCutter(tcp_cluster)
    yield proxy
    proxy.close()


# ---- the test ------------------------------------------------------------------------------

def gone_then_count(port, server_port, user, timeout=20):
    """Once the server process of the cut connection has exited (no later commit can come), the
    number of rows of `user` (0 or 1)."""
    deadline = time.monotonic() + timeout
    while True:
        alive, count = psql(port, f"SELECT count(*) FROM pg_stat_activity WHERE client_port = {server_port}",
                            f"SELECT count(*) FROM \"user\" WHERE \"id\" = '{user}'")
        if alive == "0":
            return int(count)
        if time.monotonic() > deadline:
            pytest.fail(f"the server process of the cut connection (client port {server_port}) never exited")
        time.sleep(0.02)


def test_a_commit_cut_off_in_flight_answers_what_the_database_holds(spawn, workdir, tcp_cluster, cutter):
    seed = int(os.environ.get("LATCHKEY_CUT_SEED") or random.SystemRandom().randrange(2 ** 32))
    rng = random.Random(seed)
    lk = spawn("--db", f"postgresql://postgres@127.0.0.1:{cutter.port}/postgres",
               "--key-file", os.path.join(workdir, "latchkey.key"), "--log-level", "debug", name="cut")
    # Connected, migrated, the commit marker's row made: what follows runs on a warm connection.
    lk.ok("admin/createUser", userId="warm-up")
    assert not cutter.cuts

    def log_tail():
        return lk.stderr_bytes().decode("utf-8", "replace")[-6000:]

    started = time.monotonic()
    seen = {}   # (variant, answer) -> runs
    messages = {}   # the type of the message that carried the COMMIT -> runs
    for run in range(RUNS):
        variant = rng.choice(VARIANTS)
        user = f"cut-{run:03d}"
        cutter.arm(variant, rng.random())
        reply = lk.recv(lk.send("admin/createUser", {"userId": user}), timeout=40)
        context = f"(seed {seed}, run {run}, variant {variant}; replay with LATCHKEY_CUT_SEED={seed})"
        assert not cutter.errors, f"the proxy failed: {cutter.errors} {context}"
        assert len(cutter.cuts) == run + 1, \
            f"the call's COMMIT was not cut: {reply}, cuts {cutter.cuts[-2:]} {context}\n{log_tail()}"
        cut = cutter.cuts[-1]
        answer = reason(reply)
        there = gone_then_count(tcp_cluster, cut["server_port"], user)
        assert answer in ("ok", "storeUnavailable"), f"answered {reply} {context}\n{log_tail()}"
        assert (answer == "ok") == (there == 1), (
            f"latchkey answered {reply}, but the database holds {there} row(s) of {user!r}: "
            f"cut {cut} {context}\n{log_tail()}")
        if cut["variant"] in ("before", "during"):
            assert there == 0, f"a COMMIT never forwarded committed: {cut} {context}"
        if cut["variant"] == "after-reply":
            assert cut["answer"] == "COMMIT" and there == 1, \
                f"the server answered the forwarded COMMIT with {cut['answer']}, {there} row(s): {cut} {context}"
        seen[(variant, answer)] = seen.get((variant, answer), 0) + 1
        messages[cut["message"]] = messages.get(cut["message"], 0) + 1
    elapsed = time.monotonic() - started

    answers = {answer for _, answer in seen}
    summary = ", ".join(f"{v}/{a}: {n}" for (v, a), n in sorted(seen.items()))
    print(f"\n{RUNS} cut-off commits in {elapsed:.1f}s (seed {seed}): {summary}; COMMIT carried by {messages}")
    assert answers == {"ok", "storeUnavailable"}, f"both outcomes must be seen: {summary} (seed {seed})"
    # The process works on, and holds exactly what it acknowledged.
    lk.ok("admin/createUser", userId="after-the-cuts")
    acknowledged = sum(n for (_, a), n in seen.items() if a == "ok")
    assert psql(tcp_cluster, "SELECT count(*) FROM \"user\" WHERE \"id\" LIKE 'cut-%'") == [str(acknowledged)]
