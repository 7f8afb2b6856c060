"""A tiny synchronous driver for the latchkey binary (tests and the demo)."""
import json, os, subprocess


class RPCError(Exception):
    def __init__(self, error):
        super().__init__(f"{error['code']} {error['data'].get('reason')}: {error['message']}")
        self.code = error["code"]
        self.reason = error["data"].get("reason")
        self.data = error["data"]


class Proc:
    def __init__(self, binary, *args):
        self.p = subprocess.Popen([binary, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 0
        self.notifications = []

    def call(self, method, **params):
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params:
            msg["params"] = params
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("latchkey exited")
            reply = json.loads(line)
            if "id" not in reply:
                self.notifications.append(reply)
                continue
            if "error" in reply:
                raise RPCError(reply["error"])
            return reply["result"]

    def error(self, method, **params):
        try:
            self.call(method, **params)
        except RPCError as e:
            return e
        raise AssertionError(f"{method} succeeded but an error was expected")

    def close(self):
        self.p.stdin.close()
        return self.p.wait(timeout=10)
