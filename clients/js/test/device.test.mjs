// The reference device (device.js) through a whole life cycle against the real binary
// ($LATCHKEY_BIN) over the server/ methods: activation, wrong and right PIN, a pushed
// authentication, adding and removing a method, a change of biometric enrolment, a recovery key,
// losing the phone and recovering on a new one, the old one refused, and onboarding with the OTP from delivery/list. Plus a few
// hostile requests built from the device's own primitives, and test vectors shared with the
// Python device.
//
// The tests that need the binary skip only when LATCHKEY_BIN is not set.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Latchkey, LatchkeyError } from "../index.js";
import {
  Device, DeviceError, PIN_ROUNDS, b64url, b64urlDecode, contextHash, mask, newPrivateKey, payload, publicKey, sign, verify,
} from "../device.js";
import { DEFAULT_ARGS, realBinary } from "./support.mjs";

const { path: binary, why } = realBinary();
const skip = why ?? false;

/** Runs `body(lk)` against a fresh binary in test mode (in memory, seed 1, manual clock). */
const withServer = (body) => async () => {
  const lk = Latchkey.spawn({ binary, args: DEFAULT_ARGS, timeout: 60_000 });
  try {
    await body(lk);
  } finally {
    await lk.close();
  }
};

async function activationCode(lk, user = { email: "ann@example.com" }) {
  const { userId } = await lk.call("admin/createUser", user);
  const { activationCode: code } = await lk.call("admin/createActivationCode", { userId });
  return { userId, code };
}

/** Awaits `promise`, which must reject with `reason`; resolves with the error. */
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

test("vectors shared with the Python device", () => {
  const key = Buffer.from(Array.from({ length: 32 }, (_, i) => i + 1));
  const salt = Buffer.from(Array.from({ length: 16 }, (_, i) => i));
  assert.equal(b64url(mask(key, "1234", salt, PIN_ROUNDS)), "kOgGn6sFNKqflcPA2sl3Qcy2LE7OgK32u1y9ONDqlsw");
  assert.deepEqual(mask(mask(key, "1234", salt, 10), "1234", salt, 10), key);
  assert.equal(publicKey(key), "BFFcPW6545a5BNP-yn9U_c0MwemXvzddylFa0KbDtANfRTa-OlDzGPv5pUdZAqIhUCvvDVfgjFOyzApW8X2fk1Q");
  const message = payload("authenticate", "reg-1", "ch-1", "pin", "");
  assert.equal(message.toString(), "LATCHKEY-V1\nauthenticate\nreg-1\nch-1\npin\n");
  // The Python device's deterministic (RFC 6979) raw signature verifies here.
  assert.ok(verify(publicKey(key), "VVsyUmTnZhPtjVvcQsjfnR21BdyOWmmdHtbr1xFJ45dwzpdmHbMQS8m7oLr2ZGNrcYMmYs_QwaXjf0yoc5xKBg", message));
  assert.ok(verify(publicKey(key), sign(key, message, "der"), message));
  assert.equal(b64urlDecode(sign(key, message, "raw")).length, 64);
  assert.ok(!verify(publicKey(key), sign(key, message), payload("authenticate", "reg-1", "ch-1", "device", "")));
  assert.equal(contextHash("Pay 12 €", "x", null), "uhwrzBZC8I-qmEFNGv8I35kncaXmkS3ftnL7rgkmarU");
  assert.equal(b64urlDecode(sign(Buffer.alloc(32), message)).length, 64); // no key: a signature that never verifies
});

test("life cycle of an external device", { skip }, withServer(async (lk) => {
  const { code } = await activationCode(lk);
  const storage = new Map();
  const phone = new Device(lk, "install-phone-1", storage, { signatureFormat: "raw" });

  // -- activation: device, PIN and Face ID keys, with a token for the recovery code ----------
  const activated = await phone.activate(code, { pin: "1234", biometry: "faceId", activationName: "Ann's phone",
    tokenPurpose: "addOrUpdateRecovery" });
  const { registrationId, token } = activated;
  assert.deepEqual([...activated.activatedAuthMethods].sort(), ["device", "faceId", "pin"]);
  assert.equal((await lk.call("admin/getRegistration", { registrationId })).name, "Ann's phone");
  assert.ok(![...storage.values()].includes("1234"));
  for (const item of ["activation.possessionKey", "activation.pinMaskedKey", "activation.pinSalt", "activation.faceIdKey"]) {
    assert.ok(storage.has(item), item);
  }

  // -- wrong PIN (the server tells, and counts), then the right one --------------------------
  const wrong = await refused("authenticationFailed", phone.authenticate({ pin: "9999" }));
  assert.equal(wrong.data.remainingAttempts, 4);
  assert.equal((await phone.status()).server.remainingAttemptsPIN, 4);
  assert.equal((await phone.authenticate({ pin: "1234" })).responseType, "authenticated");
  assert.equal((await phone.status()).server.remainingAttemptsPIN, 5);
  assert.equal((await phone.authenticate({ biometry: "faceId" })).responseType, "authenticated");
  assert.equal((await phone.authenticate()).responseType, "authenticated"); // device only

  // -- raw r‖s and DER signatures are both accepted -----------------------------------------
  phone.signatureFormat = "der";
  assert.equal((await phone.authenticate({ pin: "1234" })).responseType, "authenticated");
  phone.signatureFormat = "raw";

  // -- a pushed authentication: the device sees the context, checks its hash, approves -------
  let push = await lk.call("admin/pushAuthentication", {
    registrationId, contextTitle: "Pay 12 €", contextContent: "To: Bob\nAmount: 12.00 EUR", contextMIME: "text/plain",
  });
  const challenge = await phone.startAuthentication();
  assert.equal(challenge.authenticationId, push.authenticationId);
  assert.equal(challenge.contextTitle, "Pay 12 €");
  assert.equal(challenge.contextHash, contextHash("Pay 12 €", "To: Bob\nAmount: 12.00 EUR", "text/plain"));
  const done = await phone.finishAuthentication(challenge, { pin: "1234" });
  assert.equal(done.contextContent, "To: Bob\nAmount: 12.00 EUR");
  assert.equal((await lk.call("admin/getAuthentication", { authenticationId: push.authenticationId })).status, "approved");

  push = await lk.call("admin/pushAuthentication", { registrationId, contextTitle: "Log in?" });
  const declined = await phone.authenticate({ pin: "1234", approve: async (c) => c.contextTitle !== "Log in?" });
  assert.equal(declined.responseType, "rejected");
  assert.equal((await lk.call("admin/getAuthentication", { authenticationId: push.authenticationId })).status, "rejected");

  // -- remove a method, add it back, change the PIN ------------------------------------------
  assert.deepEqual([...(await phone.removeAuthMethod("faceId"))].sort(), ["device", "pin"]);
  assert.ok(!storage.has("activation.faceIdKey"));
  await refused("authMethodNotAllowed", phone.authenticate({ biometry: "faceId" }));
  assert.deepEqual([...(await phone.addAuthMethod("faceId", { pin: "1234" }))].sort(), ["device", "faceId", "pin"]);
  assert.equal((await phone.authenticate({ biometry: "faceId" })).responseType, "authenticated");
  await refused("policyViolation", phone.addAuthMethod("pin", { newPin: "12", pin: "1234" }));
  await phone.addAuthMethod("pin", { newPin: "5678", pin: "1234" });
  await refused("authenticationFailed", phone.authenticate({ pin: "1234" }));
  assert.equal((await phone.authenticate({ pin: "5678" })).responseType, "authenticated");

  // -- a face enrolled again destroys the Face ID key (StrongTouchID); the PIN adds it again --
  assert.deepEqual(phone.changeBiometricEnrolment(), ["faceId"]);
  assert.ok(!storage.has("activation.faceIdKey"));
  assert.deepEqual(phone.changeBiometricEnrolment(), []);
  const beforeChange = (await phone.status()).server;
  assert.ok(beforeChange.authMethods.includes("faceId")); // the server learns on the next use
  const invalidated = await refused("biometryKeyInvalidated", phone.authenticate({ biometry: "faceId" }));
  assert.equal(invalidated.code, 1106);
  assert.equal(invalidated.data.authMethod, "faceId");
  assert.deepEqual([...invalidated.data.activatedAuthMethods].sort(), ["device", "pin"]);
  const afterChange = (await phone.status()).server;
  assert.deepEqual([...afterChange.authMethods].sort(), ["device", "pin"]); // removed through server/authMethod/remove
  assert.equal(afterChange.remainingAttemptsPIN, beforeChange.remainingAttemptsPIN); // nothing counted
  await refused("authMethodNotAllowed", phone.authenticate({ biometry: "faceId" }));
  assert.deepEqual([...(await phone.addAuthMethod("faceId", { pin: "5678" }))].sort(), ["device", "faceId", "pin"]);
  assert.equal((await phone.authenticate({ biometry: "faceId" })).responseType, "authenticated");

  // -- a recovery code, and the backup that carries it ---------------------------------------
  assert.deepEqual((await phone.setRecovery(token, "plum-tree-42")).recoveryMethods, ["backup"]);
  assert.deepEqual((await phone.status()).server.recoveryMethods, ["backup"]);
  const blob = phone.backup();
  assert.deepEqual(Object.keys(JSON.parse(blob).items).sort(), ["recovery.maskedKey", "recovery.registrationId", "recovery.salt"]);
  assert.ok(!blob.includes("plum-tree-42") && !blob.includes(storage.get("activation.possessionKey")));

  // -- the phone is lost: a new one restores the backup and recovers ------------------------
  const newPhone = new Device(lk, "install-phone-2", {}, { signatureFormat: "der" }); // a plain object as storage
  newPhone.restore(blob);
  assert.ok(newPhone.isRecoveryActivated && !newPhone.isActivated);
  const wrongCode = await refused("recoveryCodeInvalid", newPhone.recover("plum-tree-41", { pin: "2468" }));
  assert.equal(wrongCode.data.remainingAttempts, 4);
  const recovered = await newPhone.recover("plum-tree-42", { pin: "2468", registrationId, tokenPurpose: "addOrUpdateRecovery" });
  assert.equal(recovered.registrationId, registrationId);
  assert.deepEqual([...recovered.activatedAuthMethods].sort(), ["device", "pin"]);
  assert.ok(!newPhone.isRecoveryActivated);
  assert.equal((await newPhone.authenticate({ pin: "2468" })).responseType, "authenticated");
  await newPhone.setRecovery(recovered.token, "a new code 7");

  // -- the old phone is refused, and nothing it tries counts --------------------------------
  const before = (await newPhone.status()).server.remainingAttemptsPIN;
  await refused("registrationRemoved", phone.authenticate({ pin: "5678" }));
  await refused("registrationRemoved", phone.authenticate({ pin: "0000" }));
  assert.equal((await newPhone.status()).server.remainingAttemptsPIN, before);
  await refused("registrationRemoved", phone.removeRegistration()); // the new phone's registration stays
  await phone.removeRegistration({ onlyLocally: true });
  assert.ok(!phone.isActivated);

  // -- the new phone removes its registration -----------------------------------------------
  await newPhone.removeRegistration();
  assert.ok(!newPhone.isActivated);
  assert.equal((await lk.call("admin/getRegistration", { registrationId })).state, "removed");
}));

test("wrong PINs lock the registration; a locked phone still removes itself", { skip }, withServer(async (lk) => {
  const { code } = await activationCode(lk);
  const phone = new Device(lk, "install-1");
  await phone.activate(code, { pin: "1234" });
  for (const remaining of [4, 3, 2, 1]) {
    assert.equal((await refused("authenticationFailed", phone.authenticate({ pin: "0000" }))).data.remainingAttempts, remaining);
  }
  assert.equal((await refused("registrationLocked", phone.authenticate({ pin: "0000" }))).data.remainingAttempts, 0);
  await refused("registrationLocked", phone.authenticate({ pin: "1234" }));
  assert.equal((await phone.status()).server.state, "locked");
  await phone.removeRegistration();
  assert.ok(!phone.isActivated);

  // A phone whose registration the operator removed (stolen) only forgets it.
  const { code: second } = await activationCode(lk, { email: "bob@example.com" });
  await phone.activate(second, { pin: "1234" });
  await lk.call("admin/removeRegistration", { registrationId: phone.registrationId });
  await refused("registrationRemoved", phone.authenticate({ pin: "1234" }));
  await phone.removeRegistration();
  assert.ok(!phone.isActivated);
}));

test("an enrolment change keeps the challenge in hand, and may leave device alone", { skip }, withServer(async (lk) => {
  const { code } = await activationCode(lk);
  const phone = new Device(lk, "install-1");
  await phone.activate(code, { pin: "1234", biometry: "touchId" });
  assert.deepEqual(phone.changeBiometricEnrolment(), ["touchId"]);
  const challenge = await phone.startAuthentication();
  await refused("biometryKeyInvalidated", phone.finishAuthentication(challenge, { biometry: "touchId" }));
  // Nothing was signed with the challenge in hand: the PIN still answers it.
  assert.equal((await phone.finishAuthentication(challenge, { pin: "1234" })).responseType, "authenticated");

  // A registration that had Face ID alone is left with device: a recovery or a new activation.
  const { code: second } = await activationCode(lk, { email: "bob@example.com" });
  const alone = new Device(lk, "install-2");
  await alone.activate(second, { biometry: "faceId" });
  alone.changeBiometricEnrolment();
  const error = await refused("biometryKeyInvalidated", alone.authenticate({ biometry: "faceId" }));
  assert.deepEqual(error.data.activatedAuthMethods, ["device"]);
  assert.match(error.message, /needs a recovery or a new activation/);
  assert.deepEqual((await alone.status()).server.authMethods, ["device"]);
  await refused("authMethodNotAllowed", alone.addAuthMethod("faceId")); // device adds nothing two-factor
}));

test("a challenge expires after 300 s; recovery deleted; refusals on the device", { skip }, withServer(async (lk) => {
  const { code } = await activationCode(lk);
  const phone = new Device(lk, "install-1");
  await refused("notActivatedLocally", phone.authenticate({ pin: "1234" }));
  await refused("policyViolation", phone.activate(code, { pin: "12" }));
  const { token } = await phone.activate(code, { pin: "1234", tokenPurpose: "addOrUpdateRecovery" });
  await refused("alreadyActivated", phone.activate(code, { pin: "1234" }));
  await refused("policyViolation", phone.setRecovery(token, "short"));
  await phone.setRecovery(token, "long enough");
  const { token: deleteToken } = await phone.authenticate({ pin: "1234", tokenPurpose: "deleteRecovery" });
  assert.deepEqual((await phone.deleteRecovery(deleteToken)).recoveryMethods, []);
  assert.ok(!phone.isRecoveryActivated);
  await refused("cannotDeactivateDevice", phone.removeAuthMethod("device"));
  assert.throws(() => new Device(lk, "x").restore("{}"), DeviceError);

  const challenge = await phone.startAuthentication();
  await lk.call("clock/advance", { seconds: 300 });
  await refused("sessionExpired", phone.finishAuthentication(challenge, { pin: "1234" }));
  assert.equal((await phone.status()).server.remainingAttemptsPIN, 5);
}));

test("onboarding with the OTP from delivery/list", { skip }, withServer(async (lk) => {
  const { userId } = await lk.call("admin/createUser", { email: "otto@example.com" });
  const phone = new Device(lk, "install-onboarding");
  await phone.startOnboarding({ email: "otto@example.com" });
  await refused("onboardingInProgress", phone.startOnboarding({ email: "otto@example.com" }));
  assert.equal(await phone.onboardingStatus(), "activationInProgress");
  const { messages } = await lk.call("delivery/list", { to: "otto@example.com" });
  const otp = messages.filter((m) => m.purpose === "onboardingOtp").at(-1).code;
  await refused("otpInvalid", phone.activateOnboarding(otp === "00000000" ? "11111111" : "00000000", { pin: "1234" }));
  const { registrationId } = await phone.activateOnboarding(otp, { pin: "1234", activationName: "Otto" });
  assert.equal(await phone.onboardingStatus(), "verificationInProgress");
  await refused("verificationPending", phone.authenticate({ pin: "1234" }));
  await lk.call("admin/completeVerification", { userId, approved: true });
  assert.equal(await phone.onboardingStatus(), "finished");
  assert.equal((await phone.status()).onboardingProcessId, null);
  assert.equal((await phone.authenticate({ pin: "1234" })).responseType, "authenticated");
  assert.equal((await lk.call("admin/getRegistration", { registrationId })).state, "active");

  const other = new Device(lk, "install-other");
  await other.startOnboarding({ email: "nobody@example.com" }); // the same answer for nobody
  await other.cancelOnboarding();
  await refused("onboardingNotRunning", other.onboardingStatus());
}));

// -- hostile requests, built from the device's primitives ---------------------------------------

async function prepared(lk, installationId = "install-h") {
  const { code } = await activationCode(lk, { email: `${installationId}@example.com` });
  return lk.call("server/activation/prepare", { activationCode: code, installationId });
}

const handed = (privateKey, offer, role, signer = privateKey) => ({
  publicKey: publicKey(privateKey), proof: sign(signer, payload("activate", offer.activationId, offer.challenge, role)),
});

test("a proof made by another key, or for another role, is proofInvalid and consumes nothing", { skip }, withServer(async (lk) => {
  const offer = await prepared(lk);
  const mine = newPrivateKey();
  const theirs = newPrivateKey();
  let error = await refused("proofInvalid", lk.call("server/activation/commit", {
    activationId: offer.activationId, keys: { device: handed(mine, offer, "device"), pin: handed(theirs, offer, "pin", mine) },
  }));
  assert.equal(error.code, 1303);
  assert.equal(error.data.keyRole, "pin");
  error = await refused("proofInvalid", lk.call("server/activation/commit", {
    activationId: offer.activationId,
    keys: { device: { publicKey: publicKey(mine), proof: handed(mine, offer, "faceId").proof } },
  }));
  assert.equal(error.data.keyRole, "device");
  const result = await lk.call("server/activation/commit", { activationId: offer.activationId, keys: { device: handed(mine, offer, "device") } });
  assert.deepEqual(result.activatedAuthMethods, ["device"]);
}));

test("compressed, short, long and off-curve public keys are invalidParams", { skip }, withServer(async (lk) => {
  const offer = await prepared(lk);
  const key = newPrivateKey();
  const point = b64urlDecode(publicKey(key));
  const x = point.subarray(1, 33);
  const compressed = Buffer.concat([Buffer.from([2 + (point[64] & 1)]), x]);
  for (const bad of [compressed, Buffer.from([0]), point.subarray(0, 64), Buffer.concat([point, Buffer.from([0])]),
    Buffer.concat([Buffer.from([4]), x, Buffer.alloc(32)])]) {
    const error = await refused("invalidParams", lk.call("server/activation/commit", {
      activationId: offer.activationId, keys: { device: { publicKey: b64url(bad), proof: handed(key, offer, "device").proof } },
    }));
    assert.equal(error.code, -32602);
  }
}));

test("a signature that ignores the pushed context is refused and counts nothing", { skip }, withServer(async (lk) => {
  const { code } = await activationCode(lk);
  const phone = new Device(lk, "install-1");
  const { registrationId } = await phone.activate(code, { pin: "1234" });
  const push = await lk.call("admin/pushAuthentication", { registrationId, contextTitle: "Wire 1000 €" });
  const challenge = await phone.startAuthentication();
  assert.notEqual(challenge.contextHash, "");
  await refused("registrationRemoved", phone.finishAuthentication({ ...challenge, contextHash: "" }, { pin: "1234" }));
  assert.equal((await lk.call("admin/getAuthentication", { authenticationId: push.authenticationId })).status, "pending");
  assert.equal((await phone.status()).server.remainingAttemptsPIN, 5);
}));
