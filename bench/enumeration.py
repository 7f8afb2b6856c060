#!/usr/bin/env python3
"""Does an answer's time tell whether an identifier belongs to an account? (issue 35 point 8,
security property 11 of the contract)

For each method that answers an unknown identifier the same as a known one, this measures the
round trip of calls naming a KNOWN account against calls naming an UNKNOWN identifier:

    method                         known call                           unknown call
    passkey/requestOptions         email of a user with a passkey       email of nobody
                                   (made by the simulated phone)
    reset/passkeyCreationOptions   email of a user, a wrong code        email of nobody, a code
                                   (account recovery asked for both before: a code is pending for the
                                   user, and the request is remembered for nobody alike)
    reset/requestAccountRecovery   email of a user (a code is sent)     email of nobody (nothing sent)
    reset/requestPasswordReset     email of a user (a code is sent)     email of nobody (nothing sent)
    server/onboarding/start        credentials {email} of a user        credentials {email} of nobody
                                   (an OTP is sent)
    onboarding/start               the same, from a simulated phone     the same, from a phone of
                                   of its own (device/create before)    its own
    user/login                     email of a user, a wrong password    email of nobody, a password
                                   (invalidCredentials)                 (invalidCredentials)

plus two variants (ENUM_VARIANTS=0 leaves them out): passkey/requestOptions for a user with no
passkey, and reset/passkeyCreationOptions with no account recovery asked for either side.

How: one long-lived latchkey process per method (a temporary SQLite file by default), driven over
stdio one request at a time. Every round makes one known and one unknown call, in an order drawn
at random per round (ENUM_SEED), each timed alone with time.perf_counter_ns from the write of the
request to the read of its reply (the request is serialised before, the reply parsed after).
Every call names an identifier never used before, on both sides: the known accounts are made
before the timing starts (admin/createUser and what the method needs), so no per-identifier limit
is ever reached (sends 1 per 30 s and 5 an hour, 5 failed logins in 15 min, one onboarding process
per installation: each installationId is fresh too), the store does not grow with known users
during the timing, and neither side has a warmer cache than the other. The identifiers of both
sides have one shape (random hex of the same length), and which of each pair is made is random.
WARMUP rounds run first and are not counted.

Printed per method: the medians (µs) of the known and unknown round trips, their difference, and
the Wilcoxon rank-sum (Mann–Whitney) z of known against unknown (normal approximation with the tie
correction, no continuity correction; positive z: known calls are slower). The goal of the issue:
|z| < 3 at 300 rounds. When scipy can be imported its mannwhitneyu cross-checks U and p. Besides
time, every pair of answers is compared in content (result members, or error reason and data):
a pair that differs is counted and shown, since property 11 forbids that too.

Run (from the repository root; the binary is the release build unless LATCHKEY_BIN says another):

    python3 bench/enumeration.py
    LATCHKEY_BIN=/path/to/latchkey ENUM_ROUNDS=300 python3 bench/enumeration.py

Environment:
    LATCHKEY_BIN    the binary (default ../.build/release/latchkey relative to bench/)
    ENUM_ROUNDS     measured rounds per method (default 300)
    ENUM_WARMUP     rounds before them, not counted (default 30)
    ENUM_STORE      sqlite (default: a temporary --db file), memory (--in-memory), or postgres (the database
                    LATCHKEY_TEST_POSTGRES names, with a key file in the temporary folder: `bash Tests/pg/cluster.sh
                    run env ENUM_STORE=postgres python3 bench/enumeration.py`; every method's process shares it)
    ENUM_METHODS    comma-separated methods to run (default: all; a variant is named with its
                    suffix, e.g. "passkey/requestOptions:noPasskey")
    ENUM_VARIANTS   0 leaves out the two variants (default 1)
    ENUM_SEED       seed of the identifiers and the call order (default 1)
    ENUM_REUSE      1: one known and one unknown identifier, each named in every round (as a
                    caller probing one account would; what the known account accumulates, audit
                    rows, processes, sent messages, must not tell either); methods whose per-
                    identifier limit would change the answer (user/login) are left out

Writes bench/out/enumeration.json (medians, z, U, the content differences and every round trip in
µs) and the servers' stderr to bench/out/enumeration.stderr.log. Needs nothing but Python 3.
Exit status 0 when every method ran (a |z| of 3 or more is reported, not an error), 1 when a call
answered something unexpected, 2 when the binary is missing.
"""
from __future__ import annotations

import gc
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchlib import kill_group, median, percentile, stderr_log, write_result  # noqa: E402

ROUNDS = int(os.environ.get("ENUM_ROUNDS", "300"))
WARMUP = int(os.environ.get("ENUM_WARMUP", "30"))
STORE = os.environ.get("ENUM_STORE", "sqlite")
SEED = int(os.environ.get("ENUM_SEED", "1"))
VARIANTS = os.environ.get("ENUM_VARIANTS", "1") != "0"
REUSE = os.environ.get("ENUM_REUSE", "0") == "1"
ONLY = [m.strip() for m in os.environ.get("ENUM_METHODS", "").split(",") if m.strip()]
PASSWORD = "correct horse battery"
WRONG_PASSWORD = "wrong horse battery!"
REDIRECT = "app://reset"
Z_GOAL = 3.0


class Unexpected(Exception):
    """A call answered something the benchmark did not expect (a bug here or in the server)."""


# -- the process ---------------------------------------------------------------------------

class Server:
    """One latchkey process driven over stdio, one request at a time."""

    def __init__(self, argv: list[str], log) -> None:
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                  start_new_session=True)
        self.fd = self.p.stdin.fileno()
        self.out = self.p.stdout
        self.next_id = 0

    def line(self, method: str, params: dict) -> tuple[int, bytes]:
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        return self.next_id, (json.dumps(msg, separators=(",", ":")) + "\n").encode()

    def timed(self, method: str, params: dict) -> tuple[int, dict]:
        """(nanoseconds from the write of the request to the read of its reply, the reply)."""
        rid, data = self.line(method, params)
        t0 = time.perf_counter_ns()
        os.write(self.fd, data)
        raw = self.out.readline()
        t1 = time.perf_counter_ns()
        return t1 - t0, self._reply(rid, method, raw)

    def _reply(self, rid: int, method: str, raw: bytes) -> dict:
        if not raw:
            raise Unexpected(f"latchkey exited (status {self.p.poll()}) before answering {method}")
        reply = json.loads(raw)
        if reply.get("id") != rid:  # nothing is subscribed, so no notification may come first
            raise Unexpected(f"{method}: expected the reply to id {rid}, got {raw[:200]!r}")
        return reply

    def request(self, method: str, **params) -> dict:
        rid, data = self.line(method, params)
        os.write(self.fd, data)
        return self._reply(rid, method, self.out.readline())

    def ok(self, method: str, **params):
        reply = self.request(method, **params)
        if "error" in reply:
            raise Unexpected(f"{method} failed: {reply['error']}")
        return reply["result"]

    def close(self) -> None:
        try:
            self.p.stdin.close()
            self.p.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            pass
        kill_group(self.p)


# -- the methods -----------------------------------------------------------------------------
#
# Each method has: prepare(lk, email) -> what its known call needs (run before the timing for every
# known identifier), optionally prepare_unknown(lk, email) (the same for every unknown one), and
# params(email, prepared, rng) -> the params of a call (prepared is None for an unknown
# identifier), plus the answer both calls must give ("result" or an error reason).

def prepare_user(lk: Server, email: str):
    lk.ok("admin/createUser", email=email)
    return {}


def phone_of(email: str) -> str:
    """The simulated phone that starts onboarding for `email` (one process per phone: each call has a phone of its own)."""
    return "phone-" + email.split("@")[0]


def prepare_phone(lk: Server, email: str):
    lk.ok("device/create", deviceId=phone_of(email))
    return None


def prepare_user_and_phone(lk: Server, email: str):
    lk.ok("admin/createUser", email=email)
    prepare_phone(lk, email)
    return {}


def prepare_user_with_password(lk: Server, email: str):
    lk.ok("admin/createUser", email=email, password=PASSWORD)
    return {}


def recovery_code(lk: Server, email: str) -> str:
    """Asks an account-recovery code for `email` and reads it from the outbox."""
    lk.ok("reset/requestAccountRecovery", email=email, redirectUrl=REDIRECT)
    messages = [m for m in lk.ok("delivery/list", to=email)["messages"] if m.get("code")]
    if not messages:
        raise Unexpected(f"no code was sent to {email}")
    return messages[-1]["code"]


def prepare_user_with_passkey(lk: Server, email: str):
    """A user whose passkey the simulated phone made (through a passkey reset, which needs no
    password): its allowCredentials entry looks like the made-up one of an unknown identifier."""
    lk.ok("admin/createUser", email=email)
    code = recovery_code(lk, email)
    lk.ok("reset/resetPasskeys", email=email, verificationCode=code, passkey={"deviceId": "enum-phone"})
    return {}


def prepare_user_with_code(lk: Server, email: str):
    lk.ok("admin/createUser", email=email)
    return {"code": recovery_code(lk, email)}


def prepare_request_for_nobody(lk: Server, email: str):
    """The same request for an identifier of nobody (nothing is sent; the server may remember it)."""
    lk.ok("reset/requestAccountRecovery", email=email, redirectUrl=REDIRECT)
    return None


def six_digits(rng: random.Random, avoid: str | None = None) -> str:
    while True:
        code = f"{rng.randrange(1_000_000):06d}"
        if code != avoid:
            return code


def setup_phone(lk: Server) -> None:
    lk.ok("device/create", deviceId="enum-phone")


METHODS = [
    {
        "name": "passkey/requestOptions",
        "method": "passkey/requestOptions",
        "known": "email of a user with one passkey (simulated phone)",
        "setup": setup_phone,
        "prepare": prepare_user_with_passkey,
        "params": lambda email, prep, rng: {"email": email},
        "answer": "result",
    },
    {
        "name": "reset/passkeyCreationOptions",
        "method": "reset/passkeyCreationOptions",
        "known": "email of a user with a recovery code pending, a wrong code; unknown: recovery asked too",
        "prepare": prepare_user_with_code,
        "prepare_unknown": prepare_request_for_nobody,
        "params": lambda email, prep, rng: {
            "email": email, "verificationCode": six_digits(rng, prep and prep.get("code"))},
        "answer": "verificationCodeInvalid",
    },
    {
        "name": "reset/requestAccountRecovery",
        "method": "reset/requestAccountRecovery",
        "known": "email of a user (a code is sent)",
        "prepare": prepare_user,
        "params": lambda email, prep, rng: {"email": email, "redirectUrl": REDIRECT},
        "answer": "result",
    },
    {
        "name": "reset/requestPasswordReset",
        "method": "reset/requestPasswordReset",
        "known": "email of a user (a code is sent)",
        "prepare": prepare_user,
        "params": lambda email, prep, rng: {"email": email, "redirectUrl": REDIRECT},
        "answer": "result",
    },
    {
        "name": "server/onboarding/start",
        "method": "server/onboarding/start",
        "known": "credentials {email} of a user (an OTP is sent), a fresh installationId",
        "prepare": prepare_user,
        "params": lambda email, prep, rng: {
            "credentials": {"email": email}, "installationId": f"enum-{rng.getrandbits(64):016x}"},
        "answer": "result",
    },
    {
        "name": "onboarding/start",
        "method": "onboarding/start",
        "known": "credentials {email} of a user (an OTP is sent), from a phone of its own",
        "prepare": prepare_user_and_phone,
        "prepare_unknown": prepare_phone,
        "params": lambda email, prep, rng: {"deviceId": phone_of(email), "credentials": {"email": email}},
        "answer": "result",
    },
    {
        "name": "user/login",
        "method": "user/login",
        "known": "email of a user with a password, a wrong password",
        "prepare": prepare_user_with_password,
        "params": lambda email, prep, rng: {"email": email, "password": WRONG_PASSWORD},
        "answer": "invalidCredentials",
        "reuse": False,  # the fifth failed login of one identifier is rateLimited
    },
]

VARIANT_METHODS = [
    {
        "name": "passkey/requestOptions:noPasskey",
        "method": "passkey/requestOptions",
        "known": "email of a user with no passkey",
        "prepare": prepare_user,
        "params": lambda email, prep, rng: {"email": email},
        "answer": "result",
    },
    {
        "name": "reset/passkeyCreationOptions:noCode",
        "method": "reset/passkeyCreationOptions",
        "known": "email of a user with no code pending, a code; unknown: nothing asked before",
        "prepare": prepare_user,
        "params": lambda email, prep, rng: {"email": email, "verificationCode": six_digits(rng)},
        "answer": "verificationCodeInvalid",
    },
]


# -- statistics --------------------------------------------------------------------------------

def rank_sum(a: list[float], b: list[float]) -> dict:
    """Wilcoxon rank-sum / Mann–Whitney U of `a` against `b`: U of a, its z under the normal
    approximation with the tie correction (no continuity correction), and the two-sided p."""
    n1, n2 = len(a), len(b)
    n = n1 + n2
    pooled = sorted([(v, 0) for v in a] + [(v, 1) for v in b])
    ranks_a = 0.0
    ties = 0.0  # sum of t^3 - t over groups of equal values
    i = 0
    while i < n:
        j = i
        while j + 1 < n and pooled[j + 1][0] == pooled[i][0]:
            j += 1
        average = (i + j) / 2 + 1  # ranks are 1-based
        t = j - i + 1
        ties += t ** 3 - t
        ranks_a += average * sum(1 for k in range(i, j + 1) if pooled[k][1] == 0)
        i = j + 1
    u = ranks_a - n1 * (n1 + 1) / 2
    mu = n1 * n2 / 2
    var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
    z = (u - mu) / math.sqrt(var) if var > 0 else 0.0
    return {"U": u, "z": z, "p": math.erfc(abs(z) / math.sqrt(2))}


def scipy_check(a: list[float], b: list[float], mine: dict) -> str:
    try:
        from scipy.stats import mannwhitneyu  # type: ignore
    except ImportError:
        return "scipy not importable"
    res = mannwhitneyu(a, b, alternative="two-sided", use_continuity=False, method="asymptotic")
    same = math.isclose(res.statistic, mine["U"], rel_tol=1e-9) and math.isclose(
        res.pvalue, mine["p"], rel_tol=1e-6, abs_tol=1e-12)
    return f"scipy U {res.statistic:.1f} p {res.pvalue:.3g} ({'agrees' if same else 'DIFFERS'})"


# -- one method ----------------------------------------------------------------------------------

def shape(reply: dict) -> object:
    """What of an answer must not tell known from unknown: the members of a result (values that
    are fresh random ids or challenges vary on both sides alike), or an error's code and data."""
    if "error" in reply:
        return {"error": reply["error"].get("code"), "data": reply["error"].get("data")}
    result = reply["result"]

    def members(value):
        if isinstance(value, dict):
            return {k: members(v) for k, v in sorted(value.items())}
        if isinstance(value, list):
            return [members(v) for v in value]
        if isinstance(value, str):
            return f"str[{len(value)}]"
        return value
    return {"result": members(result)}


def answer_of(reply: dict) -> str:
    if "result" in reply:
        return "result"
    return reply["error"].get("data", {}).get("reason", str(reply["error"].get("code")))


def store_args(workdir: str, name: str) -> list[str]:
    if STORE == "memory":
        return ["--in-memory"]
    if STORE == "sqlite":
        return ["--db", os.path.join(workdir, name.replace("/", "_").replace(":", "_") + ".sqlite")]
    if STORE == "postgres":
        uri = os.environ.get("LATCHKEY_TEST_POSTGRES")
        if not uri:
            raise SystemExit("error: ENUM_STORE=postgres needs LATCHKEY_TEST_POSTGRES (bash Tests/pg/cluster.sh run …)")
        return ["--db", uri, "--key-file", os.path.join(workdir, "postgres.key")]
    raise SystemExit(f"error: ENUM_STORE is sqlite, memory or postgres, not {STORE!r}")


def run_method(spec: dict, binary: str, workdir: str, log) -> dict:
    rng = random.Random(f"{SEED}:{spec['name']}")
    total = WARMUP + ROUNDS
    # Two identifiers a round, of one shape; which of the two is the known one is random.
    pairs = []
    for _ in range(total):
        a, b = (f"{rng.getrandbits(64):016x}@example.com" for _ in range(2))
        pairs.append((a, b) if rng.random() < 0.5 else (b, a))
    if REUSE:
        pairs = [pairs[0]] * total
    lk = Server([binary, *store_args(workdir, spec["name"])], log)
    try:
        info = lk.ok("server/info")
        if "setup" in spec:
            spec["setup"](lk)
        distinct = pairs[:1] if REUSE else pairs
        prepared = [spec["prepare"](lk, known) for known, _ in distinct] * (total if REUSE else 1)
        if "prepare_unknown" in spec:
            for _, unknown in distinct:
                spec["prepare_unknown"](lk, unknown)
        times = {"known": [], "unknown": []}
        differences = []  # up to 3 examples
        differing = 0  # rounds whose two answers differ in content
        unexpected = []
        gc.collect()
        gc.disable()
        try:
            for r, ((known, unknown), prep) in enumerate(zip(pairs, prepared)):
                order = [("known", known, prep), ("unknown", unknown, None)]
                if rng.random() < 0.5:
                    order.reverse()
                replies = {}
                for side, email, p in order:
                    elapsed, reply = lk.timed(spec["method"], spec["params"](email, p, rng))
                    replies[side] = reply
                    if r >= WARMUP:
                        times[side].append(elapsed / 1000)
                for side, reply in replies.items():
                    if answer_of(reply) != spec["answer"] and len(unexpected) < 5:
                        unexpected.append({"side": side, "reply": reply})
                if shape(replies["known"]) != shape(replies["unknown"]):
                    differing += 1
                    if len(differences) < 3:
                        differences.append({"known": replies["known"], "unknown": replies["unknown"]})
        finally:
            gc.enable()
    finally:
        lk.close()
    if unexpected:
        raise Unexpected(f"{spec['name']}: expected {spec['answer']}, got {unexpected[0]}")
    stats = rank_sum(times["known"], times["unknown"])
    k, u = sorted(times["known"]), sorted(times["unknown"])
    return {
        "method": spec["method"],
        "known": spec["known"],
        "version": info.get("version"),
        "store": info.get("store"),
        "rounds": ROUNDS,
        "median_known_us": median(k),
        "median_unknown_us": median(u),
        "difference_us": median(k) - median(u),
        "p10_known_us": percentile(k, 10), "p90_known_us": percentile(k, 90),
        "p10_unknown_us": percentile(u, 10), "p90_unknown_us": percentile(u, 90),
        "U": stats["U"], "z": stats["z"], "p": stats["p"],
        "scipy": scipy_check(times["known"], times["unknown"], stats),
        "content_differs": differing,
        "content_examples": differences,
        "known_us": [round(v, 1) for v in times["known"]],
        "unknown_us": [round(v, 1) for v in times["unknown"]],
    }


def main() -> int:
    binary = os.path.abspath(os.environ.get("LATCHKEY_BIN") or os.path.join(HERE, "..", ".build", "release", "latchkey"))
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        print(f"error: latchkey binary not found or not executable: {binary}\n"
              "  build it (swift build -c release) or set LATCHKEY_BIN", file=sys.stderr)
        return 2
    specs = METHODS + (VARIANT_METHODS if VARIANTS or ONLY else [])
    if ONLY:
        unknown = [m for m in ONLY if m not in {s["name"] for s in specs}]
        if unknown:
            print(f"error: unknown ENUM_METHODS entries {unknown}; choose among "
                  f"{[s['name'] for s in specs]}", file=sys.stderr)
            return 2
        specs = [s for s in specs if s["name"] in ONLY]
    if REUSE:
        specs = [s for s in specs if s.get("reuse", True)]
    print(f"== enumeration by timing: {ROUNDS} interleaved rounds per method (+{WARMUP} warm-up), "
          f"store {STORE}, seed {SEED}" + (", one known and one unknown identifier in every round" if REUSE else ""))
    print(f"  latchkey: {binary}")
    print(f"  {'method':<38} {'known µs':>9} {'unknown µs':>10} {'diff µs':>8} {'z':>7}  verdict")
    results = {}
    failed = False
    with tempfile.TemporaryDirectory(prefix="lk-enum-") as workdir, stderr_log("enumeration") as log:
        for spec in specs:
            try:
                res = run_method(spec, binary, workdir, log)
            except Unexpected as e:
                print(f"  {spec['name']:<38} error: {e}")
                failed = True
                continue
            results[spec["name"]] = res
            verdict = "ok" if abs(res["z"]) < Z_GOAL else f"|z| >= {Z_GOAL:g}"
            if res["content_differs"]:
                verdict += f", {res['content_differs']} pairs differ in content"
            print(f"  {spec['name']:<38} {res['median_known_us']:9.1f} {res['median_unknown_us']:10.1f} "
                  f"{res['difference_us']:+8.1f} {res['z']:+7.2f}  {verdict}")
    print()
    for name, res in results.items():
        print(f"  {name}: known = {res['known']}; p10/p90 known {res['p10_known_us']:.1f}/"
              f"{res['p90_known_us']:.1f}, unknown {res['p10_unknown_us']:.1f}/{res['p90_unknown_us']:.1f} µs; "
              f"U {res['U']:.0f}, p {res['p']:.3g}; {res['scipy']}")
        for example in res["content_examples"][:1]:
            print(f"    content differs, e.g. known {json.dumps(example['known'])[:300]}")
            print(f"                          unknown {json.dumps(example['unknown'])[:300]}")
    name = "enumeration" + ("_postgres" if STORE == "postgres" else "") + ("_reuse" if REUSE else "")
    path = write_result(name, {
        "binary": binary, "rounds": ROUNDS, "warmup": WARMUP, "store": STORE, "seed": SEED, "reuse": REUSE,
        "z_goal": Z_GOAL, "methods": results,
    })
    print(f"\n  results: {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
