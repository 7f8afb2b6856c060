// The hand-written declarations (index.d.ts outside its generated region, device.d.ts,
// authenticator.d.ts) type-check what the code returns and what the README shows: every `js`
// snippet of clients/README.md compiles with `tsc --strict` against them, and so do values shaped
// as the device's and the server's answers are. Needs TypeScript's `tsc` ($TSC, else on PATH; the
// Debian package node-typescript has one); the test skips, saying so, without it.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { CLIENTS } from "./support.mjs";

const TSC = process.env.TSC || "tsc";
const found = spawnSync(TSC, ["--version"], { encoding: "utf8" });
const skip = found.error || found.status !== 0 ? `${TSC} is not available (install TypeScript, e.g. node-typescript)` : false;
const JS = join(CLIENTS, "js");

// Node's own types stand in here so the check needs nothing but tsc (no @types/node).
const NODE_STUB = `
declare module "node:child_process" { export class ChildProcess {} }
declare module "node:events" { export class EventEmitter { on(event: string | symbol, listener: (...args: any[]) => void): this; } }
declare namespace NodeJS { type ProcessEnv = Record<string, string | undefined>; type Signals = string; }
declare class Buffer extends Uint8Array {}
interface SymbolConstructor { readonly asyncDispose: unique symbol }
`;

// What a README snippet uses without defining it (an app's own names), declared for the check.
const AMBIENT = {
  lk: "declare const lk: import(\"JS/index.js\").Latchkey;",
  sessionId: "declare const sessionId: string;",
  client: "declare const client: import(\"JS/device.js\").DeviceClient;",
  keychain: "declare const keychain: import(\"JS/device.js\").DeviceStorage;",
  userConfirms: "declare function userConfirms(shown: import(\"JS/device.js\").ShownOperation): Promise<boolean>;",
  askPin: "declare function askPin(): Promise<string>;",
  scannedText: "declare const scannedText: string;",
};

/** Every ```js block of the README, its imports pointed at clients/js, with the names it assumes declared. */
function readmeSnippets() {
  const readme = readFileSync(join(CLIENTS, "README.md"), "utf8");
  return [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map(([, code], index) => {
    const source = code.replaceAll("./clients/js/", `${JS}/`);
    const declared = Object.entries(AMBIENT)
      .filter(([name]) => new RegExp(`\\b${name}\\b`).test(source)
        && !new RegExp(`(const|let|function)\\s+(\\{[^}]*\\b)?${name}\\b`).test(source))
      .map(([, declaration]) => declaration.replaceAll("JS/", `${JS}/`));
    return [`readme_${index + 1}.ts`, `${declared.join("\n")}\n${source}\nexport {};\n`];
  });
}

// Values shaped as the runtime answers them (the device tests check the same at run time).
const RESULTS = `
import type { Activated, Device, Offer } from "${JS}/device.js";
import type { Latchkey } from "${JS}/index.js";
import { SoftwareAuthenticator } from "${JS}/authenticator.js";

export const prepared: Offer = {
  activationId: "a", challenge: "c", expiresAt: "2026-01-01T00:05:00Z", authMethodsForActivation: ["device", "pin"],
  pinCodeType: "numeric", pinCodeLengthMin: 4, pinCodeLengthMax: 8, operationSigningKey: "BEQF",
};
export const recoveryOffer: Offer = {
  challengeId: "c", challenge: "c", expiresAt: "2026-01-01T00:05:00Z", authMethodsForActivation: ["pin"],
  pinCodeType: "numeric", pinCodeLengthMin: 4, pinCodeLengthMax: 8,
};
export const activated: Activated = { registrationId: "reg_1", activatedAuthMethods: ["device", "pin"], serverPublicKey: "BBZg", token: "t" };
export const recovered: Activated = {
  responseType: "activated", contextContent: null, registrationId: "reg_1", activatedAuthMethods: ["device", "pin"], serverPublicKey: "BBZg",
};

declare const phone: Device;
declare const lk: Latchkey;
export async function keys(): Promise<Array<string | undefined>> {
  const offer = await phone.prepareActivation("code");
  const done = await phone.commitActivation(offer, { pin: "1234" });
  const onboarded = await phone.prepareOnboardingActivation("123456");
  const again = await phone.recover("plum-tree-42", { pin: "2468" });
  return [offer.operationSigningKey, done.serverPublicKey, onboarded.operationSigningKey, again.serverPublicKey];
}

// An error reply that answers no call.
lk.on("strayError", (error) => error.reason);
export const strays: Array<{ code: number | null }> = lk.strayErrors;

// Every options result the server types goes to the authenticator as it is, or its publicKey.
export async function passkeys(sessionId: string) {
  const key = new SoftwareAuthenticator();
  const creation = await lk.passkey.creationOptions({ sessionId });
  await key.create(creation);
  await key.create(creation.publicKey);
  const reset = await lk.reset.passkeyCreationOptions({ email: "ann@example.com", verificationCode: "123456" });
  await key.create(reset);
  await key.create(reset.publicKey);
  const request = await lk.passkey.requestOptions({});
  await key.get(request);
  await key.get(request.publicKey, { credentialId: "id" });
  const approval = await lk.operation.passkeyOptions({ sessionId, operationId: "op" });
  return lk.operation.passkeyApprove({ ceremonyId: approval.ceremonyId, credential: await key.get(approval) });
}
`;

test("the README's JavaScript and the device's and server's answers type-check with tsc --strict", { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), "latchkey-types-"));
  try {
    const files = { "node-stub.d.ts": NODE_STUB, "results.ts": RESULTS, ...Object.fromEntries(readmeSnippets()) };
    assert.ok(Object.keys(files).length >= 6, "the README has its js snippets");
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: "es2022", module: "es2022", moduleResolution: "node", types: [] },
      files: Object.keys(files),
    }));
    const run = spawnSync(TSC, ["-p", join(dir, "tsconfig.json")], { encoding: "utf8" });
    assert.equal(run.status, 0, `tsc found errors:\n${run.stdout}${run.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
