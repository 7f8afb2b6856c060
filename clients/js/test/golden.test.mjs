// Replays the golden transcripts (Tests/golden and clients/testdata/golden) through call().

import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { test } from "node:test";
import { CLIENTS, DEFAULT_ARGS, FAKE, PYTHON, displayName, findTranscripts, loadTranscript, realBinary, replay } from "./support.mjs";

const transcripts = findTranscripts();
const { path: binary, why } = realBinary();
const ours = (path) => path.startsWith(CLIENTS + sep);

test("transcripts are found", () => assert.ok(transcripts.some(ours)));

for (const path of transcripts) {
  const transcript = loadTranscript(path);
  const skip = why ?? (typeof transcript === "string" && `cannot be replayed through call(): ${transcript}`);
  test(`golden ${displayName(path)}`, { skip }, async () => {
    const problems = await replay(binary, transcript);
    assert.deepEqual(problems, [], problems.join("\n"));
  });
}

for (const path of transcripts.filter(ours)) {
  test(`stand-in replays ${displayName(path)}`, async () => {
    const transcript = loadTranscript(path);
    const skipped = path.includes(`${sep}skipped${sep}`);
    assert.equal(typeof transcript === "string", skipped, String(transcript));
    if (!skipped) assert.deepEqual(await replay(PYTHON, transcript, [FAKE]), []);
  });
}

test("replay compares notifications and results", async () => {
  const dir = mkdtempSync(join(tmpdir(), "latchkey-golden-"));
  const note = { jsonrpc: "2.0", method: "audit/event",
    params: { event: { at: "2026-01-01T00:00:05Z", type: "clockAdvanced", seconds: 5 } } };
  const lines = (messages) => messages.map((m) => JSON.stringify(m) + "\n").join("");
  writeFileSync(join(dir, "t.in.jsonl"), lines([
    { jsonrpc: "2.0", id: 1, method: "events/subscribe", params: { topics: ["audit"] } },
    { jsonrpc: "2.0", id: 2, method: "clock/advance", params: { seconds: 5 } },
  ]));
  writeFileSync(join(dir, "t.out.jsonl"), lines([
    { jsonrpc: "2.0", id: 1, result: { topics: ["audit"] } },
    note,
    { jsonrpc: "2.0", id: 2, result: { now: "2026-01-01T00:00:05Z" } },
  ]));
  const transcript = loadTranscript(join(dir, "t.in.jsonl"));
  assert.deepEqual(transcript.args, DEFAULT_ARGS);
  assert.deepEqual(transcript.notifications, [[1, "audit/event", note.params]]);
  assert.deepEqual(await replay(PYTHON, transcript, [FAKE]), []);

  // A notification in the wrong place, and a wrong result, are both reported.
  transcript.notifications = [[2, "audit/event", note.params]];
  transcript.responses[1] = { jsonrpc: "2.0", id: 2, result: { now: "2026-01-01T00:00:06Z" } };
  const problems = await replay(PYTHON, transcript, [FAKE]);
  assert.equal(problems.length, 2);
  assert.match(problems[0], /00:00:06Z/);
  assert.match(problems[1], /notifications/);
});
