#!/usr/bin/env python3
"""A stand-in for the latchkey binary, for testing the clients without the Swift build.

It speaks the contract's NDJSON transport and answers a handful of methods the way the real
server does (ping, server/info, clock/now, clock/advance, events/subscribe|unsubscribe,
rpc.discover with the fixture schema, exit); anything else is methodNotFound. With the
`audit` topic subscribed, clock/advance sends a (made-up) `audit/event` before its response.
Flags: --in-memory, --seed N, --clock manual|system, --start-time T (others are ignored).
"""

import datetime
import json
import sys
from pathlib import Path

FIXTURE = Path(__file__).resolve().parent / "mini-openrpc.json"
TOPICS = ("delivery", "accountRecovery", "accountRecoveryCallback", "audit")


class Fake:
    def __init__(self, argv):
        self.manual = "--clock" in argv and argv[argv.index("--clock") + 1] == "manual"
        start = argv[argv.index("--start-time") + 1] if "--start-time" in argv else "2026-01-01T00:00:00Z"
        self.now = datetime.datetime.strptime(start, "%Y-%m-%dT%H:%M:%SZ")
        self.seeded = "--seed" in argv
        self.store = "memory" if "--in-memory" in argv else "sqlite"
        self.topics = []

    def stamp(self):
        return self.now.strftime("%Y-%m-%dT%H:%M:%SZ")

    def handle(self, method, params, send):
        if method == "ping":
            return {"echo": params.get("echo")}
        if method == "server/info":
            return {"name": "latchkey", "version": "0.0.0-fake", "store": self.store,
                    "clock": "manual" if self.manual else "system", "seeded": self.seeded}
        if method == "clock/now":
            return {"now": self.stamp()}
        if method == "clock/advance":
            seconds = params.get("seconds")
            if not self.manual:
                raise Failure(1002, "forbidden", "clock/advance needs --clock manual")
            if not isinstance(seconds, int) or isinstance(seconds, bool) or seconds < 0:
                raise Failure(-32602, "invalidParams", "Invalid params: seconds must be an integer >= 0",
                              {"errors": [{"path": "seconds", "message": "must be an integer >= 0"}]})
            self.now += datetime.timedelta(seconds=seconds)
            if "audit" in self.topics:
                send({"jsonrpc": "2.0", "method": "audit/event",
                      "params": {"event": {"at": self.stamp(), "type": "clockAdvanced", "seconds": seconds}}})
            return {"now": self.stamp()}
        if method in ("events/subscribe", "events/unsubscribe"):
            topics = params.get("topics")
            if not isinstance(topics, list) or any(t not in TOPICS for t in topics):
                raise Failure(-32602, "invalidParams", "Invalid params: topics",
                              {"errors": [{"path": "topics", "message": "unknown topic"}]})
            if method == "events/subscribe":
                self.topics += [t for t in topics if t not in self.topics]
            else:
                self.topics = [t for t in self.topics if t not in topics]
            return {"topics": list(self.topics)}
        if method == "rpc.discover":
            return json.loads(FIXTURE.read_text())
        raise Failure(-32601, "methodNotFound", "Method not found")


class Failure(Exception):
    def __init__(self, code, reason, message, data=None):
        super().__init__(message)
        self.error = {"code": code, "message": message, "data": {"reason": reason, **(data or {})}}


def main():
    argv = sys.argv[1:]
    if ("--seed" in argv or "manual" in argv) and "--in-memory" not in argv:
        sys.stderr.write("latchkey: --seed and --clock manual need --in-memory\n")
        sys.exit(2)
    fake = Fake(argv)
    out = sys.stdout

    def send(message):
        out.write(json.dumps(message, separators=(",", ":")) + "\n")

    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError:
            send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error",
                                                          "data": {"reason": "parseError"}}})
            out.flush()
            continue
        method, params = request.get("method"), request.get("params") or {}
        if method == "exit":
            break
        try:
            result = fake.handle(method, params, send)
            response = {"jsonrpc": "2.0", "id": request.get("id"), "result": result}
        except Failure as failure:
            response = {"jsonrpc": "2.0", "id": request.get("id"), "error": failure.error}
        if "id" in request:
            send(response)
        out.flush()


if __name__ == "__main__":
    main()
