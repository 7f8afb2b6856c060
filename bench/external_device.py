#!/usr/bin/env python3
"""External-device PIN authentications vs simulated-device ones, against one latchkey process.

    .build/venv/bin/python bench/external_device.py .build/release/latchkey [N]

(the binary defaults to $LATCHKEY_BIN; N to 1000). Needs the `cryptography` package (the
venv has it): the external device is the Python reference device, clients/python/latchkey/device.py.

One process (`--in-memory`, system clock), one registration per side, N authentications each
with the correct PIN, sent one at a time through the Python client (every call is one
request/response round trip over the pipe, so both sides pay the same client overhead):

- external: `server/authentication/challenge`, then `server/authentication/verify`. The
  device's work — unmasking the PIN key (PBKDF2 × 10 000) and the two ECDSA signatures — is
  done outside the timing: per batch, the challenges are fetched (timed: the challenge round
  trips), then all signed (not timed; reported for context), then verified (timed: the verify
  round trips). Batches of at most 200 keep every challenge well inside its 300 s.
- simulated: `authentication/start`, then `authentication/finish` with `{"method": "pin"}`,
  both timed. This path includes the simulated device's own work inside the server (the PIN
  key's PBKDF2 unmasking and the signing), which the external path does on the phone.

Batches of the two sides alternate so that noise on the machine hits both alike. The figure
the issue asks for is the ratio of authentications per second, external (challenge + verify
round trips) over simulated (start + finish round trips): ≥ 1 means the server's share of an
external authentication costs no more than a whole simulated one.
"""

from __future__ import annotations

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "clients", "python"))

from latchkey import Latchkey  # noqa: E402
from latchkey.device import Device  # noqa: E402

PIN = "1234"
BATCH = 200
WARMUP = 20


def main(argv: list[str]) -> int:
    if len(argv) > 3 or (len(argv) > 1 and argv[1] in ("-h", "--help")):
        print(__doc__.strip().splitlines()[2].strip())
        return 2
    binary = argv[1] if len(argv) > 1 else os.environ.get("LATCHKEY_BIN")
    if not binary or not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        print(f"latchkey binary not found or not executable: {binary!r} (pass it, or set LATCHKEY_BIN)",
              file=sys.stderr)
        return 2
    n = int(argv[2]) if len(argv) > 2 else 1000
    if n < 1:
        print("N must be ≥ 1", file=sys.stderr)
        return 2

    with Latchkey.spawn(os.path.abspath(binary), ["--in-memory"], timeout=120) as lk:
        info = lk.call("server/info")
        # The two registrations, one user each.
        codes = []
        for email in ("external@example.com", "simulated@example.com"):
            user_id = lk.call("admin/createUser", {"email": email})["userId"]
            codes.append(lk.call("admin/createActivationCode", {"userId": user_id})["activationCode"])
        phone = Device(lk, "bench-external-device", {})
        registration_id = phone.activate(codes[0], pin=PIN)["registrationId"]
        simulated = lk.call("device/create", {"biometry": "none"})["deviceId"]
        lk.call("activation/start", {"deviceId": simulated, "activationCode": codes[1]})
        lk.call("activation/finish", {"deviceId": simulated, "authParameter": {"method": "pin", "pin": PIN}})

        def external(count: int) -> tuple[float, float, float]:
            """(challenge seconds, signing seconds, verify seconds) for `count` authentications."""
            started = time.perf_counter()
            challenges = [lk.call("server/authentication/challenge", {"registrationId": registration_id})
                          for _ in range(count)]
            fetched = time.perf_counter()
            requests = [{"registrationId": registration_id, "challengeId": c["challengeId"],
                         "signatures": phone.sign_challenge(c, pin=PIN)} for c in challenges]
            signed = time.perf_counter()
            for request in requests:
                answer = lk.call("server/authentication/verify", request)
                assert answer["responseType"] == "authenticated", answer
            verified = time.perf_counter()
            return fetched - started, signed - fetched, verified - signed

        def simulated_side(count: int) -> tuple[float, float]:
            """(start seconds, finish seconds) for `count` authentications."""
            start_time = finish_time = 0.0
            for _ in range(count):
                t0 = time.perf_counter()
                lk.call("authentication/start", {"deviceId": simulated})
                t1 = time.perf_counter()
                answer = lk.call("authentication/finish", {"deviceId": simulated,
                                                          "authParameter": {"method": "pin", "pin": PIN}})
                t2 = time.perf_counter()
                assert answer["responseType"] == "authenticated", answer
                start_time += t1 - t0
                finish_time += t2 - t1
            return start_time, finish_time

        external(WARMUP)
        simulated_side(WARMUP)

        totals = {"challenge": 0.0, "sign": 0.0, "verify": 0.0, "start": 0.0, "finish": 0.0}
        done = 0
        while done < n:
            count = min(BATCH, n - done)
            challenge, signing, verify = external(count)
            start, finish = simulated_side(count)
            totals["challenge"] += challenge
            totals["sign"] += signing
            totals["verify"] += verify
            totals["start"] += start
            totals["finish"] += finish
            done += count

        status = lk.call("server/registration/status", {"registrationId": registration_id})
        assert status["remainingAttemptsPIN"] == status["totalAttemptsPIN"], status

    def rate(seconds: float) -> float:
        return n / seconds if seconds > 0 else float("inf")

    external_total = totals["challenge"] + totals["verify"]
    simulated_total = totals["start"] + totals["finish"]
    print(f"latchkey {info.get('version')} ({os.path.abspath(binary)}), store {info.get('store')}, "
          f"N = {n} PIN authentications per side, one at a time")
    print("external device (server/, signatures made by the Python device outside the timing):")
    print(f"  challenge round trips          {rate(totals['challenge']):10.0f} /s   "
          f"{1e6 * totals['challenge'] / n:8.1f} µs each")
    print(f"  verify round trips             {rate(totals['verify']):10.0f} /s   "
          f"{1e6 * totals['verify'] / n:8.1f} µs each")
    print(f"  challenge + verify             {rate(external_total):10.0f} /s   "
          f"{1e6 * external_total / n:8.1f} µs each")
    print(f"  (device signing, not timed     {rate(totals['sign']):10.0f} /s   "
          f"{1e6 * totals['sign'] / n:8.1f} µs each: PBKDF2 × 10 000 + 2 ECDSA, in Python)")
    print("simulated device (device half inside the server, PIN unmasked and signed there):")
    print(f"  authentication/start           {rate(totals['start']):10.0f} /s   "
          f"{1e6 * totals['start'] / n:8.1f} µs each")
    print(f"  authentication/finish          {rate(totals['finish']):10.0f} /s   "
          f"{1e6 * totals['finish'] / n:8.1f} µs each")
    print(f"  start + finish                 {rate(simulated_total):10.0f} /s   "
          f"{1e6 * simulated_total / n:8.1f} µs each")
    ratio = simulated_total / external_total if external_total > 0 else float("inf")
    print(f"ratio external / simulated (authentications per second): {ratio:.2f}× "
          f"({'the server share costs no more than the simulated path' if ratio >= 1 else 'the server share costs MORE than the simulated path'})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
