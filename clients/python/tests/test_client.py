"""The client's own mechanics, against the stand-in server and tiny shell scripts.

These need no Swift build: they pin down framing, id routing, notification order, timeouts,
stderr draining and what happens when the child dies.
"""

import json
import sys
import threading
import time
from typing import Any, Dict

import pytest
from support import FAKE

from latchkey import (UNSET, Latchkey, LatchkeyError, LatchkeyProcessError, LatchkeyTimeout,
                      Notification)
from latchkey.client import _attribute

RESPONSE_1 = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"ok": True}})


def sh(script: str, timeout: float = 10) -> Latchkey:
    return Latchkey.spawn("/bin/sh", ["-c", script], timeout=timeout)


def test_call_and_helpers(fake):
    assert fake.call("ping", {"echo": [1, "é", None]}) == {"echo": [1, "é", None]}
    assert fake.ping(echo={"a": 1}) == {"echo": {"a": 1}}
    assert fake.server.info()["clock"] == "manual"
    assert fake.clock.advance(seconds=90) == {"now": "2026-01-01T00:01:30Z"}
    assert fake.clock.now() == {"now": "2026-01-01T00:01:30Z"}
    assert fake.rpc.discover()["openrpc"].startswith("1.")


def test_error_response(fake):
    with pytest.raises(LatchkeyError) as caught:
        fake.call("no/such/method")
    error = caught.value
    assert (error.code, error.reason) == (-32601, "methodNotFound")
    assert error.data == {"reason": "methodNotFound"}
    assert "Method not found" in error.message and "-32601" in str(error)
    with pytest.raises(LatchkeyError) as caught:
        fake.clock.advance(seconds=-1)
    assert caught.value.reason == "invalidParams" and caught.value.data["errors"]


def test_notifications_arrive_in_order_before_the_response(fake):
    received = []
    fake.on_notification(received.append)
    assert fake.events.subscribe(topics=["audit"]) == {"topics": ["audit"]}
    for seconds in (1, 2, 3):
        fake.clock.advance(seconds=seconds)
        # The notification a request causes is delivered before call() returns.
        assert received[-1].params["event"]["seconds"] == seconds
    assert [n.params["event"]["seconds"] for n in fake.notifications] == [1, 2, 3]
    assert received == fake.notifications
    assert isinstance(received[0], Notification) and received[0].method == "audit/event"
    fake.call("events/unsubscribe", {"topics": ["audit"]})
    fake.clock.advance(seconds=4)
    assert len(fake.notifications) == 3


def test_callback_errors_and_reentrant_calls_do_not_stop_the_reader(fake):
    outcomes = []

    def callback(notification):
        try:
            fake.ping()
        except RuntimeError as error:
            outcomes.append(str(error))
        raise ValueError("a bug in a callback")

    fake.on_notification(callback)
    fake.events.subscribe(topics=["audit"])
    fake.clock.advance(seconds=1)
    assert fake.ping(echo=2) == {"echo": 2}
    assert outcomes and "deadlock" in outcomes[0]


def test_close_from_a_callback_ends_the_child_and_fails_the_call_in_hand():
    client = Latchkey.spawn(sys.executable, [str(FAKE), "--in-memory", "--seed", "1", "--clock", "manual"], timeout=10)
    outcomes = []

    def callback(notification):
        # On the reader thread, which close() must not wait for.
        outcomes.append(client.close())

    client.on_notification(callback)
    client.events.subscribe(topics=["audit"])
    with pytest.raises(LatchkeyProcessError):
        client.clock.advance(seconds=1)
    # The call fails while close() is still finishing on the reader thread.
    deadline = time.time() + 10
    while not outcomes and time.time() < deadline:
        time.sleep(0.05)
    assert outcomes == [0]
    assert client.returncode == 0


def test_close_from_a_callback_lets_a_child_with_much_left_to_write_exit_cleanly():
    # The reader thread is in the callback, not reading: a child that writes more than a pipe buffer after stdin's end must
    # still be able to write it and exit 0 (it was blocked, then terminated after the grace).
    # Then, after the child's exit, a process it left behind writes more, slowly: written after close() returned.
    line = '{\"jsonrpc\":\"2.0\",\"method\":\"y\",\"params\":{}}'
    script = ("read go; printf '{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{}}\\n'; cat >/dev/null; "
              f"yes '{line}' | head -n 10000; "
              f"(sleep 0.5; i=0; while [ $i -lt 300 ]; do echo '{line}'; sleep 0.002; i=$((i+1)); done) &")
    outcomes = []
    client = Latchkey.spawn("/bin/sh", ["-c", script], timeout=10)

    heard = []

    def callback(notification):
        heard.append(notification.method)
        if not outcomes:
            started = time.monotonic()
            outcomes.append((client.close(grace=5.0), time.monotonic() - started))

    client.on_notification(callback)
    client.notify("go")
    deadline = time.time() + 15
    while not outcomes and time.time() < deadline:
        time.sleep(0.05)
    assert outcomes and outcomes[0][0] == 0, outcomes
    assert outcomes[0][1] < 4, outcomes
    # The rest of the output is dropped by both readers, the drain and the reader once the callback returned: no callback
    # hears any of it. Without the reader's part a few lines reached one, whichever thread read them (this failed in about half
    # the runs then). The reader ends at the end of the output.
    client._reader.join(15)
    assert not client._reader.is_alive()
    assert len(outcomes) == 1 and heard == ["x"], heard


def test_close_from_a_stderr_callback_ends_the_child():
    outcomes = []
    spawned = []
    ready = threading.Event()

    def on_stderr(line):
        # On the stderr thread, which close() must not wait for either.
        ready.wait(10)
        outcomes.append(spawned[0].close())

    spawned.append(Latchkey.spawn("/bin/sh", ["-c", "echo said >&2; cat >/dev/null"], timeout=10, on_stderr=on_stderr))
    ready.set()
    deadline = time.time() + 10
    while not outcomes and time.time() < deadline:
        time.sleep(0.05)
    assert outcomes == [0]


def test_optional_params_are_left_out_unless_given():
    seen = []

    class Recorder(Latchkey):
        def __init__(self):  # no process: only records what the helpers send
            pass

        def call(self, method, params=None, timeout=None):
            seen.append((method, params))

    recorder = Recorder()
    recorder.ping()
    recorder.ping(echo=None)
    recorder.server.info()
    assert seen == [("ping", None), ("ping", {"echo": None}), ("server/info", None)]
    assert repr(UNSET) == "UNSET"


def test_concurrent_calls_are_routed_by_id(fake):
    results = {}

    def worker(n):
        results[n] = [fake.ping(echo=[n, i])["echo"] for i in range(50)]

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {n: [[n, i] for i in range(50)] for n in range(8)}


def test_spawn_uses_latchkey_bin(monkeypatch, tmp_path):
    wrapper = tmp_path / "latchkey"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("LATCHKEY_BIN", str(wrapper))
    with Latchkey.spawn(args=["--in-memory"]) as lk:
        assert lk.server.info()["store"] == "memory"
    assert lk.returncode == 0
    monkeypatch.delenv("LATCHKEY_BIN")
    monkeypatch.setenv("PATH", str(tmp_path))
    with Latchkey.spawn() as lk:
        assert lk.ping(echo=1) == {"echo": 1}
    monkeypatch.setenv("PATH", "")
    with pytest.raises(FileNotFoundError, match="LATCHKEY_BIN"):
        Latchkey.spawn()


def test_child_that_exits_at_once():
    lk = sh("echo 'cannot open the store' >&2; exit 3")
    started = time.monotonic()
    with pytest.raises(LatchkeyProcessError) as caught:
        lk.ping()
    assert time.monotonic() - started < 5
    assert caught.value.returncode == 3
    assert "status 3" in str(caught.value) and "cannot open the store" in caught.value.stderr
    with pytest.raises(LatchkeyProcessError):  # and every later call
        lk.ping()
    with pytest.raises(LatchkeyProcessError):
        lk.notify("exit")
    assert lk.close() == 3


def test_child_that_dies_while_a_call_is_pending():
    lk = sh("read line; echo 'fatal: boom' >&2; exit 4")
    with pytest.raises(LatchkeyProcessError) as caught:
        lk.call("ping", timeout=10)
    assert caught.value.returncode == 4 and "boom" in str(caught.value)
    lk.close()


def test_killed_child(fake):
    assert fake.ping(echo=1) == {"echo": 1}
    fake.process.kill()
    with pytest.raises(LatchkeyProcessError) as caught:
        fake.ping(echo=2)
    assert caught.value.returncode == -9


def test_timeout_then_other_calls_still_work():
    # Answers only the second request; the first one times out and its id is never answered.
    lk = sh(f"read a; read b; echo '{json.dumps({'jsonrpc': '2.0', 'id': 2, 'result': 2})}'; cat >/dev/null")
    with pytest.raises(LatchkeyTimeout) as caught:
        lk.call("slow", timeout=0.2)
    assert isinstance(caught.value, TimeoutError) and caught.value.reason == "timeout"
    assert lk.call("fast") == 2
    assert lk.close() == 0


def test_error_without_id_answers_the_oldest_call():
    reply = {"jsonrpc": "2.0", "id": None, "error": {
        "code": -32000, "message": "too large", "data": {"reason": "messageTooLarge"}}}
    lk = sh(f"read line; echo '{json.dumps(reply)}'; cat >/dev/null")
    with pytest.raises(LatchkeyError) as caught:
        lk.call("big", {"blob": "x" * 1000})
    assert caught.value.reason == "messageTooLarge"
    lk.close()


NULL_ID_ERROR = json.dumps({"jsonrpc": "2.0", "id": None, "error": {
    "code": -32000, "message": "too large", "data": {"reason": "messageTooLarge"}}})


def test_an_error_without_id_for_a_notification_fails_no_call():
    # The server could not read the notification, answers it with a null id, then answers
    # the call: the call gets its own answer, the error goes to stray_errors.
    lk = sh(f"read n; read r; echo '{NULL_ID_ERROR}'; echo '{RESPONSE_1}'; cat >/dev/null")
    strays = []
    lk.on_stray_error(strays.append)
    lk.notify("big", {"blob": "x" * 1000})
    assert lk.call("x") == {"ok": True}
    assert [e.reason for e in strays] == ["messageTooLarge"] and lk.stray_errors == strays
    lk.close()


def test_an_error_without_id_with_nothing_outstanding_is_a_stray():
    lk = sh(f"read n; echo '{NULL_ID_ERROR}'; read r; echo '{RESPONSE_1}'; cat >/dev/null")
    lk.notify("big")
    assert lk.call("x") == {"ok": True}
    assert [e.reason for e in lk.stray_errors] == ["messageTooLarge"]
    lk.close()


def test_a_later_answer_settles_a_call_whose_error_had_no_id():
    # A notification, then a request the server could not read, then one it answers: the
    # null-id error may be either's until the third message is answered; then it is the call's.
    response_3 = json.dumps({"jsonrpc": "2.0", "id": 2, "result": 3})
    lk = sh(f"read n; read a; read b; echo '{NULL_ID_ERROR}'; echo '{response_3}'; cat >/dev/null")
    lk.notify("fine")
    outcome = {}

    def first():
        try:
            lk.call("big", timeout=10)
        except LatchkeyError as error:
            outcome["error"] = error

    thread = threading.Thread(target=first)
    thread.start()
    while not lk._unsettled or lk._unsettled[-1].key != 1:  # request 1 written first
        time.sleep(0.01)
    started = time.monotonic()
    assert lk.call("x") == 3
    thread.join(5)
    assert outcome["error"].reason == "messageTooLarge" and time.monotonic() - started < 5
    assert lk.stray_errors == []
    lk.close()


PARSE_NULL_ID_ERROR = json.dumps({"jsonrpc": "2.0", "id": None, "error": {
    "code": -32700, "message": "Parse error", "data": {"reason": "parseError"}}})


def _calls_in_flight(lk: Latchkey, *methods: str) -> Dict[str, Any]:
    """Starts a call per method, each on its own thread, in order; returns the outcomes dict
    (filled as they end) with the threads under "threads"."""
    outcomes: Dict[str, Any] = {"threads": []}

    def run(method: str) -> None:
        try:
            outcomes[method] = lk.call(method, timeout=10)
        except LatchkeyError as error:
            outcomes[method] = error.reason

    for method in methods:
        thread = threading.Thread(target=run, args=(method,))
        written = len(lk._unsettled)
        thread.start()
        while len(lk._unsettled) == written:  # written before the next one starts
            time.sleep(0.01)
        outcomes["threads"].append(thread)
    return outcomes


def _two_null_id_errors_then_an_answer(reads: int, answer_id: int) -> Latchkey:
    """A server that reads `reads` lines, then writes two null-id errors (parseError, then
    messageTooLarge) and the answer of request `answer_id` (its id as its result)."""
    response = json.dumps({"jsonrpc": "2.0", "id": answer_id, "result": answer_id})
    return sh("read l; " * reads + f"echo '{PARSE_NULL_ID_ERROR}'; echo '{NULL_ID_ERROR}'; "
              f"echo '{response}'; cat >/dev/null")


def test_errors_without_id_behind_a_notification_are_held_then_each_goes_to_its_own_call():
    # A notification it read, two requests it could not: the errors could be the
    # notification's and the first request's, or the two requests', until a later answer says
    # the notification drew none. Neither request ever takes the other's error.
    lk = _two_null_id_errors_then_an_answer(reads=4, answer_id=3)
    try:
        lk.notify("fine")
        outcomes = _calls_in_flight(lk, "unreadable", "big")
        assert lk.call("x") == 3
        for thread in outcomes["threads"]:
            thread.join(5)
        assert (outcomes["unreadable"], outcomes["big"]) == ("parseError", "messageTooLarge")
        assert lk.stray_errors == []
    finally:
        lk.close()


def test_a_request_whose_error_cannot_be_told_from_a_notifications_fails_as_unattributed():
    # Notification, request, notification, then an answered request, and two errors: the first
    # request drew one, and one notification the other, but which notification is unknown.
    lk = _two_null_id_errors_then_an_answer(reads=4, answer_id=2)
    try:
        lk.notify("one")
        outcomes = _calls_in_flight(lk, "a")
        lk.notify("two")
        assert lk.call("b") == 2
        outcomes["threads"][0].join(5)
        assert outcomes["a"] == "unattributedError"
        assert [e.reason for e in lk.stray_errors] == ["parseError", "messageTooLarge"]
    finally:
        lk.close()


def test_as_many_errors_as_unsettled_messages_answer_each_at_once():
    # A notification and a request the server could not read: two errors for two messages, so
    # each drew one, in order — the call fails at once, the first error is a stray.
    lk = sh(f"read n; read a; echo '{PARSE_NULL_ID_ERROR}'; echo '{NULL_ID_ERROR}'; cat >/dev/null")
    try:
        lk.notify("unreadable")
        started = time.monotonic()
        with pytest.raises(LatchkeyError) as caught:
            lk.call("big", timeout=10)
        assert caught.value.reason == "messageTooLarge" and time.monotonic() - started < 5
        assert [e.reason for e in lk.stray_errors] == ["parseError"]
    finally:
        lk.close()


@pytest.mark.parametrize("requests, errors, places", [
    ([True, True], 2, [0, 1]),                       # two requests, two errors: in order
    ([False, True, True], 2, [0, 1]),                # the notification drew none
    ([False, True, True], 3, [1, 2]),                # it drew the first
    ([True, False, True], 3, [0, 2]),                # between two requests
    ([False, True, False], 2, [None]),               # before or after: cannot be told
    ([False, True, False], 3, [1]),                  # both drew one
    ([False, False, True], 1, [0]),                  # neither drew one
    ([True, True], 1, [None, None]),                 # fewer errors than requests: out of order
])
def test_attribution_of_held_errors(requests, errors, places):
    assert _attribute(requests, errors) == places


def test_an_oversized_notification_against_the_server(binary):
    with Latchkey.spawn(binary, ["--in-memory", "--max-message-bytes", "200"], timeout=10) as lk:
        lk.notify("ping", {"echo": "y" * 300})
        assert lk.ping(echo="mine") == {"echo": "mine"}
        assert [e.reason for e in lk.stray_errors] == ["messageTooLarge"]
        with pytest.raises(LatchkeyError) as caught:  # a call too large still fails at once
            lk.ping(echo="x" * 300)
        assert caught.value.reason == "messageTooLarge"
        lk.notify("ping", {"echo": "fine"})             # well-formed: never answered
        assert lk.ping(echo="after") == {"echo": "after"}
        assert len(lk.stray_errors) == 1


def test_params_that_cannot_be_encoded_raise_and_leave_nothing_waiting(binary):
    with Latchkey.spawn(binary, ["--in-memory", "--max-message-bytes", "200"], timeout=10) as lk:
        for bad, error in ((float("nan"), ValueError), (b"bytes", TypeError),
                           ("\ud800", UnicodeEncodeError)):
            with pytest.raises(error):
                lk.ping(echo=bad)
            with pytest.raises(error):
                lk.notify("ping", {"echo": bad})
        started = time.monotonic()
        with pytest.raises(LatchkeyError) as caught:  # its null-id error is its own, at once
            lk.ping(echo="x" * 300)
        assert caught.value.reason == "messageTooLarge" and time.monotonic() - started < 5
        assert lk.ping(echo="ok") == {"echo": "ok"} and lk.stray_errors == []


def test_a_flood_on_stderr_never_blocks_the_child():
    lines = []
    script = f"yes 'log line' | head -n 200000 >&2; read l; echo '{RESPONSE_1}'"
    lk = Latchkey.spawn("/bin/sh", ["-c", script], on_stderr=lines.append)
    assert lk.call("x", timeout=20) == {"ok": True}
    lk.close()
    assert len(lines) == 200000 and lk.stderr_tail.endswith("log line")


def test_close_kills_a_child_that_ignores_eof_and_sigterm():
    lk = sh("trap '' TERM; exec sleep 30")
    started = time.monotonic()
    assert lk.close(grace=0.2) == -9
    assert time.monotonic() - started < 5
    with pytest.raises(LatchkeyProcessError, match="closed"):
        lk.ping()


def test_non_json_output_is_skipped():
    lk = sh(f"read l; echo 'not json'; echo; echo '{RESPONSE_1}'; cat >/dev/null")
    assert lk.call("x") == {"ok": True}
    lk.close()
