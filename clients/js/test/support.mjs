// Shared test helpers: where things are, skipping, and the golden-transcript replay.

import assert from "node:assert/strict";
import { accessSync, constants, existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Latchkey, LatchkeyError } from "../index.js";

export const CLIENTS = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const REPO = join(CLIENTS, "..");
export const FAKE = join(CLIENTS, "testdata", "fake-latchkey.py");
export const FIXTURE_SCHEMA = join(CLIENTS, "testdata", "mini-openrpc.json");
export const DEFAULT_ARGS = ["--in-memory", "--seed", "1", "--clock", "manual"];
export const GOLDEN_DIRS = [join(REPO, "Tests", "golden"), join(CLIENTS, "testdata", "golden")];
export const PYTHON = process.env.PYTHON || "python3";

/** {path} of the executable in $LATCHKEY_BIN, or {why} not. */
export function realBinary() {
  const path = process.env.LATCHKEY_BIN;
  if (!path) return { why: "LATCHKEY_BIN is not set (point it at .build/debug/latchkey)" };
  try {
    accessSync(path, constants.X_OK);
    if (statSync(path).isFile()) return { path };
  } catch {}
  return { why: `LATCHKEY_BIN=${path} is not an executable file` };
}

/** The stand-in server from clients/testdata (no Swift build needed). */
export function spawnFake(options = {}) {
  return Latchkey.spawn({ binary: PYTHON, args: [FAKE, ...DEFAULT_ARGS], ...options });
}

/** A test body that may end in a skip: `throw new Skip(why)` (or `needs` does it). */
export class Skip extends Error {}
export const skippable = (fn) => async (t) => {
  try {
    await fn(t);
  } catch (error) {
    if (!(error instanceof Skip)) throw error;
    t.skip(error.message);
  }
};

/** Calls a method, skipping the test if the binary does not have it yet. */
export async function needs(lk, method, params) {
  try {
    return await lk.call(method, params);
  } catch (error) {
    if (error.reason === "methodNotFound") throw new Skip(`${method} is not implemented yet`);
    throw error;
  }
}

/** Every *.in.jsonl with a matching *.out.jsonl under the golden directories. */
export function findTranscripts() {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".in.jsonl") && existsSync(path.replace(/\.in\.jsonl$/, ".out.jsonl"))) found.push(path);
    }
  };
  for (const dir of GOLDEN_DIRS) if (existsSync(dir)) walk(dir);
  return found;
}

export const displayName = (path) => relative(REPO, path);

/** (line number, object) per non-blank line, or (line number, why it is not one). */
function* messages(buffer) {
  const lines = buffer.toString("latin1").split("\n");
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let offset = 0;
  for (const [index, line] of lines.entries()) {
    const bytes = buffer.subarray(offset, offset + line.length);
    offset += line.length + 1;
    if (!line.trim()) continue;
    let message;
    try {
      message = JSON.parse(decoder.decode(bytes));
    } catch {
      yield [index + 1, "not a JSON text"];
      continue;
    }
    const isObject = message !== null && typeof message === "object" && !Array.isArray(message);
    yield [index + 1, isObject ? message : "not a single JSON object"];
  }
}

const isPlainRequest = (m) =>
  Object.keys(m).every((k) => ["jsonrpc", "id", "method", "params"].includes(k))
  && m.jsonrpc === "2.0" && typeof m.method === "string"
  && (typeof m.id === "string" || typeof m.id === "number")
  && (m.params === undefined || (m.params !== null && typeof m.params === "object"));

/** False if JSON.stringify would not write back a number as the server read it. */
function exactInJs(value) {
  if (typeof value === "number") return !Object.is(value, -0) && (Number.isSafeInteger(value) || !Number.isInteger(value));
  if (value !== null && typeof value === "object") return Object.values(value).every(exactInJs);
  return true;
}

/** The transcript {name, args, requests, responses, notifications}, or why a client cannot replay it. */
export function loadTranscript(inPath) {
  const stem = inPath.slice(0, -".in.jsonl".length);
  const args = existsSync(`${stem}.args`)
    ? readFileSync(`${stem}.args`, "utf8").split("\n").filter((line) => line.trim())
    : [...DEFAULT_ARGS];
  const transcript = { name: stem, args, requests: [], responses: [], notifications: [] };
  const input = readFileSync(inPath);
  if (!/^\s*[{[]/.test(input.toString("latin1"))) return "not NDJSON framing";
  for (const [number, message] of messages(input)) {
    if (typeof message === "string") return `input line ${number}: ${message}`;
    if (!isPlainRequest(message)) return `input line ${number} is not a plain request with an id`;
    if (!exactInJs(message.params)) return `input line ${number} has a number JavaScript cannot send as written (beyond 2^53, or -0)`;
    transcript.requests.push(message);
  }
  for (const [number, message] of messages(readFileSync(`${stem}.out.jsonl`))) {
    if (typeof message === "string") return `output line ${number}: ${message}`;
    if ("method" in message && !("id" in message)) {
      transcript.notifications.push([transcript.responses.length, message.method, message.params]);
      continue;
    }
    const request = transcript.requests[transcript.responses.length];
    if (!request || JSON.stringify(message.id) !== JSON.stringify(request.id)) {
      return `output line ${number} does not answer the request in order`;
    }
    transcript.responses.push(message);
  }
  if (transcript.responses.length !== transcript.requests.length) return "some requests have no response";
  return transcript;
}

/** Sends every request through call(); resolves with the differences from the transcript. */
export async function replay(binary, transcript, prefixArgs = []) {
  const problems = [];
  const seen = [];
  let current = 0;
  const lk = Latchkey.spawn({ binary, args: [...prefixArgs, ...transcript.args] });
  lk.on("notification", (n) => seen.push([current, n.method, n.params]));
  try {
    for (const [index, request] of transcript.requests.entries()) {
      current = index;
      const expected = transcript.responses[index];
      let got;
      try {
        got = { result: await lk.call(request.method, request.params) };
      } catch (error) {
        if (!(error instanceof LatchkeyError) || error.code === null) {
          problems.push(`request ${JSON.stringify(request.id)}: ${error.message}`);
          break;
        }
        got = { error: { code: error.code, message: error.message } };
        if (error.data !== null) got.error.data = error.data;
      }
      const want = Object.fromEntries(["result", "error"].filter((k) => k in expected).map((k) => [k, expected[k]]));
      if (!deepEqual(got, want)) {
        problems.push(`request ${JSON.stringify(request.id)} (${request.method}):\n`
          + `  expected ${JSON.stringify(want)}\n  got      ${JSON.stringify(got)}`);
      }
    }
    current = transcript.requests.length;
  } finally {
    await lk.close();
  }
  if (!deepEqual(seen, transcript.notifications)) {
    problems.push("notifications differ ([responses before, method, params]):\n"
      + `  expected ${JSON.stringify(transcript.notifications)}\n  got      ${JSON.stringify(seen)}`);
  }
  return problems;
}

function deepEqual(a, b) {
  try {
    assert.deepStrictEqual(a, b);
    return true;
  } catch {
    return false;
  }
}
