"""The Latchkey client: a child process spoken to in JSON-RPC 2.0, one JSON message a line.

Threads: the caller's threads write requests (under a lock); a reader thread reads stdout,
hands each response to the call waiting on its id and runs the notification callbacks; a
third thread drains stderr so the child can never block on a full pipe.
"""

from __future__ import annotations

import collections
import itertools
import json
import logging
import math
import os
import shutil
import subprocess
import threading
from typing import Any, Callable, Deque, Dict, List, NamedTuple, Optional, Sequence

from ._generated import GeneratedMethods

__all__ = [
    "Latchkey",
    "LatchkeyError",
    "LatchkeyProcessError",
    "LatchkeyTimeout",
    "Notification",
]

log = logging.getLogger("latchkey")

#: Seconds a call waits for its response unless told otherwise.
DEFAULT_TIMEOUT = 30.0
#: Lines of the child's stderr kept for error messages.
STDERR_TAIL_LINES = 50


class LatchkeyError(Exception):
    """An error response: ``code``, ``reason`` (``data.reason``), ``message`` and ``data``.

    Client-side failures (subclasses) have ``code`` None and a ``reason`` of their own.
    """

    def __init__(self, message: str, code: Optional[int] = None, reason: Optional[str] = None,
                 data: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.reason = reason
        self.data = data

    @classmethod
    def from_response(cls, error: Any) -> "LatchkeyError":
        """Builds the exception for a response's ``error`` member."""
        if not isinstance(error, dict):
            return cls(f"malformed error response: {error!r}", reason="malformedResponse")
        data = error.get("data")
        reason = data.get("reason") if isinstance(data, dict) else None
        return cls(str(error.get("message", "")), code=error.get("code"), reason=reason, data=data)

    def __str__(self) -> str:
        if self.code is None:
            return self.message
        return f"{self.message} (code {self.code}, reason {self.reason})"


class LatchkeyProcessError(LatchkeyError):
    """The child exited, closed its output, or could not be written to.

    ``returncode`` is its exit status (negative: killed by that signal; None: unknown) and
    ``stderr`` the last lines it wrote there.
    """

    def __init__(self, message: str, returncode: Optional[int] = None, stderr: str = "") -> None:
        super().__init__(message, reason="processExited")
        self.returncode = returncode
        self.stderr = stderr


class LatchkeyTimeout(LatchkeyError, TimeoutError):
    """No response came within the call's timeout. A late response is dropped."""

    def __init__(self, message: str) -> None:
        super().__init__(message, reason="timeout")


class Notification(NamedTuple):
    """A server → client notification, e.g. ``Notification("audit/event", {"event": {...}})``."""

    method: str
    params: Any


class _Pending:
    """A call waiting for its response."""

    __slots__ = ("done", "result", "error", "abandoned")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: Any = None
        self.error: Optional[LatchkeyError] = None
        self.abandoned = False  # timed out: the response, if it comes, is dropped


class Latchkey(GeneratedMethods):
    """A running latchkey process.

    >>> with Latchkey.spawn(args=["--in-memory", "--seed", "1", "--clock", "manual"]) as lk:
    ...     lk.ping(echo="hi")
    {'echo': 'hi'}

    Every schema method is a helper (``lk.activation.start(deviceId=..., activationCode=...)``,
    ``lk.ping(echo=...)``, ``lk.rpc.discover()``); ``call`` reaches any method by name.
    """

    def __init__(self, process: subprocess.Popen, timeout: float = DEFAULT_TIMEOUT,
                 on_stderr: Optional[Callable[[str], None]] = None) -> None:
        """Wraps a process started with stdin, stdout and stderr as binary pipes (see ``spawn``)."""
        self.process = process
        self.timeout = timeout
        #: Every notification received, in order.
        self.notifications: List[Notification] = []
        self._callbacks: List[Callable[[Notification], None]] = []
        self._on_stderr = on_stderr
        self._stderr_tail: Deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._ids = itertools.count(1)
        self._lock = threading.Lock()          # guards _pending and _failure
        self._write_lock = threading.Lock()    # one message at a time on stdin, ids in order
        self._pending: "collections.OrderedDict[Any, _Pending]" = collections.OrderedDict()
        self._failure: Optional[str] = None    # set once the child's output has ended
        self._closing = False
        self._stderr_thread = threading.Thread(target=self._drain_stderr, name="latchkey-stderr",
                                               daemon=True)
        self._reader = threading.Thread(target=self._read_stdout, name="latchkey-reader",
                                        daemon=True)
        self._stderr_thread.start()
        self._reader.start()

    # -- starting and stopping -------------------------------------------------------------

    @classmethod
    def spawn(cls, binary: Optional[str] = None, args: Sequence[str] = (), *,
              env: Optional[Dict[str, str]] = None, cwd: Optional[str] = None,
              timeout: float = DEFAULT_TIMEOUT,
              on_stderr: Optional[Callable[[str], None]] = None) -> "Latchkey":
        """Starts latchkey: ``binary``, else ``$LATCHKEY_BIN``, else ``latchkey`` on PATH.

        ``timeout`` is the default per-call timeout in seconds; ``on_stderr`` gets each line
        the child writes to stderr (called on the stderr thread).
        """
        path = binary or os.environ.get("LATCHKEY_BIN") or shutil.which("latchkey")
        if not path:
            raise FileNotFoundError("latchkey binary not found: pass binary=, set LATCHKEY_BIN, "
                                    "or put latchkey on PATH")
        process = subprocess.Popen([path, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, env=env, cwd=cwd)
        return cls(process, timeout=timeout, on_stderr=on_stderr)

    def close(self, grace: float = 5.0) -> Optional[int]:
        """Closes stdin (the server finishes and exits 0), waits up to ``grace`` seconds, then
        terminates and kills. Calls still pending fail. Returns the exit status."""
        self._closing = True
        with self._write_lock:
            try:
                self.process.stdin.close()
            except OSError:
                pass
        try:
            self.process.wait(grace)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            try:
                self.process.wait(1.0)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._reader.join(grace)
        self._stderr_thread.join(1.0)
        self._fail_all()  # in case a grandchild still holds stdout open
        for stream, thread in ((self.process.stdout, self._reader),
                               (self.process.stderr, self._stderr_thread)):
            if not thread.is_alive():
                stream.close()
        return self.process.returncode

    def __enter__(self) -> "Latchkey":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def returncode(self) -> Optional[int]:
        """The child's exit status, or None while it runs."""
        return self.process.poll()

    @property
    def stderr_tail(self) -> str:
        """The last lines the child wrote to stderr."""
        return "\n".join(self._stderr_tail)

    # -- messages --------------------------------------------------------------------------

    def call(self, method: str, params: Any = None, timeout: Optional[float] = None) -> Any:
        """Sends a request and returns its result.

        ``params`` is a dict, a list, or None (no params member). ``timeout`` is in seconds
        (None: the client's default; ``math.inf``: no limit). Raises ``LatchkeyError`` for an
        error response, ``LatchkeyTimeout``, or ``LatchkeyProcessError`` if the child is gone.
        """
        if threading.current_thread() is self._reader:
            raise RuntimeError("call() from a notification callback would deadlock: "
                               "hand the work to another thread")
        pending = _Pending()
        with self._write_lock:
            request_id = next(self._ids)
            with self._lock:
                if self._failure is not None:
                    raise self._process_error()
                self._pending[request_id] = pending
            self._write(_message(method, params, request_id))
        limit = self.timeout if timeout is None else timeout
        if not pending.done.wait(None if math.isinf(limit) else limit):
            pending.abandoned = True
            raise LatchkeyTimeout(f"no response to {method} within {limit:g} s")
        if pending.error is not None:
            raise pending.error
        return pending.result

    def notify(self, method: str, params: Any = None) -> None:
        """Sends a notification (no response comes)."""
        with self._write_lock:
            if self._failure is not None:
                raise self._process_error()
            self._write(_message(method, params))

    def on_notification(self, callback: Callable[[Notification], None]
                        ) -> Callable[[Notification], None]:
        """Registers ``callback(notification)``; usable as a decorator.

        Callbacks run on the reader thread, in order, before the response of the request that
        caused them is handed back — so they must not call ``call()`` (that raises).
        """
        self._callbacks.append(callback)
        return callback

    # -- internals -------------------------------------------------------------------------

    def _write(self, message: Dict[str, Any]) -> None:
        """Writes one line (the write lock is held)."""
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        try:
            self.process.stdin.write(line.encode("utf-8") + b"\n")
            self.process.stdin.flush()
        except (OSError, ValueError):  # broken pipe, or stdin already closed
            self._reader.join(2.0)     # let the reader record how the child ended
            with self._lock:
                if self._failure is None:
                    self._failure = "latchkey is no longer reading its input"
            raise self._process_error() from None

    def _read_stdout(self) -> None:
        for raw in self.process.stdout:
            line = raw.strip()
            if not line:
                continue
            try:
                message = json.loads(line)
            except ValueError:
                log.warning("latchkey wrote a line that is not JSON (%d bytes)", len(line))
                continue
            for item in message if isinstance(message, list) else [message]:
                self._dispatch(item)
        try:
            status = self.process.wait(2.0)
        except subprocess.TimeoutExpired:
            status = None
        self._stderr_thread.join(1.0)
        if self._closing:
            reason = "the client was closed"
        elif status is None:
            reason = "latchkey closed its output"
        elif status < 0:
            reason = f"latchkey was killed by signal {-status}"
        else:
            reason = f"latchkey exited with status {status}"
        with self._lock:
            if self._failure is None:
                self._failure = reason
        self._fail_all()

    def _dispatch(self, message: Any) -> None:
        if not isinstance(message, dict):
            log.warning("latchkey wrote a message that is not an object")
        elif "method" in message:
            self._deliver(Notification(message["method"], message.get("params")))
        elif "id" in message:
            self._answer(message)
        else:
            log.warning("latchkey wrote a message that is neither a response nor a notification")

    def _answer(self, message: Dict[str, Any]) -> None:
        key = message["id"]
        with self._lock:
            if key is None and self._pending:
                # An error the server could not tie to a request (e.g. messageTooLarge).
                # Requests are answered in order, so it answers the oldest one outstanding.
                key = next(iter(self._pending))
            pending = self._pending.pop(key, None)
        if pending is None:
            if "error" in message:
                log.warning("unmatched error response: %s", message["error"].get("message"))
            return
        if pending.abandoned:
            return
        if "error" in message:
            pending.error = LatchkeyError.from_response(message["error"])
        else:
            pending.result = message.get("result")
        pending.done.set()

    def _deliver(self, notification: Notification) -> None:
        self.notifications.append(notification)
        for callback in list(self._callbacks):
            try:
                callback(notification)
            except Exception:  # a callback's bug must not stop the reader
                log.exception("notification callback failed for %s", notification.method)

    def _drain_stderr(self) -> None:
        for raw in self.process.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            self._stderr_tail.append(line)
            if self._on_stderr is not None:
                try:
                    self._on_stderr(line)
                except Exception:
                    log.exception("stderr callback failed")

    def _fail_all(self) -> None:
        with self._lock:
            if self._failure is None:
                self._failure = "the client was closed"
            pending = list(self._pending.values())
            self._pending.clear()
        for item in pending:
            item.error = self._process_error()
            item.done.set()

    def _process_error(self) -> LatchkeyProcessError:
        message = self._failure or "latchkey is not running"
        tail = self.stderr_tail
        if tail:
            message += "; its stderr ended with:\n" + "\n".join(tail.splitlines()[-10:])
        return LatchkeyProcessError(message, returncode=self.process.poll(), stderr=tail)


def _message(method: str, params: Any, request_id: Any = None) -> Dict[str, Any]:
    message: Dict[str, Any] = {"jsonrpc": "2.0"}
    if request_id is not None:
        message["id"] = request_id
    message["method"] = method
    if params is not None:
        message["params"] = params
    return message
