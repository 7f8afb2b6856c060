// The generated helpers and types: drift against the schema, and the generator's naming rules.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { generate, spliceDts, splitName, identifier, RESERVED, JS_OUT, DTS_FILE } from "../generate.mjs";
import { bindMethods, METHODS } from "../generated.js";
import { ERROR_CODES, ERROR_REASONS, Latchkey, errors } from "../index.js";
import { FIXTURE_SCHEMA, REPO } from "./support.mjs";

test("generated.js and index.d.ts match the schema", () => {
  // Until schema/openrpc.json exists, the committed files are generated from the test fixture.
  const schema = join(REPO, "schema", "openrpc.json");
  const source = existsSync(schema) ? schema : FIXTURE_SCHEMA;
  const { js, dts } = generate(JSON.parse(readFileSync(source, "utf8")));
  const hint = `stale for ${relative(REPO, source)}: run node clients/js/generate.mjs`
    + (existsSync(schema) ? "" : " --schema clients/testdata/mini-openrpc.json");
  assert.equal(readFileSync(JS_OUT, "utf8"), js, `generated.js is ${hint}`);
  const current = readFileSync(DTS_FILE, "utf8");
  assert.equal(current, spliceDts(current, dts), `index.d.ts is ${hint}`);
});

function recorder() {
  const calls = [];
  const client = { call: async (method, params, options) => { calls.push([method, params, options]); } };
  return { calls, helpers: bindMethods(client) };
}

test("every schema method has a helper", async () => {
  const { calls, helpers } = recorder();
  for (const name of METHODS) {
    const [prefix, rest] = splitName(name);
    const owner = prefix ? helpers[identifier(prefix, RESERVED)] : helpers;
    await owner[identifier(rest, prefix ? new Set() : RESERVED)]({});
    assert.equal(calls.at(-1)[0], name);
  }
});

test("no generated name shadows the client", () => {
  const own = new Set([...Object.getOwnPropertyNames(Latchkey.prototype),
    ...Object.getOwnPropertyNames(Object.getPrototypeOf(Latchkey.prototype))]);
  for (const name of Object.keys(recorder().helpers)) assert.ok(!own.has(name), name);
});

test("helpers pass params and options through", async () => {
  const { calls, helpers } = recorder();
  await helpers.ping({ echo: 1 }, { timeout: 5 });
  await helpers.rpc.discover();
  assert.deepEqual(calls, [["ping", { echo: 1 }, { timeout: 5 }], ["rpc.discover", undefined, undefined]]);
});

test("the error registry", () => {
  assert.equal(ERROR_CODES.methodNotFound, -32601);
  assert.equal(errors.METHOD_NOT_FOUND, -32601);
  assert.equal(ERROR_REASONS[-32601], "methodNotFound");
  if ("registrationLocked" in ERROR_CODES) assert.equal(errors.REGISTRATION_LOCKED, 1401);
});

test("names that are taken or not identifiers", async () => {
  const doc = {
    methods: [
      { name: "close", params: [] },
      { name: "on/x-y", params: [{ name: "device-id", required: true, schema: { type: ["string", "null"] } }] },
      { name: "import.from", params: [] },
    ],
    components: { errors: { iCloudKeychainDisabled: { code: 1105, message: "m" } } },
  };
  const { js, dts } = generate(doc);
  const module = await import(`data:text/javascript,${encodeURIComponent(js)}`);
  const calls = [];
  const helpers = module.bindMethods({ call: async (...args) => calls.push(args[0]) });
  await helpers.close_();
  await helpers.on_.x_y({ "device-id": null });
  await helpers.import.from();
  assert.deepEqual(calls, ["close", "on/x-y", "import.from"]);
  assert.equal(module.errors.I_CLOUD_KEYCHAIN_DISABLED, 1105);
  assert.match(dts, /"device-id": string \| null;/);
  assert.match(dts, /close_\(params\?: CloseParams/);
  assert.match(dts, /readonly on_: OnMethods;/);
});
