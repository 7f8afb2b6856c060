// Operations on the reference device (device.js): the inbox, showing an operation the way a banking
// app would, approving and rejecting it over server/operation/*, and offline approval by QR code —
// against the real binary ($LATCHKEY_BIN), plus the cross-checks of the offline code: RFC 4226's own
// test vectors through the truncation; clients/testdata/offline-vectors.json (written by the Python
// device's tests, checked here: the two devices compute the same codes, flaws, data and display);
// and the server's reading (codes this device computes verify with admin/verifyOfflineOperation, and
// so do the simulated phone's in the same seeded run).
//
// The tests that need the binary skip only when LATCHKEY_BIN is not set.

import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Latchkey, LatchkeyError } from "../index.js";
import {
  Device, DeviceError, OperationDataError, QRPayloadError, b64url, b64urlDecode, escapeOperationData, ibanValid, newPrivateKey,
  offlinePart, operationHash, parseOperationData, parseQrPayload, publicKey, showOperation, sign, signQrPayload, truncate,
} from "../device.js";
import { CLIENTS, DEFAULT_ARGS, realBinary } from "./support.mjs";

const { path: binary, why } = realBinary();
const skip = why ?? false;
const vectors = JSON.parse(readFileSync(join(CLIENTS, "testdata", "offline-vectors.json"), "utf8"));

const TEMPLATE = {
  name: "payment", title: "Pay ${amount} ${currency}", message: "To ${iban}", data: "A1*A${amount}${currency}*I${iban}*D${due}",
  attributes: [{ type: "amount", label: "Amount", amount: "${amount}", currency: "${currency}" },
    { type: "keyValue", label: "To", value: "${iban}" }],
  ttlSeconds: 3600,
};
const PAYMENT = { amount: "1500.00", currency: "EUR", iban: "CZ2730300000001165254011", due: "20260131" };
const TAMPERED = "A1*A9500.00EUR*ICZ2730300000001165254011*D20260131";

/** Runs `body(lk)` against a fresh binary in test mode (in memory, seed 1, manual clock). */
const withServer = (body) => async () => {
  const lk = Latchkey.spawn({ binary, args: DEFAULT_ARGS, timeout: 60_000 });
  try {
    await body(lk);
  } finally {
    await lk.close();
  }
};

/** Awaits `promise` (or calls a function), which must fail with `reason`; resolves with the error. */
async function refused(reason, promise) {
  try {
    await (typeof promise === "function" ? promise() : promise);
  } catch (error) {
    assert.ok(error instanceof LatchkeyError, error);
    assert.equal(error.reason, reason, error.message);
    return error;
  }
  assert.fail(`expected ${reason}`);
}

/** A user, and a reference device activated for them (PIN 1234 and Face ID). */
async function phoneOf(lk, email = "ann@example.com") {
  const { userId } = await lk.call("admin/createUser", { email });
  const { activationCode } = await lk.call("admin/createActivationCode", { userId });
  const phone = new Device(lk, "install-ops", new Map());
  await phone.activate(activationCode, { pin: "1234", biometry: "faceId" });
  return { userId, phone };
}

const operation = (lk, userId, template = "payment") =>
  lk.call("admin/createOperation", { userId, template, parameters: PAYMENT });
const status = (lk, operationId) => lk.call("admin/getOperation", { operationId });
const remainingPin = async (phone) => (await phone.status()).server.remainingAttemptsPIN;
const qrFor = async (lk, operationId, registrationId) =>
  (await lk.call("admin/operationQrCode", registrationId ? { operationId, registrationId } : { operationId })).qrPayload;

/** A client that fails every call: offline approval makes none. */
const offline = { call: async (method) => assert.fail(`offline approval called ${method}`) };

// -- the truncation: RFC 4226, appendix D -------------------------------------------------------

test("RFC 4226 appendix D through the truncation", () => {
  const got = Array.from({ length: 10 }, (_, count) => {
    const counter = Buffer.alloc(8);
    counter.writeBigUInt64BE(BigInt(count));
    return truncate(createHmac("sha1", "12345678901234567890").update(counter).digest(), 6);
  });
  assert.deepEqual(got, ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"]);
  for (const { mac, digits, value } of vectors.truncation) assert.equal(truncate(Buffer.from(mac, "hex"), digits), value);
});

// -- the vectors shared with the Python device --------------------------------------------------

test("offline vectors: the same parts and codes as the Python device, on both sides of the ECDH", () => {
  const { registrationId, qr } = vectors;
  for (const [role, privateKey] of Object.entries(vectors.privateKeys)) {
    assert.equal(publicKey(b64urlDecode(privateKey)), vectors.publicKeys[role]);
    const mine = offlinePart(b64urlDecode(privateKey), role, vectors.server.publicKey, registrationId, qr.operationId, qr.operationHash, qr.nonce);
    const theirs = offlinePart(b64urlDecode(vectors.server.privateKey), role, vectors.publicKeys[role], registrationId, qr.operationId,
      qr.operationHash, qr.nonce);
    assert.equal(mine, vectors.parts[role], role);
    assert.equal(theirs, vectors.parts[role], role);
  }
  const scanned = parseQrPayload(qr.payload, vectors.operationSigning.publicKey);
  assert.deepEqual([scanned.operationId, scanned.title, scanned.message, scanned.data, scanned.biometric, scanned.nonce],
    [qr.operationId, qr.title, qr.message, qr.data, true, qr.nonce]);
  assert.equal(scanned.operationHash, qr.operationHash);
  assert.equal(operationHash(qr.operationId, qr.title, qr.message, qr.data), qr.operationHash);

  // The Python device's keychain items, on this device.
  const phone = new Device(offline, "vectors", new Map(Object.entries(vectors.storage)));
  const shown = { operationId: qr.operationId, title: qr.title, message: qr.message, data: qr.data };
  assert.deepEqual(phone.offlineCode(qr.payload, { pin: vectors.pin }), { code: vectors.codes.pin, ...shown });
  assert.equal(phone.offlineCode(qr.payload, { biometry: "touchId" }).code, vectors.codes.touchId);
  assert.equal(phone.offlineCode(qr.payload, { biometry: "faceId" }).code, vectors.codes.faceId);
  assert.equal(phone.offlineCode(qr.payload, { pin: vectors.wrongPin }).code, vectors.codes.wrongPin); // no error: a wrong code
  assert.throws(() => phone.offlineCode(qr.unflaggedPayload, { biometry: "faceId" }), (e) => e.reason === "authMethodNotAllowed");
  assert.equal(phone.offlineCode(qr.unflaggedPayload, { pin: "1234" }).code, vectors.codes.pin);
  // What this device signs, the Python device's verify reads back (and the other way, above).
  const again = signQrPayload(b64urlDecode(vectors.operationSigning.privateKey), { ...shown, biometric: true, nonce: qr.nonce });
  assert.equal(again.split("\n").slice(0, 7).join("\n"), qr.payload.split("\n").slice(0, 7).join("\n"));
  assert.equal(parseQrPayload(again, vectors.operationSigning.publicKey).operationHash, qr.operationHash);
});

test("offline vectors: every flawed QR payload refused with the same flaw", () => {
  const phone = new Device(offline, "vectors", new Map(Object.entries(vectors.storage)));
  for (const { name, payload, flaw } of vectors.badPayloads) {
    assert.throws(() => parseQrPayload(payload, vectors.operationSigning.publicKey),
      (e) => e instanceof QRPayloadError && e.message === flaw, name);
    assert.throws(() => phone.offlineCode(payload, { pin: "1234" }),
      (e) => e instanceof DeviceError && e.reason === "qrInvalid" && e.code === 2003 && e.data.flaw === flaw, name);
  }
  // No operation-signing key kept: the signature cannot be checked, nothing is shown; a payload of
  // the contract's form is not refused as invalid but as not possible yet (go online once).
  const bare = new Map(Object.entries(vectors.storage));
  bare.delete("activation.operationSigningKey");
  assert.throws(() => new Device(offline, "v", bare).offlineCode(vectors.qr.payload, { pin: "1234" }),
    (e) => e instanceof DeviceError && e.reason === "offlineUnavailable" && e.code === 2004);
  const malformed = vectors.badPayloads.find((b) => b.name === "a line missing");
  assert.throws(() => new Device(offline, "v", bare).offlineCode(malformed.payload, { pin: "1234" }),
    (e) => e.reason === "qrInvalid" && e.data.flaw === malformed.flaw);
  const keyless = new Map(Object.entries(vectors.storage));
  keyless.delete("activation.serverPublicKey");
  assert.throws(() => new Device(offline, "v", keyless).offlineCode(vectors.qr.payload, { pin: "1234" }),
    (e) => e.reason === "offlineUnavailable" && e.code === 2004);
});

test("offline vectors: operation data and what the phone shows, as the Python device", () => {
  for (const { text, parsed, error } of vectors.operationData) {
    if (error === undefined) {
      assert.deepEqual(parseOperationData(text), parsed, text);
    } else {
      assert.throws(() => parseOperationData(text), (e) => e instanceof OperationDataError && e.rule === error, text);
    }
  }
  for (const { operation: op, shown } of vectors.show) assert.deepEqual(showOperation(op), shown, op.operationId);
  assert.ok(ibanValid("GB82WEST12345698765432") && !ibanValid("GB82WEST12345698765433"));
  assert.equal(escapeOperationData("a*b\\c\nd"), "a\\*b\\\\c\\nd");
  assert.equal(operationHash("op", "t", "m", "A1"),
    b64url(createHash("sha256").update(Buffer.from("\0\0\0\x02op\0\0\0\x01t\0\0\0\x01m\0\0\0\x02A1", "latin1")).digest()));
  // Untrusted input never throws anything but the parsers' own errors.
  const alphabet = "A1*\\nITDQRNE.,Z9-é\t";
  const key = publicKey(newPrivateKey());
  for (let i = 0; i < 2000; i += 1) {
    const text = Array.from({ length: Math.floor(Math.random() * 40) }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join("");
    try { parseOperationData(text); } catch (e) { assert.ok(e instanceof OperationDataError, e); }
    try { parseQrPayload(text.replace(/-/g, "\n"), key); } catch (e) { assert.ok(e instanceof QRPayloadError, e); }
  }
});

// -- against the binary -------------------------------------------------------------------------

test("an operation's life: list, show, wrong PIN, tampered display, approve, reject", { skip }, withServer(async (lk) => {
  const { userId, phone } = await phoneOf(lk);
  assert.ok(phone.operationSigningKey && phone.serverPublicKey); // learned at activation
  await lk.call("admin/configureOperationTemplate", TEMPLATE);
  assert.deepEqual(await phone.operations(), []);

  const created = await operation(lk, userId);
  const inbox = await phone.operations();
  assert.deepEqual(inbox.map((op) => op.operationId), [created.operationId]);
  const shown = phone.showOperation(inbox[0]);
  assert.deepEqual(shown.lines, ["Pay 1500.00 EUR", "To CZ2730300000001165254011", "Amount: 1 500.00 EUR", "To: CZ2730300000001165254011"]);
  assert.deepEqual(shown.fields.map((field) => field.text), ["1 500.00 EUR", "CZ27 3030 0000 0011 6525 4011", "2026-01-31"]);
  assert.ok(shown.attributes.every((attribute) => attribute.inData));

  let error = await refused("authenticationFailed", phone.approveOperation(created.operationId, { pin: "9999" }));
  assert.equal(error.data.remainingAttempts, 4);
  assert.equal((await status(lk, created.operationId)).failureCount, 1);
  assert.equal(await remainingPin(phone), 4);
  error = await refused("operationDataMismatch", phone.approveOperation(created.operationId, { pin: "1234", shownData: TAMPERED }));
  assert.equal(error.data.remainingAttempts, 3);
  assert.equal((await status(lk, created.operationId)).failureCount, 2);
  assert.equal(await remainingPin(phone), 4);
  await refused("authMethodNotAllowed", phone.approveOperation(created.operationId)); // device alone
  const approved = await phone.approveOperation(inbox[0], { pin: "1234" });
  assert.deepEqual([approved.status, approved.approvedWith], ["approved", "pin"]);
  assert.equal(await remainingPin(phone), 5);
  error = await refused("operationNotPending", phone.approveOperation(created.operationId, { pin: "1234" }));
  assert.equal(error.data.status, "approved");

  const byFace = await operation(lk, userId);
  assert.equal((await phone.approveOperation(byFace.operationId, { biometry: "faceId" })).approvedWith, "faceId");

  const seenElse = await operation(lk, userId);
  const rejected = await phone.rejectOperation(seenElse.operationId, "incorrectData", { shownData: TAMPERED });
  assert.deepEqual([rejected.status, rejected.rejectReason], ["rejected", "incorrectData"]);
  const unexpected = await operation(lk, userId);
  assert.equal((await phone.rejectOperation(unexpected, "unexpectedOperation")).rejectReason, "unexpectedOperation");
  const events = Object.fromEntries((await lk.call("audit/list", { userId })).events
    .filter((event) => event.type === "operationRejected").map((event) => [event.operationId, event]));
  assert.equal(events[seenElse.operationId].dataMismatch, true);
  assert.ok(!events[unexpected.operationId].dataMismatch);
  const listed = (await lk.call("admin/listOperations", { userId, status: "rejected" })).operations;
  assert.equal(listed.find((op) => op.operationId === seenElse.operationId).rejectReason, "incorrectData");
  assert.equal(await remainingPin(phone), 5); // rejections count nothing
}));

test("wrong PINs up to maxFailureCount fail the operation", { skip }, withServer(async (lk) => {
  const { userId, phone } = await phoneOf(lk);
  await lk.call("admin/configureOperationTemplate", { ...TEMPLATE, maxFailureCount: 2 });
  const created = await operation(lk, userId);
  await refused("authenticationFailed", phone.approveOperation(created.operationId, { pin: "9999" }));
  const error = await refused("operationFailed", phone.approveOperation(created.operationId, { pin: "9999" }));
  assert.equal(error.data.status, "failed");
  await refused("operationNotPending", phone.approveOperation(created.operationId, { pin: "1234" }));
  assert.equal(await remainingPin(phone), 3);
}));

test("offline approval: the code verifies, a wrong PIN and an old QR do not", { skip }, withServer(async (lk) => {
  const { userId, phone } = await phoneOf(lk);
  await lk.call("admin/configureOperationTemplate", TEMPLATE);

  const created = await operation(lk, userId);
  const answer = phone.offlineCode(await qrFor(lk, created.operationId), { pin: "1234" });
  assert.deepEqual([answer.operationId, answer.title, answer.data], [created.operationId, created.title, created.data]);
  assert.match(answer.code, /^[0-9]{8}-[0-9]{8}$/);
  const approved = await lk.call("admin/verifyOfflineOperation", { operationId: created.operationId, code: answer.code });
  assert.deepEqual([approved.status, approved.approvedWith], ["approved", "offline"]);

  const second = await operation(lk, userId);
  const qr = await qrFor(lk, second.operationId);
  const wrong = phone.offlineCode(qr, { pin: "9999" });
  const right = phone.offlineCode(qr, { pin: "1234" });
  assert.notEqual(wrong.code, right.code);
  assert.equal(wrong.code.slice(0, 8), right.code.slice(0, 8));
  const error = await refused("authenticationFailed", lk.call("admin/verifyOfflineOperation", { operationId: second.operationId, code: wrong.code }));
  assert.equal(error.data.remainingAttempts, 4);
  assert.equal((await status(lk, second.operationId)).failureCount, 1);
  assert.equal(await remainingPin(phone), 4);
  const newer = await qrFor(lk, second.operationId);
  await refused("authenticationFailed", lk.call("admin/verifyOfflineOperation", { operationId: second.operationId, code: right.code }));
  assert.equal((await status(lk, second.operationId)).failureCount, 2);
  assert.equal(await remainingPin(phone), 4); // a stranger's digits lock no phone
  const face = phone.offlineCode(newer, { biometry: "faceId" });
  assert.equal((await lk.call("admin/verifyOfflineOperation", { operationId: second.operationId, code: face.code })).approvedWith, "offline");
  assert.equal(await remainingPin(phone), 5);

  const late = await operation(lk, userId);
  const lateQr = await qrFor(lk, late.operationId);
  const lateCode = phone.offlineCode(lateQr, { pin: "1234" }).code;
  await lk.call("clock/advance", { seconds: 300 });
  await refused("sessionExpired", lk.call("admin/verifyOfflineOperation", { operationId: late.operationId, code: lateCode }));

  await refused("qrInvalid", () => phone.offlineCode(lateQr.replace("A1500.00EUR", "A9500.00EUR"), { pin: "1234" }));
  await refused("authMethodNotAllowed", () => phone.offlineCode(lateQr));
  await refused("authMethodNotAllowed", () => phone.offlineCode(lateQr, { biometry: "touchId" }));
  await lk.call("admin/configureOperationTemplate", { ...TEMPLATE, name: "pinOnly", allowedMethods: ["pin", "offline"] });
  const pinOnly = await operation(lk, userId, "pinOnly");
  const pinQr = await qrFor(lk, pinOnly.operationId);
  assert.equal(pinQr.split("\n")[5], "");
  await refused("authMethodNotAllowed", () => phone.offlineCode(pinQr, { biometry: "faceId" }));
  const kept = phone.serverPublicKey;
  phone.storage.delete("activation.serverPublicKey");
  await refused("offlineUnavailable", () => phone.offlineCode(pinQr, { pin: "1234" }));
  await phone.authenticate({ pin: "1234" }); // a challenge carries the server key
  assert.equal(phone.serverPublicKey, kept);
  const code = phone.offlineCode(pinQr, { pin: "1234" }).code;
  assert.equal((await lk.call("admin/verifyOfflineOperation", { operationId: pinOnly.operationId, code })).approvedWith, "offline");

  await lk.call("admin/configureOperationTemplate", TEMPLATE);
  const last = await operation(lk, userId);
  const lastQr = await qrFor(lk, last.operationId);
  phone.changeBiometricEnrolment();
  const invalidated = await refused("biometryKeyInvalidated", () => phone.offlineCode(lastQr, { biometry: "faceId" }));
  assert.equal(invalidated.data.authMethod, "faceId");
}));

test("offline approval after a recovery: offlineUnavailable until online on a new phone, the kept key kept", { skip }, withServer(async (lk) => {
  const { userId } = await lk.call("admin/createUser", { email: "rob@example.com" });
  const { activationCode } = await lk.call("admin/createActivationCode", { userId });
  const phone = new Device(lk, "install-old", new Map());
  const offer = await phone.prepareActivation(activationCode);
  const activated = await phone.commitActivation(offer, { pin: "1234", tokenPurpose: "addOrUpdateRecovery" });
  const { token } = activated;
  // What device.d.ts types: Offer.operationSigningKey and Activated.serverPublicKey, strings.
  assert.equal(typeof offer.operationSigningKey, "string");
  assert.equal(typeof activated.serverPublicKey, "string");
  await phone.setRecovery(token, "plum-tree-42");
  const signingKey = phone.operationSigningKey;
  assert.ok(signingKey);
  await lk.call("admin/configureOperationTemplate", TEMPLATE);

  // A new phone restored from the backup: the backup and the recovery's answers carry no
  // operation-signing key, so a genuine QR code cannot be checked yet — offlineUnavailable, not qrInvalid.
  const newPhone = new Device(lk, "install-new", new Map());
  newPhone.restore(phone.backup());
  const recovered = await newPhone.recover("plum-tree-42", { pin: "2468", tokenPurpose: "addOrUpdateRecovery" });
  assert.equal(newPhone.operationSigningKey, null);
  assert.equal(newPhone.serverPublicKey, recovered.serverPublicKey);
  assert.equal(typeof recovered.serverPublicKey, "string");
  const first = await operation(lk, userId);
  const qr = await qrFor(lk, first.operationId);
  await refused("offlineUnavailable", () => newPhone.offlineCode(qr, { pin: "2468" }));
  await refused("qrInvalid", () => newPhone.offlineCode(qr.split("\n").slice(1).join("\n"), { pin: "2468" })); // the form is still checked
  await newPhone.authenticate({ pin: "2468" }); // online once: the challenge carries the key
  assert.equal(newPhone.operationSigningKey, signingKey);
  const { code } = newPhone.offlineCode(qr, { pin: "2468" });
  assert.equal((await lk.call("admin/verifyOfflineOperation", { operationId: first.operationId, code })).approvedWith, "offline");

  // A phone that holds the key keeps it across the recovery (nothing the recovery answers replaces it).
  await newPhone.setRecovery(recovered.token, "pear-tree-17");
  const third = new Device(lk, "install-third", new Map([["activation.operationSigningKey", signingKey]]));
  third.restore(newPhone.backup());
  await third.recover("pear-tree-17", { pin: "1357" });
  assert.equal(third.operationSigningKey, signingKey);
  const second = await operation(lk, userId);
  const answer = third.offlineCode(await qrFor(lk, second.operationId), { pin: "1357" });
  assert.equal((await lk.call("admin/verifyOfflineOperation", { operationId: second.operationId, code: answer.code })).approvedWith, "offline");
}));

test("the first operation-signing key stays; a payload signed by another is refused", { skip }, withServer(async (lk) => {
  const { userId, phone } = await phoneOf(lk);
  await lk.call("admin/configureOperationTemplate", TEMPLATE);
  const first = phone.operationSigningKey;
  const stranger = b64urlDecode(vectors.anotherApplication.privateKey);
  phone.client = {
    call: async (method, params) => {
      const answer = await lk.call(method, params);
      return answer && typeof answer === "object" && "operationSigningKey" in answer
        ? { ...answer, operationSigningKey: vectors.anotherApplication.publicKey } : answer;
    },
  };
  const created = await operation(lk, userId);
  await phone.operations();
  await phone.authenticate({ pin: "1234" });
  assert.equal(phone.operationSigningKey, first);
  const qr = await qrFor(lk, created.operationId);
  const signed = qr.split("\n").slice(0, 7).join("\n");
  const forged = `${signed}\n${sign(stranger, Buffer.from(signed, "utf8"), "der")}`;
  const error = await refused("qrInvalid", () => phone.offlineCode(forged, { pin: "1234" }));
  assert.match(error.data.flaw, /operation-signing key/);
  const { code } = phone.offlineCode(qr, { pin: "1234" });
  assert.equal((await lk.call("admin/verifyOfflineOperation", { operationId: created.operationId, code })).approvedWith, "offline");
}));

test("the simulated phone and this device: each code verifies on the server", { skip }, withServer(async (lk) => {
  const { userId, phone } = await phoneOf(lk);
  const { activationCode } = await lk.call("admin/createActivationCode", { userId });
  const { deviceId } = await lk.call("device/create", {});
  await lk.call("activation/start", { deviceId, activationCode });
  const { registrationId: other } = await lk.call("activation/finish", { deviceId, authParameter: { method: "pin", pin: "2468" } });
  await lk.call("admin/configureOperationTemplate", TEMPLATE);

  const forSimulated = await operation(lk, userId);
  const qr = await qrFor(lk, forSimulated.operationId, other);
  const theirs = await lk.call("operation/offlineApprove", { deviceId, qrPayload: qr, authParameter: { method: "pin", pin: "2468" } });
  const mine = phone.offlineCode(qr, { pin: "1234" });
  for (const key of ["operationId", "title", "message", "data"]) assert.equal(mine[key], theirs[key]);
  assert.notEqual(mine.code, theirs.code); // another registration's keys
  await refused("authenticationFailed", lk.call("admin/verifyOfflineOperation",
    { operationId: forSimulated.operationId, code: mine.code, registrationId: other }));
  assert.equal((await lk.call("admin/verifyOfflineOperation", { operationId: forSimulated.operationId, code: theirs.code })).approvedWith, "offline");

  const forPhone = await operation(lk, userId);
  const { code } = phone.offlineCode(await qrFor(lk, forPhone.operationId, phone.registrationId), { pin: "1234" });
  assert.equal((await lk.call("admin/verifyOfflineOperation", { operationId: forPhone.operationId, code })).approvedWith, "offline");
}));
