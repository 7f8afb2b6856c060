// The client's own mechanics, against the stand-in server and tiny shell scripts: framing,
// id routing, notification order, timeouts, stderr draining, and a child that dies.

import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Latchkey, LatchkeyError, LatchkeyProcessError, LatchkeyTimeoutError } from "../index.js";
import { DEFAULT_ARGS, FAKE, PYTHON, realBinary, spawnFake } from "./support.mjs";

const RESPONSE_1 = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { ok: true } });
const sh = (script, options = {}) => Latchkey.spawn({ binary: "/bin/sh", args: ["-c", script], timeout: 10_000, ...options });

test("calls and helpers", async () => {
  const lk = spawnFake();
  try {
    assert.deepEqual(await lk.call("ping", { echo: [1, "é", null] }), { echo: [1, "é", null] });
    assert.deepEqual(await lk.ping({ echo: { a: 1 } }), { echo: { a: 1 } });
    assert.equal((await lk.server.info()).clock, "manual");
    assert.deepEqual(await lk.clock.advance({ seconds: 90 }), { now: "2026-01-01T00:01:30Z" });
    assert.deepEqual(await lk.clock.now(), { now: "2026-01-01T00:01:30Z" });
    assert.match((await lk.rpc.discover()).openrpc, /^1\./);
  } finally {
    assert.equal(await lk.close(), 0);
  }
});

test("an error response", async () => {
  const lk = spawnFake();
  try {
    await assert.rejects(lk.call("no/such/method"), (error) => {
      assert.ok(error instanceof LatchkeyError);
      assert.equal(error.code, -32601);
      assert.equal(error.reason, "methodNotFound");
      assert.deepEqual(error.data, { reason: "methodNotFound" });
      assert.match(error.message, /Method not found/);
      return true;
    });
    await assert.rejects(lk.clock.advance({ seconds: -1 }), { reason: "invalidParams", code: -32602 });
  } finally {
    await lk.close();
  }
});

test("notifications arrive in order, before the response of the call that caused them", async () => {
  const lk = spawnFake();
  try {
    const received = [];
    lk.on("notification", (n) => received.push(n));
    assert.deepEqual(await lk.events.subscribe({ topics: ["audit"] }), { topics: ["audit"] });
    for (const seconds of [1, 2, 3]) {
      await lk.clock.advance({ seconds });
      assert.equal(received.at(-1).params.event.seconds, seconds);
    }
    assert.deepEqual(lk.notifications.map((n) => n.params.event.seconds), [1, 2, 3]);
    assert.deepEqual(received, lk.notifications);
    assert.equal(received[0].method, "audit/event");
    await lk.call("events/unsubscribe", { topics: ["audit"] });
    await lk.clock.advance({ seconds: 4 });
    assert.equal(lk.notifications.length, 3);
  } finally {
    await lk.close();
  }
});

test("a throwing listener stops neither the other listeners nor the reader", async () => {
  const lk = spawnFake();
  const onWarning = () => {};
  process.on("warning", onWarning);
  try {
    const got = [];
    lk.on("notification", () => { throw new Error("a bug in the first listener"); });
    lk.on("notification", (n) => got.push(["second", n.params.event.seconds]));
    lk.once("notification", (n) => got.push(["once", n.params.event.seconds]));
    await lk.events.subscribe({ topics: ["audit"] });
    await lk.clock.advance({ seconds: 1 });
    await lk.clock.advance({ seconds: 2 });
    assert.deepEqual(got, [["second", 1], ["once", 1], ["second", 2]]);
    assert.equal(lk.listenerCount("notification"), 2);
  } finally {
    process.off("warning", onWarning);
    await lk.close();
  }
});

test("a throwing listener does not stop the reader", async () => {
  const lk = spawnFake();
  const warnings = [];
  const onWarning = (warning) => warnings.push(warning);
  process.on("warning", onWarning);
  try {
    lk.on("notification", () => { throw new Error("a bug in a listener"); });
    await lk.events.subscribe({ topics: ["audit"] });
    await lk.clock.advance({ seconds: 1 });
    assert.deepEqual(await lk.ping({ echo: 2 }), { echo: 2 });
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(warnings.some((w) => /a bug in a listener/.test(w.message)));
  } finally {
    process.off("warning", onWarning);
    await lk.close();
  }
});

test("concurrent calls are routed by id", async () => {
  const lk = spawnFake();
  try {
    const calls = Array.from({ length: 400 }, (_, i) => lk.ping({ echo: i }));
    assert.deepEqual((await Promise.all(calls)).map((r) => r.echo), Array.from({ length: 400 }, (_, i) => i));
  } finally {
    await lk.close();
  }
});

test("optional params are left out unless given", async () => {
  const lk = sh(`read a; echo '${RESPONSE_1}'; read b; echo '${RESPONSE_1.replace('"id":1', '"id":2')}'; cat >/dev/null`);
  const lines = [];
  const write = lk.child.stdin.write.bind(lk.child.stdin);
  lk.child.stdin.write = (line) => { lines.push(JSON.parse(line)); return write(line); };
  await lk.server.info();
  await lk.ping({ echo: null });
  await lk.close();
  assert.deepEqual(lines, [
    { jsonrpc: "2.0", id: 1, method: "server/info" },
    { jsonrpc: "2.0", id: 2, method: "ping", params: { echo: null } },
  ]);
});

test("null params and a null timeout mean none and the default, as the Python client's None", async () => {
  const lk = sh(`read a; echo '${RESPONSE_1}'; read b; echo '${RESPONSE_1.replace('"id":1', '"id":2')}'; cat >/dev/null`);
  const lines = [];
  const write = lk.child.stdin.write.bind(lk.child.stdin);
  lk.child.stdin.write = (line) => { lines.push(JSON.parse(line)); return write(line); };
  assert.deepEqual(await lk.call("server/info", null, { timeout: null }), { ok: true });
  assert.deepEqual(await lk.call("server/info", undefined, null), { ok: true });
  lk.notify("ping", null);
  await lk.close();
  assert.deepEqual(lines, [
    { jsonrpc: "2.0", id: 1, method: "server/info" },
    { jsonrpc: "2.0", id: 2, method: "server/info" },
    { jsonrpc: "2.0", method: "ping" },
  ]);
});

test("spawn uses $LATCHKEY_BIN", async () => {
  const dir = mkdtempSync(join(tmpdir(), "latchkey-"));
  const wrapper = join(dir, "latchkey");
  writeFileSync(wrapper, `#!/bin/sh\nexec "${PYTHON}" "${FAKE}" "$@"\n`);
  chmodSync(wrapper, 0o755);
  const saved = process.env.LATCHKEY_BIN;
  process.env.LATCHKEY_BIN = wrapper;
  try {
    const lk = Latchkey.spawn({ args: DEFAULT_ARGS });
    assert.equal((await lk.server.info()).store, "memory");
    assert.equal(await lk.close(), 0);
  } finally {
    if (saved === undefined) delete process.env.LATCHKEY_BIN;
    else process.env.LATCHKEY_BIN = saved;
  }
});

test("a binary that does not exist", async () => {
  const lk = Latchkey.spawn({ binary: "/nonexistent/latchkey" });
  await assert.rejects(lk.ping(), (error) => error instanceof LatchkeyProcessError && /could not run/.test(error.message));
  await lk.close();
});

test("a child that exits at once", async () => {
  const lk = sh("echo 'cannot open the store' >&2; exit 3");
  const started = Date.now();
  await assert.rejects(lk.ping(), (error) => {
    assert.ok(error instanceof LatchkeyProcessError);
    assert.equal(error.exitCode, 3);
    assert.equal(error.reason, "processExited");
    assert.match(error.message, /status 3/);
    assert.match(error.stderr, /cannot open the store/);
    return true;
  });
  assert.ok(Date.now() - started < 5000);
  await assert.rejects(lk.ping(), LatchkeyProcessError); // and every later call
  assert.throws(() => lk.notify("exit"), LatchkeyProcessError);
  assert.equal(await lk.close(), 3);
});

test("a child that dies while a call is pending", async () => {
  const lk = sh("read line; echo 'fatal: boom' >&2; exit 4");
  await assert.rejects(lk.call("ping"), (error) => error instanceof LatchkeyProcessError
    && error.exitCode === 4 && /boom/.test(error.message));
  await lk.close();
});

test("a killed child", async () => {
  const lk = spawnFake();
  assert.deepEqual(await lk.ping({ echo: 1 }), { echo: 1 });
  lk.child.kill("SIGKILL");
  await assert.rejects(lk.ping({ echo: 2 }), (error) => error instanceof LatchkeyProcessError && error.signal === "SIGKILL");
  await lk.close();
});

test("a timeout, then other calls still work", async () => {
  const lk = sh(`read a; read b; echo '${JSON.stringify({ jsonrpc: "2.0", id: 2, result: 2 })}'; cat >/dev/null`);
  await assert.rejects(lk.call("slow", undefined, { timeout: 200 }),
    (error) => error instanceof LatchkeyTimeoutError && error.reason === "timeout");
  assert.equal(await lk.call("fast"), 2);
  assert.equal(await lk.close(), 0);
});

test("an error without an id answers the oldest call", async () => {
  const reply = { jsonrpc: "2.0", id: null, error: { code: -32000, message: "too large", data: { reason: "messageTooLarge" } } };
  const lk = sh(`read line; echo '${JSON.stringify(reply)}'; cat >/dev/null`);
  await assert.rejects(lk.call("big", { blob: "x".repeat(1000) }), { reason: "messageTooLarge", code: -32000 });
  await lk.close();
});

const NULL_ID_ERROR = JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "too large", data: { reason: "messageTooLarge" } } });

test("an error without an id for a notification fails no call", async () => {
  // The server could not read the notification, answers it with a null id, then answers the
  // call: the call gets its own answer, the error is a "strayError".
  const lk = sh(`read n; read r; echo '${NULL_ID_ERROR}'; echo '${RESPONSE_1}'; cat >/dev/null`);
  const strays = [];
  lk.on("strayError", (error) => strays.push(error));
  lk.notify("big", { blob: "x".repeat(1000) });
  assert.deepEqual(await lk.call("x"), { ok: true });
  assert.deepEqual(strays.map((e) => e.reason), ["messageTooLarge"]);
  assert.ok(strays[0] instanceof LatchkeyError);
  assert.deepEqual(lk.strayErrors, strays);
  await lk.close();
});

test("an error without an id, with nothing outstanding, is a stray", async () => {
  const lk = sh(`read n; echo '${NULL_ID_ERROR}'; read r; echo '${RESPONSE_1}'; cat >/dev/null`);
  const strays = [];
  lk.on("strayError", (error) => strays.push(error));
  lk.notify("big");
  assert.deepEqual(await lk.call("x"), { ok: true });
  assert.deepEqual(strays.map((e) => e.reason), ["messageTooLarge"]);
  await lk.close();
});

test("a later answer settles a call whose error had no id", async () => {
  // A notification, then a request the server could not read, then one it answers: the null-id
  // error may be either's until the third message is answered; then it is the call's.
  const response = JSON.stringify({ jsonrpc: "2.0", id: 2, result: 3 });
  const lk = sh(`read n; read a; read b; echo '${NULL_ID_ERROR}'; echo '${response}'; cat >/dev/null`);
  lk.on("strayError", () => assert.fail("no stray error expected"));
  lk.notify("fine");
  const first = lk.call("big");
  assert.equal(await lk.call("x"), 3);
  await assert.rejects(first, { reason: "messageTooLarge" });
  assert.deepEqual(lk.strayErrors, []);
  await lk.close();
});

const PARSE_NULL_ID_ERROR = JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error", data: { reason: "parseError" } } });

test("errors without an id behind a notification are held, then each goes to its own call", async () => {
  // A notification it read, two requests it could not: the errors could be the notification's
  // and the first request's, or the two requests', until a later answer says the notification
  // drew none. Neither request ever takes the other's error.
  const response = JSON.stringify({ jsonrpc: "2.0", id: 3, result: 3 });
  const lk = sh(`read n; read a; read b; read c; echo '${PARSE_NULL_ID_ERROR}'; echo '${NULL_ID_ERROR}'; echo '${response}'; cat >/dev/null`);
  try {
    lk.notify("fine");
    const outcomes = [lk.call("unreadable"), lk.call("big")].map((call) => call.then(() => "answered", (error) => error.reason));
    assert.equal(await lk.call("x"), 3);
    assert.deepEqual(await Promise.all(outcomes), ["parseError", "messageTooLarge"]);
    assert.deepEqual(lk.strayErrors, []);
  } finally {
    await lk.close();
  }
});

test("a request whose error cannot be told from a notification's fails as unattributed", async () => {
  // Notification, request, notification, then an answered request, and two errors: the first
  // request drew one, and one notification the other, but which notification is unknown.
  const response = JSON.stringify({ jsonrpc: "2.0", id: 2, result: 2 });
  const lk = sh(`read n; read a; read m; read b; echo '${PARSE_NULL_ID_ERROR}'; echo '${NULL_ID_ERROR}'; echo '${response}'; cat >/dev/null`);
  lk.on("strayError", () => {});
  try {
    lk.notify("one");
    const first = lk.call("a");
    lk.notify("two");
    assert.equal(await lk.call("b"), 2);
    await assert.rejects(first, { reason: "unattributedError" });
    assert.deepEqual(lk.strayErrors.map((e) => e.reason), ["parseError", "messageTooLarge"]);
  } finally {
    await lk.close();
  }
});

test("as many errors without an id as unsettled messages answer each at once", async () => {
  // A notification and a request the server could not read: two errors for two messages, so each
  // drew one, in order — the call fails at once, the first error is a stray.
  const lk = sh(`read n; read a; echo '${PARSE_NULL_ID_ERROR}'; echo '${NULL_ID_ERROR}'; cat >/dev/null`);
  lk.on("strayError", () => {});
  try {
    lk.notify("unreadable");
    await assert.rejects(lk.call("big"), { reason: "messageTooLarge" });
    assert.deepEqual(lk.strayErrors.map((e) => e.reason), ["parseError"]);
  } finally {
    await lk.close();
  }
});

test("the child's exit fails calls at once though a process it started holds stderr", async () => {
  // A sender the child started (as a --deliver-command one may) keeps stderr open after it exits.
  const lk = sh("sleep 8 >&2 & read l; exit 3");
  const started = Date.now();
  await assert.rejects(lk.call("x"), (error) => error instanceof LatchkeyProcessError && /status 3/.test(error.message));
  assert.equal(await lk.close(), 3);
  assert.ok(Date.now() - started < 4000, `took ${Date.now() - started} ms`);
});

test("an oversized notification against the server", { skip: realBinary().why }, async () => {
  const lk = Latchkey.spawn({ binary: realBinary().path, args: ["--in-memory", "--max-message-bytes", "200"] });
  try {
    lk.on("strayError", () => {});
    lk.notify("ping", { echo: "y".repeat(300) });
    assert.deepEqual(await lk.ping({ echo: "mine" }), { echo: "mine" });
    assert.deepEqual(lk.strayErrors.map((e) => e.reason), ["messageTooLarge"]);
    await assert.rejects(lk.ping({ echo: "x".repeat(300) }), { reason: "messageTooLarge" }); // still at once
    lk.notify("ping", { echo: "fine" }); // well-formed: never answered
    assert.deepEqual(await lk.ping({ echo: "after" }), { echo: "after" });
    assert.throws(() => lk.notify("ping", { echo: 1n }), TypeError); // nothing sent
    await assert.rejects(lk.ping({ echo: 1n }), TypeError);
    for (const number of [NaN, Infinity, -Infinity]) { // JSON has none of them: not sent as null
      assert.throws(() => lk.notify("ping", { echo: [number] }), TypeError);
      await assert.rejects(lk.ping({ echo: number }), TypeError);
    }
    for (const text of ["\ud800", "a\udfffb", "\udc00\ud800"]) { // UTF-8 has none of them: not sent as an escape
      assert.throws(() => lk.notify("ping", { echo: text }), TypeError);
      await assert.rejects(lk.ping({ echo: { [text]: 1 } }), TypeError);
    }
    assert.deepEqual(await lk.ping({ echo: "\ud83d\ude00" }), { echo: "\ud83d\ude00" }); // a pair is one character
    await assert.rejects(lk.ping({ echo: "x".repeat(300) }), { reason: "messageTooLarge" });
    assert.equal(lk.strayErrors.length, 1);
  } finally {
    await lk.close();
  }
});

test("a flood on stderr never blocks the child", async () => {
  const lk = sh(`yes 'log line' | head -n 200000 >&2; read l; echo '${RESPONSE_1}'`, { timeout: 20_000 });
  let count = 0;
  lk.on("stderr", () => count++);
  assert.deepEqual(await lk.call("x"), { ok: true });
  await lk.close();
  assert.equal(count, 200000);
  assert.match(lk.stderrTail, /log line$/);
});

test("close kills a child that ignores EOF and SIGTERM", async () => {
  const lk = sh("trap '' TERM; exec sleep 30");
  const started = Date.now();
  assert.equal(await lk.close({ grace: 200 }), null);
  assert.equal(lk.child.signalCode, "SIGKILL");
  assert.ok(Date.now() - started < 5000);
  await assert.rejects(lk.ping(), /closed/);
});

test("lines that are not JSON are skipped", async () => {
  const lk = sh(`read l; echo 'not json'; echo; echo '${RESPONSE_1}'; cat >/dev/null`);
  const onWarning = () => {};
  process.on("warning", onWarning);
  try {
    assert.deepEqual(await lk.call("x"), { ok: true });
  } finally {
    process.off("warning", onWarning);
    await lk.close();
  }
});
