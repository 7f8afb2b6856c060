// Passkeys through a whole life cycle against the real binary ($LATCHKEY_BIN), with the software
// authenticator (authenticator.js) as the browser: register after a password sign-in, sign in
// by name and discoverably, a clone refused by the counter, reset with a code from
// delivery/list onto a new passkey, the old one refused.
//
// Skips, saying so, while the binary has no passkey/creationOptions (rpc.discover tells).

import assert from "node:assert/strict";
import { test } from "node:test";
import { Latchkey, LatchkeyError } from "../index.js";
import { ES256, SoftwareAuthenticator } from "../authenticator.js";
import { DEFAULT_ARGS, Skip, realBinary, skippable } from "./support.mjs";

const { path: binary, why } = realBinary();
const EMAIL = "ann@example.com";
const PASSWORD = "correct horse battery";
const ORIGIN = "https://localhost";

/** Runs `body(lk)` against a fresh binary in test mode; skips when it has no passkeys yet. */
const withServer = (body) => skippable(async () => {
  const lk = Latchkey.spawn({ binary, args: DEFAULT_ARGS, timeout: 60_000 });
  try {
    const { methods } = await lk.call("rpc.discover");
    if (!methods.some((m) => m.name === "passkey/creationOptions")) {
      throw new Skip("this latchkey has no passkey methods yet (rpc.discover lists no passkey/creationOptions)");
    }
    await body(lk);
  } finally {
    await lk.close();
  }
});

async function refused(reason, promise) {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof LatchkeyError, error);
    assert.equal(error.reason, reason, error.message);
    return error;
  }
  assert.fail(`expected ${reason}`);
}

async function login(lk, key, who = {}) {
  const options = await lk.call("passkey/requestOptions", who);
  return lk.call("passkey/login", { ceremonyId: options.ceremonyId, credential: await key.get(options) });
}

test("passkey life cycle", { skip: why ?? false }, withServer(async (lk) => {
  const { userId } = await lk.call("admin/createUser", { email: EMAIL, password: PASSWORD });
  const { sessionId } = await lk.call("user/login", { email: EMAIL, password: PASSWORD });
  const key = new SoftwareAuthenticator({ origin: ORIGIN });

  // Register after a password sign-in.
  const options = await lk.call("passkey/creationOptions", { sessionId });
  assert.equal(options.publicKey.rp.id, "localhost");
  const credential = await key.create(options);
  const { passkey } = await lk.call("passkey/create", { ceremonyId: options.ceremonyId, credential, friendlyName: "Laptop" });
  assert.equal(passkey.id, credential.id);
  assert.equal(passkey.algorithm, ES256);
  await refused("noSessionInProgress", lk.call("passkey/create", { ceremonyId: options.ceremonyId, credential }));

  // By name, then discoverable; a clone taken at counter 1 is refused once the key is at 3.
  assert.equal((await login(lk, key, { email: EMAIL })).uid, userId);
  const twin = key.clone();
  assert.equal((await login(lk, key)).uid, userId);
  const { sessionId: second } = await login(lk, key, { email: EMAIL });
  const error = await refused("passkeyInvalid", login(lk, twin, { email: EMAIL }));
  assert.equal(error.data.check, "signCount");
  const { passkeys } = await lk.call("user/passkeys", { sessionId: second });
  assert.deepEqual(passkeys.map((p) => p.id), [credential.id]);

  // Reset with the code from the mailbox, onto a new authenticator.
  assert.deepEqual(await lk.call("reset/requestAccountRecovery", { email: EMAIL, redirectUrl: "app://reset" }), {});
  const { messages } = await lk.call("delivery/list", { to: EMAIL });
  const { code, purpose } = messages.at(-1);
  assert.equal(purpose, "accountRecovery");
  const resetOptions = await lk.call("reset/passkeyCreationOptions", { email: EMAIL, verificationCode: code });
  const newKey = new SoftwareAuthenticator({ origin: ORIGIN });
  const newCredential = await newKey.create(resetOptions);
  const reset = await lk.call("reset/resetPasskeys", {
    email: EMAIL, verificationCode: code,
    passkey: { ceremonyId: resetOptions.ceremonyId, credential: newCredential, friendlyName: "New phone" },
  });
  assert.deepEqual(reset.passkeys.map((p) => p.id), [newCredential.id]);

  // The old passkey is refused; the new one signs in.
  assert.equal((await refused("passkeyInvalid", login(lk, key))).data.check, "credential");
  await assert.rejects(login(lk, key, { email: EMAIL }), { name: "NotAllowedError" });
  assert.equal((await login(lk, newKey, { email: EMAIL })).uid, userId);
  assert.equal((await login(lk, newKey)).uid, userId);
}));
