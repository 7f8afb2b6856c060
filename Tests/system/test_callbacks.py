"""Callbacks (issue 39): every status change POSTed to a receiver on loopback, signed as Standard
Webhooks says — each request checked by `standardwebhooks` from PyPI, not by our code — retried on the
schedule, never lost, and the configuration's bad input refused as the contract says.

Retries are driven with `--in-memory --clock manual` and `clock/advance` (the worker attempts what is
due before `clock/advance` and `admin/listCallbackDeliveries` answer), and with the system clock where
the contract's timing is the point.
"""
import base64
import collections
import datetime
import json
import os
import signal
import subprocess
import time

import pytest

from lkharness import activate, pin
from receivers import HANG, Receiver, PrivateCA, rfc3339, unused_port

SECRET = "whsec_" + base64.b64encode(bytes(range(1, 33))).decode()
MANUAL = ["--in-memory", "--clock", "manual"]
SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000]
REGISTRATION = "registration.stateChanged"


def at(start, seconds):
    return start + datetime.timedelta(seconds=seconds)


def configure(lk, url, events=(REGISTRATION,), **params):
    params.setdefault("secret", SECRET)
    return lk.ok("admin/configureCallback", url=url, events=list(events), **params)


def deliveries(lk, callback_id, **params):
    return lk.ok("admin/listCallbackDeliveries", callbackId=callback_id, **params)["deliveries"]


@pytest.fixture
def receivers():
    made = []

    def make(*args, **kw):
        r = Receiver(*args, **kw)
        made.append(r)
        return r

    yield make
    for r in made:
        r.close()


def test_a_signed_request_over_http_verified_by_standardwebhooks(spawn, receivers):
    receiver = receivers(secret=SECRET)
    lk = spawn("--in-memory")
    callback = configure(lk, receiver.url())
    assert callback["secret"] == SECRET and callback["events"] == [REGISTRATION]
    before = int(time.time())
    _, registration, _ = activate(lk, "ann")
    request, = receiver.wait_count(1)
    after = int(time.time())
    assert request.problem is None, request.problem
    assert request.method == "POST" and request.path == "/hook"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["user-agent"] == "latchkey/" + lk.ok("server/info")["version"]
    assert request.headers["webhook-id"].startswith("evt_") and "." not in request.headers["webhook-id"]
    assert before <= int(request.headers["webhook-timestamp"]) <= after + 1
    assert request.headers["webhook-signature"].startswith("v1,")
    body = request.verified
    # Compact JSON, in the contract's order.
    assert request.body == json.dumps(body, separators=(",", ":")).encode()
    assert list(body) == ["type", "timestamp", "seq", "data"]
    assert body["type"] == REGISTRATION and isinstance(body["seq"], int)
    assert before - 1 <= rfc3339(body["timestamp"]).timestamp() <= after + 1
    assert body["data"] == {"registrationId": registration, "userId": "ann", "applicationId": "default", "state": "active",
                            "previousState": None}
    deadline = time.monotonic() + 10
    while (listed := deliveries(lk, callback["callbackId"]))[0]["status"] != "delivered" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert listed[0]["status"] == "delivered" and listed[0]["attempts"] == 1 and listed[0]["lastStatusCode"] == 200
    assert listed[0]["eventId"] == request.id and listed[0]["nextAttemptAt"] is None and listed[0]["lastError"] is None


def test_https_with_a_private_ca_checks_the_certificate_and_its_host_name(spawn, receivers, workdir):
    ca = PrivateCA(workdir)
    os.makedirs(os.path.join(workdir, "elsewhere"))
    elsewhere = PrivateCA(os.path.join(workdir, "elsewhere"), names=("elsewhere.example",), addresses=())
    both = os.path.join(workdir, "both.pem")
    with open(both, "wb") as f:
        f.write(open(ca.ca_file, "rb").read() + open(elsewhere.ca_file, "rb").read())
    good = receivers(secret=SECRET, tls=ca.server_context(), manual=True)
    wrong_name = receivers(secret=SECRET, tls=elsewhere.server_context(), manual=True)
    lk = spawn(*MANUAL, "--callback-ca-file", both)
    start = rfc3339(lk.ok("clock/now")["now"])
    trusted = configure(lk, good.url(host="localhost"))
    by_address = configure(lk, good.url(host="127.0.0.1"))
    misnamed = configure(lk, wrong_name.url(host="localhost"))
    activate(lk, "tls")
    assert deliveries(lk, trusted["callbackId"])[0]["status"] == "delivered"
    assert deliveries(lk, by_address["callbackId"])[0]["status"] == "delivered"
    failed = deliveries(lk, misnamed["callbackId"])[0]
    assert (failed["status"], failed["lastError"], failed["lastStatusCode"]) == ("pending", "tlsFailure", None)
    requests = good.wait_count(2)
    assert all(good.verify_at(r, start)["type"] == REGISTRATION for r in requests)
    assert len({r.id for r in requests}) == 1
    assert wrong_name.snapshot() == []

    # Without --callback-ca-file the private CA is not trusted: the system's roots only.
    plain = spawn(*MANUAL)
    untrusted = configure(plain, good.url(host="localhost"))
    activate(plain, "tls2")
    failed = deliveries(plain, untrusted["callbackId"])[0]
    assert (failed["status"], failed["lastError"]) == ("pending", "tlsFailure")
    assert len(good.snapshot()) == 2


def test_tls_older_than_1_2_is_refused(spawn, receivers, workdir):
    import ssl
    ca = PrivateCA(workdir)
    try:
        context = ca.server_context(minimum=ssl.TLSVersion.TLSv1, maximum=ssl.TLSVersion.TLSv1_1)
        old = receivers(secret=SECRET, tls=context)
    except (ssl.SSLError, ValueError) as e:
        pytest.skip(f"this Python's OpenSSL serves no TLS 1.1: {e}")
    lk = spawn(*MANUAL, "--callback-ca-file", ca.ca_file)
    callback = configure(lk, old.url(host="localhost"))
    activate(lk, "old")
    failed = deliveries(lk, callback["callbackId"])[0]
    assert (failed["status"], failed["lastError"]) == ("pending", "tlsFailure")
    assert old.snapshot() == []


def test_500_503_then_200_on_the_manual_clock_same_id_same_body_each_signed_at_its_time(spawn, receivers):
    answers = iter([500, 503, 200])
    lk = spawn(*MANUAL)
    receiver = receivers(secret=SECRET, answer=lambda r: next(answers), manual=True)
    callback = configure(lk, receiver.url())
    activate(lk, "bo")
    start = rfc3339(lk.ok("clock/now")["now"])
    first, = deliveries(lk, callback["callbackId"])
    assert (first["attempts"], first["lastStatusCode"], first["lastError"]) == (1, 500, None)
    assert rfc3339(first["nextAttemptAt"]) == start + datetime.timedelta(seconds=5)
    lk.ok("clock/advance", seconds=4)
    assert deliveries(lk, callback["callbackId"])[0]["attempts"] == 1
    lk.ok("clock/advance", seconds=1)
    second, = deliveries(lk, callback["callbackId"])
    assert (second["attempts"], second["lastStatusCode"], second["status"]) == (2, 503, "pending")
    assert rfc3339(second["lastAttemptAt"]) == start + datetime.timedelta(seconds=5)
    assert rfc3339(second["nextAttemptAt"]) == start + datetime.timedelta(seconds=305)
    lk.ok("clock/advance", seconds=300)
    third, = deliveries(lk, callback["callbackId"])
    assert (third["attempts"], third["lastStatusCode"], third["status"], third["nextAttemptAt"]) == (3, 200, "delivered", None)
    requests = receiver.snapshot()
    assert len(requests) == 3
    assert len({r.id for r in requests}) == 1 and len({r.body for r in requests}) == 1
    assert [int(r.headers["webhook-timestamp"]) - int(start.timestamp()) for r in requests] == [0, 5, 305]
    # Each verifies with the manual clock as now, and with no other (standardwebhooks' 5 minutes).
    for request, offset in zip(requests, [0, 5, 305]):
        assert receiver.verify_at(request, at(start, offset))["seq"] == requests[0].json()["seq"]
    with pytest.raises(AssertionError, match="too old|tolerance"):
        receiver.verify_at(requests[0], at(start, 305))


def test_a_receiver_that_never_answers_times_out_at_10_s_and_is_retried(spawn, receivers):
    answers = iter([HANG, 200])
    lk = spawn(*MANUAL)
    receiver = receivers(secret=SECRET, answer=lambda r: next(answers), manual=True)
    callback = configure(lk, receiver.url())
    activate(lk, "cy")
    hung, = receiver.wait_count(1)
    listed, = deliveries(lk, callback["callbackId"], timeout=30)
    waited = time.monotonic() - hung.received
    assert 8.5 <= waited <= 14, waited
    assert (listed["attempts"], listed["lastError"], listed["lastStatusCode"], listed["status"]) == (1, "timeout", None, "pending")
    lk.ok("clock/advance", seconds=5)
    assert deliveries(lk, callback["callbackId"])[0]["status"] == "delivered"
    assert [r.id for r in receiver.snapshot()] == [hung.id, hung.id]


def test_a_dead_receiver_ends_failed_after_the_eighth_attempt_audited_then_retried_by_hand(spawn):
    lk = spawn(*MANUAL)
    callback = configure(lk, f"http://127.0.0.1:{unused_port()}/hook")
    activate(lk, "di")
    start = rfc3339(lk.ok("clock/now")["now"])
    elapsed = 0
    for attempt, delay in enumerate(SCHEDULE, start=1):
        listed, = deliveries(lk, callback["callbackId"])
        assert (listed["attempts"], listed["lastError"], listed["status"]) == (attempt, "connectionRefused", "pending")
        assert rfc3339(listed["lastAttemptAt"]) == start + datetime.timedelta(seconds=elapsed)
        assert rfc3339(listed["nextAttemptAt"]) == start + datetime.timedelta(seconds=elapsed + delay)
        assert not any(e["type"] == "callbackFailed" for e in lk.ok("audit/list")["events"])
        lk.ok("clock/advance", seconds=delay)
        elapsed += delay
    failed, = deliveries(lk, callback["callbackId"])
    assert (failed["attempts"], failed["status"], failed["nextAttemptAt"], failed["lastError"]) == (8, "failed", None, "connectionRefused")
    audited = [e for e in lk.ok("audit/list")["events"] if e["type"] == "callbackFailed"]
    assert len(audited) == 1
    assert deliveries(lk, callback["callbackId"], status="pending") == []
    retried = lk.ok("admin/retryCallbackDelivery", deliveryId=failed["deliveryId"])
    assert (retried["status"], retried["attempts"], retried["nextAttemptAt"]) == ("pending", 8, lk.ok("clock/now")["now"])
    again, = deliveries(lk, callback["callbackId"])
    assert (again["attempts"], again["status"]) == (9, "failed")
    assert len([e for e in lk.ok("audit/list")["events"] if e["type"] == "callbackFailed"]) == 2


@pytest.mark.parametrize("answer, status, audited", [(410, "failed", True), (307, "pending", False)])
def test_410_fails_at_once_and_a_redirect_is_not_followed_but_retried(spawn, receivers, answer, status, audited):
    lk = spawn(*MANUAL)
    receiver = receivers(secret=SECRET, answer=lambda r: answer, manual=True)
    callback = configure(lk, receiver.url())
    activate(lk, "ed")
    listed, = deliveries(lk, callback["callbackId"])
    assert (listed["attempts"], listed["status"], listed["lastStatusCode"]) == (1, status, answer)
    assert (listed["nextAttemptAt"] is None) == audited
    assert len(receiver.snapshot()) == 1
    assert any(e["type"] == "callbackFailed" for e in lk.ok("audit/list")["events"]) == audited
    lk.ok("clock/advance", seconds=86400)
    assert len(receiver.snapshot()) == (1 if audited else 2)


def test_on_the_system_clock_a_retry_is_due_5_s_after_the_first_attempt_began(spawn, receivers):
    answers = iter([503, 200])
    receiver = receivers(secret=SECRET, answer=lambda r: next(answers))
    lk = spawn("--in-memory")
    callback = configure(lk, receiver.url())
    activate(lk, "gi")
    first, second = receiver.wait_count(2, timeout=15)
    waited = second.received - first.received
    assert 3.9 <= waited <= 7.5, waited
    assert first.id == second.id and first.problem is None and second.problem is None
    deadline = time.monotonic() + 5
    while deliveries(lk, callback["callbackId"])[0]["status"] != "delivered":
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_one_failing_receiver_delays_no_other(spawn, receivers):
    slow = receivers(secret=SECRET, answer=lambda r: HANG)
    fast = receivers(secret=SECRET)
    lk = spawn("--in-memory")
    configure(lk, slow.url())
    configure(lk, fast.url())
    dev, reg, _ = activate(lk, "ho")
    for _ in range(20):
        lk.ok("admin/lockRegistration", registrationId=reg)
        lk.ok("admin/unlockRegistration", registrationId=reg)
    started = time.monotonic()
    fast.wait_count(41, timeout=8)
    assert time.monotonic() - started < 5


def test_a_process_killed_mid_delivery_delivers_after_restart_with_the_same_webhook_id(spawn, receivers, db_path):
    answers = iter([HANG] + [200] * 10)
    receiver = receivers(secret=SECRET, answer=lambda r: next(answers))
    first = spawn("--db", db_path, name="first")
    callback = configure(first, receiver.url())
    activate(first, "ib")
    hung, = receiver.wait_count(1)
    first.p.send_signal(signal.SIGKILL)
    first.wait()
    killed_at = time.monotonic()
    second = spawn("--db", db_path, name="second")
    assert second.ok("admin/listCallbacks")["callbacks"][0]["callbackId"] == callback["callbackId"]
    again = receiver.wait_count(2, timeout=40)[1]
    assert again.id == hung.id and again.body == hung.body and again.problem is None
    assert again.received - killed_at <= 32, "taken over within the 30 s lease"
    deadline = time.monotonic() + 5
    while (listed := deliveries(second, callback["callbackId"])[0])["status"] != "delivered":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert listed["attempts"] == 1  # the killed attempt was never recorded


def test_four_processes_on_one_sqlite_store_deliver_1000_events_each_exactly_once(spawn, receivers, db_path):
    receiver = receivers(secret=SECRET)
    procs = [spawn("--db", db_path, name=f"w{i}") for i in range(4)]
    configure(procs[0], receiver.url())
    registrations = []
    for i, lk in enumerate(procs):
        registrations.append(activate(lk, f"four-{i}")[1])
    baseline = len(receiver.wait_count(4))
    pairs = 500

    # Each process locks and unlocks its registration 500 times (1 000 events), requests pipelined.
    import threading

    def load(lk, registration):
        ids = []
        for _ in range(pairs):
            ids.append(lk.send("admin/lockRegistration", {"registrationId": registration}))
            ids.append(lk.send("admin/unlockRegistration", {"registrationId": registration}))
            if len(ids) >= 64:
                for i in ids:
                    assert "result" in lk.recv(i, timeout=30)
                ids = []
        for i in ids:
            assert "result" in lk.recv(i, timeout=30)

    threads = [threading.Thread(target=load, args=(lk, reg)) for lk, reg in zip(procs, registrations)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    total = baseline + 4 * 2 * pairs
    requests = receiver.wait_count(total, timeout=40)
    took = time.monotonic() - started
    time.sleep(1)  # nothing more may come
    requests = receiver.snapshot()
    counts = collections.Counter(r.id for r in requests)
    assert len(counts) == total and max(counts.values()) == 1, (len(counts), counts.most_common(3))
    assert all(r.problem is None for r in requests[:50])
    per_registration = collections.Counter(r.verified["data"]["registrationId"] for r in requests if r.verified)
    assert sorted(per_registration.values()) == [1 + 2 * pairs] * 4
    seqs = [r.verified["seq"] for r in requests]
    assert len(set(seqs)) == total
    for lk in procs:
        assert lk.p.poll() is None
    print(f"\n4 processes: {total} events delivered once each in {took:.1f}s")


def test_events_reach_the_receiver_numbered_in_commit_order(spawn, receivers):
    receiver = receivers(secret=SECRET)
    lk = spawn("--in-memory")
    configure(lk, receiver.url(), events=[REGISTRATION, "onboarding.statusChanged"])
    lk.ok("admin/createUser", userId="jo", email="jo@example.com", birthDate="1990-05-17")
    lk.ok("device/create", deviceId="jo-phone")
    lk.ok("onboarding/start", deviceId="jo-phone", credentials={"email": "jo@example.com"})
    otp = lk.ok("delivery/list")["messages"][-1]["code"]
    lk.ok("onboarding/activate", deviceId="jo-phone", otp=otp)
    registration = lk.ok("activation/finish", deviceId="jo-phone", authParameter=pin("1357"))["registrationId"]
    lk.ok("admin/completeVerification", userId="jo", approved=True)
    lk.ok("admin/lockRegistration", registrationId=registration)
    requests = receiver.wait_count(6)
    assert all(r.problem is None for r in requests)
    ordered = sorted((r.verified for r in requests), key=lambda b: b["seq"])
    seen = [(b["type"], b["data"].get("status") or b["data"].get("state")) for b in ordered]
    assert seen == [
        ("onboarding.statusChanged", "activationInProgress"),
        # activation/finish: two events in one transaction, numbered one after the other
        (REGISTRATION, "verificationPending"), ("onboarding.statusChanged", "verificationInProgress"),
        # admin/completeVerification: two more
        (REGISTRATION, "active"), ("onboarding.statusChanged", "finished"),
        (REGISTRATION, "lockedByAdmin"),
    ], seen
    seqs = [b["seq"] for b in ordered]
    assert seqs[2] == seqs[1] + 1 and seqs[4] == seqs[3] + 1


@pytest.mark.parametrize("url, why", [
    ("ftp://127.0.0.1/hook", "https://"),
    ("file:///etc/passwd", "https://"),
    ("http://example.com/hook", "loopback"),
    ("http://10.0.0.1/hook", "loopback"),
    ("https://10.1.2.3/hook", "private"),
    ("https://192.168.1.1/hook", "private"),
    ("https://172.16.0.9/hook", "private"),
    ("https://[fd00::1]/hook", "private"),
    ("https://169.254.169.254/latest", "link-local"),
    ("https://[fe80::1]/hook", "link-local"),
    ("https://0.0.0.0/hook", "unspecified"),
    ("https://user:pw@example.com/hook", "user info"),
    ("https://example.com/" + "a" * 2040, "2048"),
])
def test_a_bad_url_is_invalid_params(spawn, url, why):
    lk = spawn("--in-memory")
    error = lk.err("admin/configureCallback", url=url, events=[REGISTRATION])
    assert error["data"]["reason"] == "invalidParams", error
    problem, = error["data"]["errors"]
    assert problem["path"] == "url", problem
    assert why in problem["message"] or why in ("private", "link-local", "unspecified") and "private" in problem["message"], problem
    assert url not in json.dumps(error)


def test_bad_events_secret_and_callback_id(spawn):
    lk = spawn("--in-memory")
    url = "https://127.0.0.1/hook"
    error = lk.err("admin/configureCallback", url=url, events=["registration.deleted"])
    assert error["data"]["reason"] == "invalidParams" and error["data"]["errors"][0]["path"].startswith("events")
    assert lk.err("admin/configureCallback", url=url, events=[])["data"]["reason"] == "invalidParams"
    for secret in ["whsec_" + base64.b64encode(b"x" * 16).decode(),           # too short
                   "whsec_" + base64.b64encode(b"x" * 65).decode(),           # too long
                   base64.b64encode(b"y" * 32).decode(),                      # no prefix
                   "whsec_" + base64.urlsafe_b64encode(b"\xfb\xff" * 16).decode(),  # base64url
                   "whsec_" + base64.b64encode(b"z" * 32).decode().rstrip("=") + "!"]:
        error = lk.err("admin/configureCallback", url=url, events=[REGISTRATION], secret=secret)
        assert error["data"]["reason"] == "invalidParams" and error["data"]["errors"][0]["path"] == "secret", error
        assert secret not in json.dumps(error)
    error = lk.err("admin/configureCallback", url=url, events=[REGISTRATION], callbackId="cb_nothere")
    assert (error["data"]["reason"], error["data"]["kind"]) == ("notFound", "callback")
    assert lk.err("admin/removeCallback", callbackId="cb_nothere")["data"]["kind"] == "callback"
    assert lk.err("admin/listCallbackDeliveries", callbackId="cb_nothere")["data"]["kind"] == "callback"
    assert lk.err("admin/retryCallbackDelivery", deliveryId="dlv_nothere")["data"]["kind"] == "callbackDelivery"


def test_private_addresses_are_allowed_with_the_flag(spawn):
    # No event is written in this process: nothing is ever sent to the private address.
    lk = spawn("--in-memory", "--callback-allow-private")
    assert lk.ok("admin/configureCallback", url="https://10.1.2.3/hook", events=[REGISTRATION])["url"] == "https://10.1.2.3/hook"


def test_the_secret_is_never_in_a_log_an_error_an_audit_event_or_a_listing(spawn, receivers, workdir):
    receiver = receivers(secret=SECRET)
    lk = spawn("--in-memory", "--log-level", "trace", name="traced")
    made = lk.ok("admin/configureCallback", url=receiver.url(), events=[REGISTRATION])["secret"]
    replaced = configure(lk, receiver.url(), callbackId=lk.ok("admin/listCallbacks")["callbacks"][0]["callbackId"])
    assert replaced["secret"] == SECRET
    kept = lk.ok("admin/configureCallback", url=receiver.url(), events=[REGISTRATION], callbackId=replaced["callbackId"])
    assert kept["secret"] is None
    bad = "whsec_" + base64.b64encode(b"q" * 8).decode()
    lk.err("admin/configureCallback", url=receiver.url(), events=[REGISTRATION], secret=bad)
    activate(lk, "ka")
    receiver.wait_count(1)
    listing = lk.ok("admin/listCallbacks")
    assert "secret" not in listing["callbacks"][0]
    audit = lk.ok("audit/list")
    lk.close()
    stdout_after_answers = b"".join(line for line in lk.raw_lines if b'"secret":' not in line)
    stderr = lk.stderr_bytes()
    assert b"admin/configureCallback" in stderr  # the trace logged the calls
    for secret in (made, SECRET, bad):
        key = secret[len("whsec_"):]
        for text in (secret.encode(), key.encode(), key.rstrip("=").encode()):
            assert text not in stderr
            assert text not in stdout_after_answers
            assert text not in json.dumps(audit).encode() and text not in json.dumps(listing).encode()


def test_a_bad_ca_file_exits_2_and_the_help_names_both_flags(bin_path, workdir):
    missing = subprocess.run([bin_path, "--in-memory", "--callback-ca-file", os.path.join(workdir, "none.pem")],
                             input=b"", capture_output=True, timeout=20)
    assert missing.returncode == 2 and b"--callback-ca-file" in missing.stderr, missing.stderr
    junk = os.path.join(workdir, "junk.pem")
    with open(junk, "w") as f:
        f.write("-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n")
    malformed = subprocess.run([bin_path, "--in-memory", "--callback-ca-file", junk], input=b"", capture_output=True, timeout=20)
    assert malformed.returncode == 2 and b"--callback-ca-file" in malformed.stderr, malformed.stderr
    empty = os.path.join(workdir, "empty.pem")
    open(empty, "w").close()
    assert subprocess.run([bin_path, "--in-memory", "--callback-ca-file", empty], input=b"", capture_output=True,
                          timeout=20).returncode == 2
    helptext = subprocess.run([bin_path, "--help"], capture_output=True, timeout=20).stdout
    assert b"--callback-ca-file" in helptext and b"--callback-allow-private" in helptext


def test_a_process_with_no_callback_starts_no_delivery_thread(spawn):
    lk = spawn("--in-memory")
    activate(lk, "la")
    threads = len(os.listdir(f"/proc/{lk.p.pid}/task"))
    lk.ok("admin/configureCallback", url=f"http://127.0.0.1:{unused_port()}/hook", events=[REGISTRATION])
    dev, reg, _ = activate(lk, "lb")
    time.sleep(0.5)
    assert len(os.listdir(f"/proc/{lk.p.pid}/task")) > threads
