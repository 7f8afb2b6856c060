"""Crash consistency (security property 5): a response is written only after its
transaction commits, so every acknowledged write survives SIGKILL at any moment,
and the SQLite file stays intact.

A writer thread pipelines admin/createUser with increasing userIds as fast as the
process takes them, and every 20 users runs a full activation (activation code,
device, activation/start, activation/finish with a PIN, then one wrong-PIN
authentication) awaiting each answer; the harness's reader thread records every
reply. At a random moment the process is SIGKILLed; it is restarted on the same
file and the writing goes on. At the end: every acknowledged userId exists
(admin/createUser with the same userId answers alreadyExists, 1001), every
acknowledged activation is an active registration the device can still
authenticate with, every acknowledged failed attempt is counted, and
PRAGMA integrity_check is ok.

The random schedule comes from LATCHKEY_CRASH_SEED (printed on failure).
"""
import os
import random
import signal
import sqlite3
import threading
import time

from lkharness import ProtocolFailure, check_not_internal, pin

KILLS = 7


def integrity(db_path):
    con = sqlite3.connect(db_path, timeout=10)
    try:
        return [r[0] for r in con.execute("PRAGMA integrity_check").fetchall()]
    finally:
        con.close()


class Stream:
    def __init__(self):
        self.sent = []          # (request id, userId) of pipelined createUser requests
        self.activations = []   # (userId, deviceId, registrationId) acknowledged
        self.refused = []       # unexpected error replies


def pump(lk, first_uid, out, stop):
    """Writes until stopped, killed (broken pipe / EOF) or refused."""
    uid = first_uid

    def awaited(method, params):
        reply = lk.recv(lk.send(method, params), timeout=30)
        if "error" in reply:
            out.refused.append((method, reply))
            raise ProtocolFailure(f"{method} refused")
        return reply["result"]

    try:
        while not stop.is_set():
            for _ in range(20):
                user_id = f"crash-user-{uid:06d}"
                id_ = lk.send("admin/createUser", {"userId": user_id, "email": f"{user_id}@example.com",
                                                    "attributes": {"n": uid, "pad": "x" * (uid % 97)}})
                out.sent.append((id_, user_id))
                uid += 1
            code = awaited("admin/createActivationCode", {"userId": user_id})["activationCode"]
            dev = awaited("device/create", {})["deviceId"]
            awaited("activation/start", {"deviceId": dev, "activationCode": code})
            reg = awaited("activation/finish", {"deviceId": dev, "authParameter": pin("2468")})["registrationId"]
            out.activations.append([user_id, dev, reg, False])
            # One wrong PIN: once its answer is read, the failed attempt must be on record.
            awaited("authentication/start", {"deviceId": dev})
            reply = lk.recv(lk.send("authentication/finish", {"deviceId": dev, "authParameter": pin("1357")}), timeout=30)
            if reply.get("error", {}).get("data", {}).get("reason") != "authenticationFailed":
                out.refused.append(("authentication/finish", reply))
                raise ProtocolFailure("wrong PIN not refused")
            out.activations[-1][3] = True
    except (BrokenPipeError, OSError, ValueError, ProtocolFailure):
        pass


def test_sigkill_at_random_moments_keeps_every_acknowledged_write(spawn, db_path):
    seed = int(os.environ.get("LATCHKEY_CRASH_SEED", time.time_ns() % 2**32))
    rng = random.Random(seed)
    ctx = f"(LATCHKEY_CRASH_SEED={seed})"

    acked = []            # userIds whose success reply was read before the kill
    activations = []
    next_uid = 0
    for cycle in range(KILLS):
        lk = spawn("--db", db_path, name=f"crash{cycle}")
        lk.ok("ping", timeout=30)
        out, stop = Stream(), threading.Event()
        writer = threading.Thread(target=pump, args=(lk, next_uid, out, stop), daemon=True)
        writer.start()
        # Wait for the first acknowledgement (the process is really writing), then
        # let it run for a random time: the kill lands at a random point of its writes.
        deadline = time.monotonic() + 20
        while not out.sent or out.sent[0][0] not in lk.replies:
            assert time.monotonic() < deadline, f"no createUser acknowledged in 20 s {ctx}"
            assert lk.p.poll() is None, f"latchkey died on its own (rc={lk.p.returncode}) {ctx}"
            time.sleep(0.005)
        time.sleep(rng.uniform(0.0, 0.6))
        assert lk.p.poll() is None, f"latchkey died on its own (rc={lk.p.returncode}) {ctx}"
        os.kill(lk.p.pid, signal.SIGKILL)
        rc = lk.p.wait(timeout=10)
        assert rc == -signal.SIGKILL, f"cycle {cycle}: exit status {rc} {ctx}"
        stop.set()
        writer.join(10)
        assert not writer.is_alive(), f"writer thread stuck {ctx}"
        lk.wait_eof(10)
        assert not out.refused, f"cycle {cycle}: refused: {out.refused} {ctx}"

        got = 0
        for id_, user_id in out.sent:
            reply = lk.replies.get(id_)
            if reply is None:
                continue
            check_not_internal(reply, f"admin/createUser {user_id} {ctx}")
            assert "result" in reply, f"cycle {cycle}: {user_id} refused: {reply} {ctx}"
            acked.append(user_id)
            got += 1
        # Replies come in request order: what was acknowledged is a prefix of what was sent.
        acked_ids = [i for i, _ in out.sent if i in lk.replies]
        assert acked_ids == [i for i, _ in out.sent[:len(acked_ids)]], f"cycle {cycle}: replies out of order {ctx}"
        assert got > 0, f"cycle {cycle}: nothing acknowledged {ctx}"
        activations += out.activations
        next_uid += len(out.sent)

        if cycle % 2 == 1:
            # Checked straight after the kill, with the WAL as the killed process left it.
            assert integrity(db_path) == ["ok"], ctx

    print(f"crash test: {len(acked)} acknowledged users and {len(activations)} activations "
          f"over {KILLS} kills, {next_uid} users sent {ctx}")

    # A fresh process sees every acknowledged write.
    lk = spawn("--db", db_path, name="verify")
    ids = [(lk.send("admin/createUser", {"userId": u}), u) for u in acked]
    missing = []
    for id_, user_id in ids:
        reply = lk.recv(id_, timeout=60)
        check_not_internal(reply, f"admin/createUser {user_id}")
        if reply.get("error", {}).get("code") != 1001:
            missing.append((user_id, reply))
    assert not missing, f"{len(missing)} of {len(acked)} acknowledged users lost: {missing[:5]} {ctx}"

    for user_id, dev, reg, failure_acked in activations:
        r = lk.ok("admin/getRegistration", registrationId=reg)
        assert (r["state"], r["userId"]) == ("active", user_id), f"{r} {ctx}"
        if failure_acked:
            assert r["failedAttempts"] == 1, f"an acknowledged failed attempt was lost: {r} {ctx}"
        else:
            assert r["failedAttempts"] in (0, 1), f"{r} {ctx}"
        assert lk.ok("device/registrationId", deviceId=dev) == {"registrationId": reg}, ctx
        lk.ok("authentication/start", deviceId=dev)
        assert lk.ok("authentication/finish", deviceId=dev, authParameter=pin("2468"))["responseType"] == "authenticated", ctx

    # The store still takes new writes after all the kills.
    assert lk.ok("admin/createUser", userId="after-the-crashes") == {"userId": "after-the-crashes"}
    assert lk.close() == 0
    assert integrity(db_path) == ["ok"], ctx
