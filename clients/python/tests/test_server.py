"""Against the real binary ($LATCHKEY_BIN). Each test skips with a message when it is not set,
and the domain tests skip while their methods are not implemented yet."""

import pytest
from support import DEFAULT_ARGS, REPO

import latchkey
from latchkey import Latchkey, LatchkeyError, LatchkeyProcessError


def needs(lk, method, params=None):
    """Calls a method, skipping the test if the binary does not have it yet."""
    try:
        return lk.call(method, params)
    except LatchkeyError as error:
        if error.reason == "methodNotFound":
            pytest.skip(f"{method} is not implemented yet")
        raise


def test_ping(lk):
    value = {"text": "héllo ☃", "list": [1, -2, 2.5, True, None], "nested": {"a": {"b": []}}}
    assert lk.ping(echo=value) == {"echo": value}
    assert lk.call("ping", {"echo": "x"}) == {"echo": "x"}


def test_server_info_and_clock(lk):
    info = lk.call("server/info")
    assert (info["store"], info["clock"], info["seeded"]) == ("memory", "manual", True)
    assert lk.call("clock/now") == {"now": "2026-01-01T00:00:00Z"}
    assert lk.call("clock/advance", {"seconds": 3600}) == {"now": "2026-01-01T01:00:00Z"}
    assert lk.call("clock/now") == {"now": "2026-01-01T01:00:00Z"}


def test_unknown_method(lk):
    with pytest.raises(LatchkeyError) as caught:
        lk.call("no/such/method")
    assert (caught.value.code, caught.value.reason) == (-32601, "methodNotFound")
    assert caught.value.data["reason"] == "methodNotFound"
    assert lk.ping(echo=1) == {"echo": 1}  # still serving


def test_invalid_params(lk):
    with pytest.raises(LatchkeyError) as caught:
        lk.call("clock/advance", {"seconds": -1})
    assert (caught.value.code, caught.value.reason) == (-32602, "invalidParams")
    assert isinstance(caught.value.data.get("errors"), list)


def test_rpc_discover_serves_the_generated_methods(lk):
    document = needs(lk, "rpc.discover")
    assert document["openrpc"].startswith("1.")
    if (REPO / "schema" / "openrpc.json").is_file():
        assert sorted(m["name"] for m in document["methods"]) == sorted(latchkey.METHODS)


def test_subscribe(lk):
    assert needs(lk, "events/subscribe", {"topics": ["audit"]}) == {"topics": ["audit"]}
    remaining = needs(lk, "events/unsubscribe", {"topics": ["audit"]})["topics"]
    assert "audit" not in remaining


def test_notifications_from_a_grace_period(lk):
    """accountRecovery/start and the clock passing 72 h send notifications before the
    responses of the calls that caused them."""
    received = []
    lk.on_notification(received.append)
    needs(lk, "events/subscribe", {"topics": ["audit", "delivery", "accountRecovery"]})
    needs(lk, "admin/createUser", {"userId": "u1", "email": "ann@example.com", "password": "correct horse"})
    session = needs(lk, "user/login", {"email": "ann@example.com", "password": "correct horse"})
    started = needs(lk, "accountRecovery/start", {"sessionId": session["sessionId"]})
    assert started["accountRecovery"]["state"] == 1
    assert any(n.method == "delivery/sent" and n.params["message"]["purpose"] == "securityNotice"
               for n in received), received
    assert any(n.method == "audit/event" for n in received)
    before = len(received)
    lk.call("clock/advance", {"seconds": 72 * 3600})
    changes = [n for n in received[before:] if n.method == "accountRecovery/stateChanged"]
    assert changes and changes[-1].params["accountRecovery"]["state"] == 3
    assert received == lk.notifications


def test_kill_and_close(binary):
    lk = Latchkey.spawn(binary, DEFAULT_ARGS)
    assert lk.ping(echo=1) == {"echo": 1}
    lk.process.kill()
    with pytest.raises(LatchkeyProcessError) as caught:
        lk.ping(echo=2)
    assert caught.value.returncode == -9
    lk.close()
    with Latchkey.spawn(binary, DEFAULT_ARGS) as lk:
        lk.ping()
    assert lk.returncode == 0  # EOF on stdin: finish, flush, exit 0


def test_bad_flags_exit_with_status_2(binary):
    lk = Latchkey.spawn(binary, ["--seed", "1", "--db", "/nonexistent/x.sqlite"])
    with pytest.raises(LatchkeyProcessError) as caught:
        lk.ping()
    assert caught.value.returncode == 2 and caught.value.stderr
    lk.close()
