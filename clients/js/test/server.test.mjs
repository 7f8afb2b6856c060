// Against the real binary ($LATCHKEY_BIN). Each test skips with a message when it is not set,
// and the domain tests skip while their methods are not implemented yet.

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Latchkey, LatchkeyError, LatchkeyProcessError, METHODS } from "../index.js";
import { DEFAULT_ARGS, REPO, needs, realBinary, skippable } from "./support.mjs";

const { path: binary, why } = realBinary();
const skip = why ?? false;

/** Runs `fn` with a real latchkey in test mode and closes it. */
function withLatchkey(fn) {
  return skippable(async (t) => {
    const lk = Latchkey.spawn({ binary, args: DEFAULT_ARGS });
    try {
      await fn(lk, t);
    } finally {
      await lk.close();
    }
  });
}

test("ping", { skip }, withLatchkey(async (lk) => {
  const value = { text: "héllo ☃", list: [1, -2, 2.5, true, null], nested: { a: { b: [] } } };
  assert.deepEqual(await lk.ping({ echo: value }), { echo: value });
  assert.deepEqual(await lk.call("ping", { echo: "x" }), { echo: "x" });
}));

test("server/info and the manual clock", { skip }, withLatchkey(async (lk) => {
  const info = await lk.call("server/info");
  assert.deepEqual([info.store, info.clock, info.seeded], ["memory", "manual", true]);
  assert.deepEqual(await lk.call("clock/now"), { now: "2026-01-01T00:00:00Z" });
  assert.deepEqual(await lk.call("clock/advance", { seconds: 3600 }), { now: "2026-01-01T01:00:00Z" });
}));

test("an unknown method", { skip }, withLatchkey(async (lk) => {
  await assert.rejects(lk.call("no/such/method"), (error) => error instanceof LatchkeyError
    && error.code === -32601 && error.reason === "methodNotFound" && error.data.reason === "methodNotFound");
  assert.deepEqual(await lk.ping({ echo: 1 }), { echo: 1 });
}));

test("invalid params", { skip }, withLatchkey(async (lk) => {
  await assert.rejects(lk.call("clock/advance", { seconds: -1 }), (error) =>
    error.code === -32602 && error.reason === "invalidParams" && Array.isArray(error.data.errors));
}));

test("rpc.discover serves the generated methods", { skip }, withLatchkey(async (lk) => {
  const document = await needs(lk, "rpc.discover");
  assert.match(document.openrpc, /^1\./);
  if (existsSync(join(REPO, "schema", "openrpc.json"))) {
    assert.deepEqual(document.methods.map((m) => m.name).sort(), [...METHODS].sort());
  }
}));

test("events/subscribe", { skip }, withLatchkey(async (lk) => {
  assert.deepEqual(await needs(lk, "events/subscribe", { topics: ["audit"] }), { topics: ["audit"] });
  const { topics: remaining } = await needs(lk, "events/unsubscribe", { topics: ["audit"] });
  assert.ok(!remaining.includes("audit"));
}));

test("notifications from a grace period", { skip }, withLatchkey(async (lk) => {
  const received = [];
  lk.on("notification", (n) => received.push(n));
  await needs(lk, "events/subscribe", { topics: ["audit", "delivery", "accountRecovery"] });
  await needs(lk, "admin/createUser", { userId: "u1", email: "ann@example.com", password: "correct horse" });
  const session = await needs(lk, "user/login", { email: "ann@example.com", password: "correct horse" });
  const started = await needs(lk, "accountRecovery/start", { sessionId: session.sessionId });
  assert.equal(started.accountRecovery.state, 1);
  assert.ok(received.some((n) => n.method === "delivery/sent" && n.params.message.purpose === "securityNotice"));
  assert.ok(received.some((n) => n.method === "audit/event"));
  const before = received.length;
  await lk.call("clock/advance", { seconds: 72 * 3600 });
  const changes = received.slice(before).filter((n) => n.method === "accountRecovery/stateChanged");
  assert.equal(changes.at(-1)?.params.accountRecovery.state, 3);
  assert.deepEqual(received, lk.notifications);
}));

test("kill and close", { skip }, async () => {
  let lk = Latchkey.spawn({ binary, args: DEFAULT_ARGS });
  assert.deepEqual(await lk.ping({ echo: 1 }), { echo: 1 });
  lk.child.kill("SIGKILL");
  await assert.rejects(lk.ping({ echo: 2 }), (error) => error instanceof LatchkeyProcessError && error.signal === "SIGKILL");
  await lk.close();
  lk = Latchkey.spawn({ binary, args: DEFAULT_ARGS });
  await lk.ping();
  assert.equal(await lk.close(), 0); // EOF on stdin: finish, flush, exit 0
});

test("bad flags exit with status 2", { skip }, async () => {
  const lk = Latchkey.spawn({ binary, args: ["--seed", "1", "--db", "/nonexistent/x.sqlite"] });
  await assert.rejects(lk.ping(), (error) => error instanceof LatchkeyProcessError && error.exitCode === 2 && error.stderr.length > 0);
  await lk.close();
});
