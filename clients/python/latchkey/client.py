"""The Latchkey client: a child process spoken to in JSON-RPC 2.0, one JSON message a line.

Threads: the caller's threads write requests (under a lock); a reader thread reads stdout,
hands each response to the call waiting on its id and runs the notification callbacks; a
third thread drains stderr so the child can never block on a full pipe.

Errors with a null id. The server answers a message it cannot read (too large, not JSON, no
request) with an error whose id is null — whether that message was a request or a
notification — and answers everything in the order it arrives. So the client keeps every
message it wrote, requests and notifications, in send order until it is settled, and the
null-id errors that came since the last settled one are those of the first unsettled messages
the server could not read, in order:

- a null-id error fails the oldest unsettled message at once when that is a request (had the
  server read it, its answer would have come first); a notification there may have drawn the
  error or nothing, so the error is held — unless no request is unsettled at all, when it
  answers a notification, or as many errors are held as messages are unsettled, when each
  drew one, in order;
- a response with an id settles its request and every message written before it (the server
  has handled them all: a notification before it that drew no error never will). Every
  request before it drew one of the held errors: the one its place decides (the requests
  before it drew one each, and the notifications before it as many as are left over, when
  that is none or all of them); where the notifications' share leaves it open, the request
  fails with reason ``unattributedError`` and those errors go to ``stray_errors``.

A null-id error that answers a notification (or nothing the client wrote) fails no call: it
goes to ``stray_errors`` and the ``on_stray_error`` callbacks. A call is never failed by
another message's error, and a valid call always gets its own answer.
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


class _Written:
    """A message written and not yet settled: a request (``key`` its id) or a notification."""

    __slots__ = ("key", "method")

    def __init__(self, key: Any, method: str) -> None:
        self.key = key          # the request's id; None for a notification
        self.method = method


_NOTIFICATION = _Written(None, "")  # every notification written (one shared entry: a pointer each)


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
        #: Every error reply that answers no call (a null-id error for a notification the
        #: client sent that the server could not read, e.g. messageTooLarge), in order.
        self.stray_errors: List[LatchkeyError] = []
        self._callbacks: List[Callable[[Notification], None]] = []
        self._stray_callbacks: List[Callable[[LatchkeyError], None]] = []
        self._on_stderr = on_stderr
        self._stderr_tail: Deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._ids = itertools.count(1)
        self._lock = threading.Lock()          # guards _pending and _failure
        self._write_lock = threading.Lock()    # one message at a time on stdin, ids in order
        self._pending: "collections.OrderedDict[Any, _Pending]" = collections.OrderedDict()
        # Every message written and not yet settled, in send order, and the null-id errors
        # received since the last settled one that cannot be attributed yet (see the top).
        self._unsettled: Deque[_Written] = collections.deque()
        self._held: List[LatchkeyError] = []
        self._unsettled_requests = 0           # how many of _unsettled are requests
        self._failure: Optional[str] = None    # set once the child's output has ended
        self._closing = False
        self._dropping = False                 # close() from a callback on the reader: the rest of the output is dropped
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
        terminates and kills. Calls still pending fail. Returns the exit status.

        Called from a callback on the reader thread, it drops whatever the child writes from then
        on: no later notification reaches a callback, and no call is answered."""
        self._closing = True
        here = threading.current_thread()
        with self._write_lock:
            try:
                self.process.stdin.close()
            except OSError:
                pass
        if here is self._reader:
            # Called from a callback on the reader thread, which does not read while it waits here: the child's last output is
            # read off and dropped (the calls it answers fail anyway), or a child with more than a pipe buffer of it left could
            # not write it and exit. The reader drops it too once the callback returns: the two share the rest of the output.
            self._dropping = True
            threading.Thread(target=self._discard_stdout, name="latchkey-drain", daemon=True).start()
        try:
            self.process.wait(grace)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            try:
                self.process.wait(1.0)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        # Called from a callback, this runs on the reader thread (notifications, stray errors) or the stderr thread: it cannot
        # wait for itself, and that thread ends on its own at end of output once the callback returns.
        if here is not self._reader:
            self._reader.join(grace)
        if here is not self._stderr_thread:
            self._stderr_thread.join(1.0)
        self._fail_all()  # in case a grandchild still holds stdout open
        for stream, thread in ((self.process.stdout, self._reader),
                               (self.process.stderr, self._stderr_thread)):
            if thread is not here and not thread.is_alive():
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
            # Encoded before it is registered: params that cannot be sent (NaN, bytes, a lone
            # surrogate) raise here and leave nothing waiting behind.
            line = _encode(_message(method, params, request_id))
            with self._lock:
                if self._failure is not None:
                    raise self._process_error()
                self._pending[request_id] = pending
                self._unsettled.append(_Written(request_id, method))
                self._unsettled_requests += 1
            self._write(line)
        limit = self.timeout if timeout is None else timeout
        if not pending.done.wait(None if math.isinf(limit) else limit):
            pending.abandoned = True
            raise LatchkeyTimeout(f"no response to {method} within {limit:g} s")
        if pending.error is not None:
            raise pending.error
        return pending.result

    def notify(self, method: str, params: Any = None) -> None:
        """Sends a notification (no response comes).

        Params that cannot be encoded raise (``TypeError``/``ValueError``) and nothing is sent.
        If the server cannot read the notification (e.g. it is larger than
        ``--max-message-bytes``), its error reply goes to ``stray_errors`` and the
        ``on_stray_error`` callbacks; it never fails a call.
        """
        line = _encode(_message(method, params))
        with self._write_lock:
            with self._lock:
                if self._failure is not None:
                    raise self._process_error()
                self._unsettled.append(_NOTIFICATION)
            self._write(line)

    def on_notification(self, callback: Callable[[Notification], None]
                        ) -> Callable[[Notification], None]:
        """Registers ``callback(notification)``; usable as a decorator.

        Callbacks run on the reader thread, in order, before the response of the request that
        caused them is handed back — so they must not call ``call()`` (that raises).
        """
        self._callbacks.append(callback)
        return callback

    def on_stray_error(self, callback: Callable[[LatchkeyError], None]
                       ) -> Callable[[LatchkeyError], None]:
        """Registers ``callback(error)`` for error replies that answer no call; usable as a
        decorator.

        Such an error has a null id and answers a notification the client sent that the
        server could not read (``messageTooLarge``, a parse error), or nothing the client
        wrote. Each is also kept in ``stray_errors``. Callbacks run on the reader thread, like
        the notification callbacks (so they must not call ``call()`` either).
        """
        self._stray_callbacks.append(callback)
        return callback

    # -- internals -------------------------------------------------------------------------

    def _write(self, line: bytes) -> None:
        """Writes one encoded line (the write lock is held)."""
        try:
            self.process.stdin.write(line)
            self.process.stdin.flush()
        except (OSError, ValueError):  # broken pipe, or stdin already closed
            self._reader.join(2.0)     # let the reader record how the child ended
            with self._lock:
                if self._failure is None:
                    self._failure = "latchkey is no longer reading its input"
            raise self._process_error() from None

    def _discard_stdout(self) -> None:
        try:
            for _ in self.process.stdout:
                pass
        except (OSError, ValueError):
            pass

    def _read_stdout(self) -> None:
        for raw in self.process.stdout:
            line = raw.strip()
            if not line or self._dropping:
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
            held, self._held = self._held, []
        self._fail_all()
        for error in held:  # received, never attributed: the calls among them failed above
            self._stray(error)

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
        answers: List[Any] = []   # (pending, error or None, result), settled outside the lock
        strays: List[LatchkeyError] = []
        with self._lock:
            if key is None:
                if "error" not in message:
                    log.warning("latchkey wrote a result with a null id")
                    return
                self._null_error(LatchkeyError.from_response(message["error"]), answers, strays)
            else:
                pending = self._pending.get(key)
                if pending is None:
                    if "error" in message:
                        log.warning("unmatched error response: %s", _error_text(message["error"]))
                    return
                self._settle_through(key, answers, strays)
                error = LatchkeyError.from_response(message["error"]) if "error" in message else None
                answers.append((pending, error, message.get("result")))
        for error in strays:  # before the answers, as notifications come before responses
            self._stray(error)
        for pending, error, result in answers:
            if pending is None or pending.abandoned:
                continue
            pending.error, pending.result = error, result
            pending.done.set()

    def _null_error(self, error: LatchkeyError, answers: List[Any],
                    strays: List[LatchkeyError]) -> None:
        """Attributes an error with a null id, or holds it until it can be (the lock is held).

        The held errors are those of the first unsettled messages the server could not read,
        in order (it answers in order). The oldest unsettled message, when it is a request,
        drew the oldest of them: had the server read it, its answer would have come first. A
        notification there may have drawn it or nothing: held, unless no request is unsettled
        (every held error answers a notification), or as many errors are held as messages are
        unsettled (each drew one, in order).
        """
        self._held.append(error)
        while self._held:
            if self._unsettled_requests == 0:
                for _ in range(min(len(self._held), len(self._unsettled))):
                    self._unsettled.popleft()
                strays.extend(self._held)
                self._held = []
            elif len(self._held) >= len(self._unsettled):
                # Every unsettled message drew one (none draws two): they pair in order.
                for written in list(self._unsettled):
                    error = self._held.pop(0)
                    if written.key is None:
                        strays.append(error)
                    else:
                        answers.append((self._pending.pop(written.key, None), error, None))
                self._unsettled.clear()
                self._unsettled_requests = 0
            elif self._unsettled[0].key is None:
                return  # a notification's, or a request's behind it: a later answer tells
            else:
                request = self._unsettled.popleft()
                self._unsettled_requests -= 1
                answers.append((self._pending.pop(request.key, None), self._held.pop(0), None))

    def _settle_through(self, key: Any, answers: List[Any], strays: List[LatchkeyError]) -> None:
        """A response with id ``key`` came: it and every message before it are settled (the
        lock is held). Every request before it still waiting drew one of the held errors."""
        if not any(w.key == key for w in self._unsettled):
            self._pending.pop(key, None)
            return
        before: List[_Written] = []
        while True:
            written = self._unsettled.popleft()
            if written.key == key:
                break
            before.append(written)
        self._unsettled_requests -= 1 + sum(1 for w in before if w.key is not None)
        held, self._held = self._held, []
        places = _attribute([w.key is not None for w in before], len(held))
        requests = [w for w in before if w.key is not None]
        taken = {place for place in places if place is not None}
        strays.extend(error for index, error in enumerate(held) if index not in taken)
        for written, place in zip(requests, places):
            if place is not None:
                error = held[place]
            elif len(held) < len(requests):
                error = LatchkeyError(f"latchkey answered a later request before {written.method}",
                                      reason="malformedResponse")
            else:
                error = LatchkeyError(
                    f"latchkey could not read the {written.method} request, and which error "
                    "without id is its own cannot be told (they are in stray_errors)",
                    reason="unattributedError")
            answers.append((self._pending.pop(written.key, None), error, None))
        self._pending.pop(key, None)

    def _stray(self, error: LatchkeyError) -> None:
        """An error reply that answers no call (run on the reader thread)."""
        log.warning("an error reply answers no call: %s", error)
        self.stray_errors.append(error)
        for callback in list(self._stray_callbacks):
            try:
                callback(error)
            except Exception:
                log.exception("stray-error callback failed")

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
            self._unsettled.clear()
            self._unsettled_requests = 0
        for item in pending:
            item.error = self._process_error()
            item.done.set()

    def _process_error(self) -> LatchkeyProcessError:
        message = self._failure or "latchkey is not running"
        tail = self.stderr_tail
        if tail:
            message += "; its stderr ended with:\n" + "\n".join(tail.splitlines()[-10:])
        return LatchkeyProcessError(message, returncode=self.process.poll(), stderr=tail)


def _attribute(requests: Sequence[bool], errors: int) -> List[Optional[int]]:
    """Which of ``errors`` held null-id errors each request drew, among messages settled together.

    ``requests`` marks the messages in send order (True: a request). Each request drew one (a
    later request was answered first, and the server answers in order), and the errors left
    over answered notifications, which ones unknown. A request's error is the one after every
    error drawn before it: one per request before it, and between what the notifications after
    it leave over and what those before it can hold. None where that range holds more than one,
    or where there are fewer errors than requests (an answer out of order).
    """
    left_over = errors - sum(requests)
    if left_over < 0:
        return [None] * sum(requests)
    notifications = len(requests) - sum(requests)
    places: List[Optional[int]] = []
    before = 0
    for is_request in requests:
        if not is_request:
            before += 1
            continue
        low = len(places) + max(0, left_over - (notifications - before))
        high = len(places) + min(before, left_over)
        places.append(low if low == high else None)
    return places


def _encode(message: Dict[str, Any]) -> bytes:
    """The message as one UTF-8 line; raises TypeError/ValueError for what JSON cannot carry."""
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.encode("utf-8") + b"\n"


def _error_text(error: Any) -> Any:
    return error.get("message") if isinstance(error, dict) else error


def _message(method: str, params: Any, request_id: Any = None) -> Dict[str, Any]:
    message: Dict[str, Any] = {"jsonrpc": "2.0"}
    if request_id is not None:
        message["id"] = request_id
    message["method"] = method
    if params is not None:
        message["params"] = params
    return message
