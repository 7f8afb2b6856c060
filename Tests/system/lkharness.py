"""Process harness for the latchkey system tests.

`LK` runs one latchkey process with stdin/stdout pipes and stderr sent to a file.
A reader thread collects every stdout line (raw bytes, in order) and files the
parsed replies by id, so a test can pipeline requests to several processes
(`send` to each, then `recv` each) and every wait is bounded by a timeout.
Nothing here sleeps to synchronise: every wait is on a reply, EOF or exit.
"""
import json
import os
import socket
import subprocess
import threading
import time

INTERNAL_ERROR = -32603
DEFAULT_TIMEOUT = 20.0


def binary_path():
    """The binary under test; waits a little if it is being rebuilt."""
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.normpath(os.path.join(here, "..", "..", ".build", "debug", "latchkey"))
    path = os.environ.get("LATCHKEY_BIN", default)
    deadline = time.monotonic() + 60
    while not (os.path.isfile(path) and os.access(path, os.X_OK)):
        if time.monotonic() > deadline:
            raise RuntimeError(f"latchkey binary not found at {path}")
        time.sleep(0.5)
    return path


class ProtocolFailure(AssertionError):
    pass


class LK:
    """One latchkey process."""

    def __init__(self, *args, stderr_path=None, env=None, cwd=None, preexec_fn=None,
                 name="lk", binary=None):
        self.name = name
        self.args = list(args)
        self.stderr_path = stderr_path or os.devnull
        self._stderr_file = open(self.stderr_path, "ab")
        self.p = subprocess.Popen(
            [binary or binary_path(), *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr_file,
            env=env, cwd=cwd, preexec_fn=preexec_fn,
        )
        self.next_id = 0
        self.sent_methods = {}       # request id -> method
        self.raw_lines = []          # every stdout line, bytes, as read (with the newline)
        self.partial = b""           # trailing bytes with no newline at EOF
        self.replies = {}            # id -> reply
        self.reply_order = []        # ids in the order replies arrived
        self.notifications = []
        self.bad_lines = []          # stdout lines that are not JSON
        self.internal_errors = []    # every reply with code -32603
        self.eof = False
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    # ---- reading -------------------------------------------------------
    def _read(self):
        out = self.p.stdout
        try:
            while True:
                line = out.readline()
                if not line:
                    break
                if not line.endswith(b"\n"):
                    with self._cond:
                        self.partial = line
                    break
                self._file(line)
        except (OSError, ValueError):
            pass
        finally:
            with self._cond:
                self.eof = True
                self._cond.notify_all()

    def _file(self, line):
        with self._cond:
            self.raw_lines.append(line)
            text = line.strip()
            if not text:
                self._cond.notify_all()
                return
            try:
                msg = json.loads(text)
            except ValueError:
                self.bad_lines.append(line)
                self._cond.notify_all()
                return
            msgs = msg if isinstance(msg, list) else [msg]
            for m in msgs:
                if not isinstance(m, dict):
                    self.bad_lines.append(line)
                    continue
                if "id" in m and ("result" in m or "error" in m):
                    err = m.get("error")
                    if isinstance(err, dict) and err.get("code") == INTERNAL_ERROR:
                        self.internal_errors.append(m)
                    self.replies[m["id"]] = m
                    self.reply_order.append(m["id"])
                else:
                    self.notifications.append(m)
            self._cond.notify_all()

    # ---- writing -------------------------------------------------------
    def write_raw(self, data):
        if isinstance(data, str):
            data = data.encode()
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def send(self, method, params=None, id=None):
        """Writes one request; returns its id."""
        if id is None:
            self.next_id += 1
            id = self.next_id
        msg = {"jsonrpc": "2.0", "id": id, "method": method}
        if params:
            msg["params"] = params
        self.sent_methods[id] = method
        self.write_raw(json.dumps(msg) + "\n")
        return id

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params:
            msg["params"] = params
        self.write_raw(json.dumps(msg) + "\n")

    def recv(self, id, timeout=DEFAULT_TIMEOUT):
        """Waits for the reply with this id (a dict with result or error)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while id not in self.replies:
                if self.eof:
                    raise ProtocolFailure(
                        f"{self.name}: latchkey closed stdout (rc={self.p.poll()}) before answering id {id}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ProtocolFailure(f"{self.name}: no reply to id {id} within {timeout}s")
                self._cond.wait(left)
            return self.replies[id]

    def request(self, method, timeout=DEFAULT_TIMEOUT, **params):
        reply = self.recv(self.send(method, params), timeout)
        check_not_internal(reply, method)
        return reply

    def ok(self, method, timeout=DEFAULT_TIMEOUT, **params):
        reply = self.request(method, timeout, **params)
        if "error" in reply:
            raise ProtocolFailure(f"{self.name}: {method} failed: {reply['error']}")
        return reply["result"]

    def err(self, method, timeout=DEFAULT_TIMEOUT, **params):
        reply = self.request(method, timeout, **params)
        if "error" not in reply:
            raise ProtocolFailure(f"{self.name}: {method} succeeded ({reply['result']}) but an error was expected")
        return reply["error"]

    def wait_eof(self, timeout=DEFAULT_TIMEOUT):
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self.eof:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ProtocolFailure(f"{self.name}: stdout not closed within {timeout}s")
                self._cond.wait(left)

    # ---- lifetime ------------------------------------------------------
    def close_stdin(self):
        try:
            self.p.stdin.close()
        except OSError:
            pass

    def close(self, timeout=DEFAULT_TIMEOUT):
        """EOF on stdin, then waits for exit; returns the exit status."""
        self.close_stdin()
        rc = self.p.wait(timeout=timeout)
        self._reader.join(timeout)
        return rc

    def signal(self, sig):
        if self.p.poll() is None:
            self.p.send_signal(sig)

    def wait(self, timeout=DEFAULT_TIMEOUT):
        rc = self.p.wait(timeout=timeout)
        self._reader.join(timeout)
        return rc

    def kill(self):
        if self.p.poll() is None:
            try:
                self.p.kill()
            except OSError:
                pass
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self._reader.join(5)
        self.close_stdin()
        try:
            self.p.stdout.close()
        except OSError:
            pass
        try:
            self._stderr_file.close()
        except OSError:
            pass

    def stderr_bytes(self):
        self._stderr_file.flush()
        if self.stderr_path == os.devnull:
            return b""
        with open(self.stderr_path, "rb") as f:
            return f.read()

    def stdout_bytes(self):
        with self._cond:
            return b"".join(self.raw_lines) + self.partial


def check_not_internal(reply, what=""):
    err = reply.get("error") if isinstance(reply, dict) else None
    if isinstance(err, dict) and err.get("code") == INTERNAL_ERROR:
        raise ProtocolFailure(f"internalError answered {what}: {err}")


def reason(reply):
    """'ok' for a result, else the error's data.reason."""
    check_not_internal(reply)
    if "result" in reply:
        return "ok"
    return reply["error"].get("data", {}).get("reason")


def pin(p):
    return {"method": "pin", "pin": p}


def activate(lk, user_id, pin_code="1234", device_id=None, token_purpose=None, **user):
    """Creates a user, an activation code and a device, and activates it with a PIN.
    Returns (deviceId, registrationId, activation/finish result)."""
    lk.ok("admin/createUser", userId=user_id, **user)
    code = lk.ok("admin/createActivationCode", userId=user_id)["activationCode"]
    params = {} if device_id is None else {"deviceId": device_id}
    dev = lk.ok("device/create", **params)["deviceId"]
    lk.ok("activation/start", deviceId=dev, activationCode=code)
    fin = {"deviceId": dev, "authParameter": pin(pin_code)}
    if token_purpose:
        fin["tokenPurpose"] = token_purpose
    res = lk.ok("activation/finish", **fin)
    return dev, res["registrationId"], res


def loopback_listener(serve):
    """A TCP socket listening on 127.0.0.1 (an unused port) whose every connection `serve(client)` handles on a thread of its
    own, until the socket is closed."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)

    def accept():
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(client,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return listener
