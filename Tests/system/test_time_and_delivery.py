"""Time-driven transitions on the system clock, --deliver-command, and enumeration resistance."""
import json
import os
import select
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lk import Proc  # noqa: E402


def read_line(proc, timeout):
    ready, _, _ = select.select([proc.p.stdout], [], [], timeout)
    if not ready:
        return None
    return json.loads(proc.p.stdout.readline())


def test_grace_period_ends_and_reaches_a_subscriber_with_no_request(bin_path):
    """On the system clock, the transition to the insecure window is pushed without polling."""
    p = Proc(bin_path, "--in-memory")
    try:
        p.call("admin/configureServer", gracePeriodSeconds=1, insecureWindowSeconds=3600)
        p.call("admin/createUser", userId="sam", email="sam@example.com", password="password1")
        session = p.call("user/login", userId="sam", password="password1")["sessionId"]
        p.call("events/subscribe", topics=["accountRecovery"])
        started = p.call("accountRecovery/start", sessionId=session)["accountRecovery"]
        assert started["state"] == 1
        p.notifications.clear()
        deadline = time.time() + 5
        pushed = None
        while time.time() < deadline and pushed is None:
            message = read_line(p, deadline - time.time())
            if message and message.get("method") == "accountRecovery/stateChanged":
                pushed = message
        assert pushed is not None, "no stateChanged notification arrived on its own"
        state = pushed["params"]["accountRecovery"]
        assert state["state"] == 3
        assert state["startTime"] == started["endTime"]
    finally:
        p.close()


def test_deliver_command_receives_every_message_and_failure_is_audited(bin_path, tmp_path):
    record = tmp_path / "messages.jsonl"
    script = tmp_path / "deliver.sh"
    script.write_text(f"#!/bin/sh\ncat >> {record}\n")
    script.chmod(0o755)
    p = Proc(bin_path, "--in-memory", "--deliver-command", str(script))
    try:
        p.call("admin/createUser", userId="kim", email="kim@example.com", phoneNumber="+4530000000")
        p.call("device/create", deviceId="kims-phone")
        p.call("onboarding/start", deviceId="kims-phone", credentials={"email": "kim@example.com"})
        p.call("reset/requestPasswordReset", phoneNumber="+4530000000", redirectUrl="app://r")
    finally:
        p.close()
    delivered = [json.loads(line) for line in record.read_text().splitlines()]
    # Deliveries run off the request path, each on its own: they may finish in any order.
    delivered.sort(key=lambda m: m["purpose"])
    assert [m["purpose"] for m in delivered] == ["onboardingOtp", "passwordReset"]
    assert delivered[0]["to"] == "kim@example.com" and delivered[0]["channel"] == "email"
    assert delivered[1]["channel"] == "sms" and len(delivered[1]["code"]) == 6

    failing = Proc(bin_path, "--in-memory", "--deliver-command", "exit 7")
    try:
        failing.call("admin/createUser", userId="lee", email="lee@example.com")
        failing.call("device/create", deviceId="lees-phone")
        failing.call("onboarding/start", deviceId="lees-phone", credentials={"email": "lee@example.com"})
        assert failing.call("ping", echo=1) == {"echo": 1}
        # The command runs off the request path: its failure is audited when it is over.
        deadline = time.time() + 5
        types = []
        while "deliveryFailed" not in types and time.time() < deadline:
            time.sleep(0.1)
            types = [e["type"] for e in failing.call("audit/list")["events"]]
        assert "deliveryFailed" in types
    finally:
        failing.close()


def test_a_hanging_deliver_command_is_stopped_and_the_process_keeps_serving(bin_path):
    """A command that never exits is stopped after its time limit (10 s), off the request path:
    the request that sent the message is answered at once, the next request is served, and the
    failure is audited once the command is stopped."""
    p = Proc(bin_path, "--in-memory", "--deliver-command", "exec sleep 100000")
    try:
        p.call("admin/createUser", userId="lee", email="lee@example.com")
        started = time.monotonic()
        assert p.call("reset/requestPasswordReset", email="lee@example.com", redirectUrl="app://r") == {}
        took = time.monotonic() - started
        assert took < 2, took
        assert p.call("ping", echo=2) == {"echo": 2}
        failed = []
        while not failed and time.monotonic() - started < 16:
            time.sleep(0.2)
            failed = [e for e in p.call("audit/list")["events"] if e["type"] == "deliveryFailed"]
        assert 9 < time.monotonic() - started < 16
        assert [e.get("detail") for e in failed] == ["passwordReset"]
    finally:
        p.close()


def test_onboarding_start_answers_the_same_for_known_and_unknown_identities(bin_path):
    """Same bytes, and time within noise, whether or not the credentials match a user. The two processes are asked in turn, so
    the load of whatever else runs on the machine falls on both samples alike."""
    def start():
        proc = subprocess.Popen([bin_path, "--in-memory", "--seed", "5", "--clock", "manual"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        ask(proc, {"jsonrpc": "2.0", "id": 1, "method": "admin/createUser", "params": {"userId": "ann", "email": "ann@example.com"}})
        return proc

    def ask(proc, message):
        started = time.perf_counter()
        proc.stdin.write((json.dumps(message) + "\n").encode()); proc.stdin.flush()
        line = proc.stdout.readline()
        return line, time.perf_counter() - started

    procs = {"ann@example.com": start(), "nobody@example.com": start()}
    lines = {email: [] for email in procs}
    timings = {email: [] for email in procs}
    for i in range(30):
        for email, proc in procs.items():
            ask(proc, {"jsonrpc": "2.0", "id": 10 + i, "method": "device/create", "params": {"deviceId": f"d{i}"}})
            line, took = ask(proc, {"jsonrpc": "2.0", "id": 100 + i, "method": "onboarding/start",
                                    "params": {"deviceId": f"d{i}", "credentials": {"email": email}}})
            lines[email].append(line)
            timings[email].append(took)
    for proc in procs.values():
        proc.stdin.close(); proc.wait(timeout=10)
    known_lines, unknown_lines = lines.values()
    known_time, unknown_time = (statistics.median(t) for t in timings.values())
    assert known_lines == unknown_lines
    # Generous bound: the point is no systematic gap such as a skipped KDF or database write.
    assert abs(known_time - unknown_time) < max(known_time, unknown_time) * 0.5 + 0.002
