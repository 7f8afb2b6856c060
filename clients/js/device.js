// A reference device for Latchkey's server/ methods: the half of the flows a phone holds, on
// node:crypto only (no npm dependency).
//
//   import { Latchkey } from "./index.js";
//   import { Device } from "./device.js";
//   const lk = Latchkey.spawn({ args: ["--in-memory"] });
//   const phone = new Device(lk, "install-1", new Map());
//   await phone.activate(activationCode, { pin: "1234" });
//   await phone.authenticate({ pin: "1234" });
//
// The device makes and keeps the P-256 keys, masks the PIN key under the PIN and the recovery
// key under the recovery code (PBKDF2-HMAC-SHA256 XOR, no check value: a wrong PIN unmasks a
// wrong key, which only the server can tell, and counts), signs the contract's six-line
// payload, hands every new key over with its proof of possession, and keeps its state in
// `storage`. Private keys, PINs and recovery codes never leave it.
//
// `client` is anything with `call(method, params)` → Promise of the result that rejects with a
// LatchkeyError: a Latchkey process, or the app's own transport to its back end. `storage` is a
// Map (or any object with get/set/delete, or a plain object) of string → string; item names are
// those of the Swift and Python reference devices, bytes unpadded base64url — so a backup made
// by one restores on the other.

import { createECDH, createHash, createPrivateKey, createPublicKey, pbkdf2Sync, randomBytes,
  sign as cryptoSign, verify as cryptoVerify } from "node:crypto";
import { ERROR_CODES } from "./generated.js";
import { LatchkeyError } from "./index.js";

/** PBKDF2 rounds that mask the PIN key. */
export const PIN_ROUNDS = 10_000;
/** PBKDF2 rounds that mask the recovery key, which travels in backups. */
export const RECOVERY_ROUNDS = 100_000;
/** The `format` member of a backup blob. */
export const BACKUP_FORMAT = "latchkey-device-backup-v1";
const N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551n;
const TWO_FACTOR = ["pin", "touchId", "faceId"];
const BIOMETRIC = ["touchId", "faceId"];

const REGISTRATION_ID = "activation.registrationId";
const METHODS = "activation.methods";
const POSSESSION_KEY = "activation.possessionKey";
const PIN_SALT = "activation.pinSalt";
const PIN_MASKED_KEY = "activation.pinMaskedKey";
const BIOMETRIC_KEYS = { touchId: "activation.touchIdKey", faceId: "activation.faceIdKey" };
const LAST_METHOD = "activation.lastMethod";
const PIN_RULES = "activation.pinRules";
const ONBOARDING_PROCESS = "onboarding.processId";
const RECOVERY_REGISTRATION_ID = "recovery.registrationId";
const RECOVERY_SALT = "recovery.salt";
const RECOVERY_MASKED_KEY = "recovery.maskedKey";
const ACTIVATION_ITEMS = [REGISTRATION_ID, METHODS, POSSESSION_KEY, PIN_SALT, PIN_MASKED_KEY,
  ...Object.values(BIOMETRIC_KEYS), LAST_METHOD, PIN_RULES];
const RECOVERY_ITEMS = [RECOVERY_REGISTRATION_ID, RECOVERY_SALT, RECOVERY_MASKED_KEY];

/**
 * A refusal by the device itself (nothing reached the server, but for `biometryKeyInvalidated`,
 * thrown once the device removed the method on the server): `reason` is the contract's name
 * where there is one (`notActivatedLocally`, `policyViolation`, …) and `code` its number;
 * `contextHashMismatch` and `invalidBackup` are the device's own.
 */
export class DeviceError extends LatchkeyError {
  constructor(reason, message, data = {}) {
    super(message, { code: ERROR_CODES[reason] ?? null, reason, data: { reason, ...data } });
    this.name = "DeviceError";
  }
}

// -- the wire crypto ----------------------------------------------------------------------------

/** Unpadded base64url. */
export const b64url = (bytes) => Buffer.from(bytes).toString("base64url");
export const b64urlDecode = (text) => Buffer.from(text, "base64url");

/** The six lines every signature and proof is made over (UTF-8, `\n`, no final newline). */
export function payload(operation, subject, challenge, role, contextHash = "") {
  return Buffer.from(["LATCHKEY-V1", operation, subject, challenge, role, contextHash].join("\n"), "utf8");
}

/** Unpadded base64url SHA-256 of title, content, MIME: each a 4-byte big-endian length and its UTF-8. */
export function contextHash(title, content, mime) {
  const hash = createHash("sha256");
  for (const field of [title, content, mime]) {
    const bytes = Buffer.from(field ?? "", "utf8");
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    hash.update(length).update(bytes);
  }
  return b64url(hash.digest());
}

const scalar = (bytes) => (bytes.length === 32 ? BigInt(`0x${Buffer.from(bytes).toString("hex")}`) : 0n);

/** A P-256 private scalar (32 bytes) drawn from `random` until it is a valid key. */
export function newPrivateKey(random = randomBytes) {
  for (;;) {
    const candidate = Buffer.from(random(32));
    const value = scalar(candidate);
    if (value > 0n && value < N) return candidate;
  }
}

/** The 65-byte uncompressed SEC1 point of a private scalar (a Buffer). */
function point(privateKey) {
  const ecdh = createECDH("prime256v1");
  ecdh.setPrivateKey(privateKey);
  return ecdh.getPublicKey(null, "uncompressed");
}

/** The public key of a private scalar: the uncompressed point, unpadded base64url. */
export function publicKey(privateKey) {
  const value = scalar(privateKey);
  if (!(value > 0n && value < N)) throw new RangeError("not a P-256 private key");
  return b64url(point(privateKey));
}

/**
 * ECDSA P-256 over SHA-256, unpadded base64url: `raw` (`r‖s`, 64 bytes, as WebCrypto gives) or
 * `der` (strict DER, as phone keystores give). Bytes that are no key — a wrong PIN can unmask
 * to one — give a signature that never verifies (64 zero bytes): the server still tells, and counts.
 */
export function sign(privateKey, message, form = "raw") {
  const value = scalar(privateKey);
  if (!(value > 0n && value < N)) return b64url(Buffer.alloc(64));
  if (form !== "raw" && form !== "der") throw new RangeError("form is 'raw' or 'der'");
  const xy = point(privateKey);
  const key = createPrivateKey({
    format: "jwk",
    key: { kty: "EC", crv: "P-256", d: b64url(privateKey), x: b64url(xy.subarray(1, 33)), y: b64url(xy.subarray(33)) },
  });
  return b64url(cryptoSign("sha256", message, { key, dsaEncoding: form === "raw" ? "ieee-p1363" : "der" }));
}

/** Whether `signature` (raw or DER) is `publicKeyText`'s over `message` (for tests and tools). */
export function verify(publicKeyText, signature, message) {
  const xy = b64urlDecode(publicKeyText);
  const raw = b64urlDecode(signature);
  try {
    const key = createPublicKey({
      format: "jwk", key: { kty: "EC", crv: "P-256", x: b64url(xy.subarray(1, 33)), y: b64url(xy.subarray(33)) },
    });
    return cryptoVerify("sha256", message, { key, dsaEncoding: raw.length === 64 ? "ieee-p1363" : "der" }, raw);
  } catch {
    return false;
  }
}

/** `key` XOR PBKDF2-HMAC-SHA256(secret, salt, rounds); its own inverse (no check value). */
export function mask(key, secret, salt, rounds) {
  const stream = pbkdf2Sync(Buffer.from(secret, "utf8"), salt, rounds, key.length, "sha256");
  return Buffer.from(key.map((byte, i) => byte ^ stream[i]));
}

/** The PIN rules `pin` breaks, `rules` holding `pinCodeType`, `pinCodeLengthMin`, `pinCodeLengthMax`. */
export function pinViolations(pin, rules) {
  const found = [];
  const length = [...pin].length;
  if (length < rules.pinCodeLengthMin) found.push("tooShort");
  if (length > rules.pinCodeLengthMax) found.push("tooLong");
  if (rules.pinCodeType === "numeric") {
    if (!/^[0-9]*$/.test(pin)) found.push("notNumeric");
  } else if (!/^[A-Za-z0-9]*$/.test(pin)) found.push("notAlphanumeric");
  return found;
}

/** get/set/delete over a Map, a Map-like object, or a plain object. */
function wrapStorage(storage) {
  if (typeof storage.get === "function" && typeof storage.set === "function" && typeof storage.delete === "function") {
    return storage;
  }
  return {
    get: (name) => (Object.hasOwn(storage, name) ? storage[name] : undefined),
    set: (name, value) => { storage[name] = value; },
    delete: (name) => { delete storage[name]; },
  };
}

const methodOf = ({ pin, biometry } = {}) => {
  if (pin !== undefined && pin !== null) return "pin";
  if (biometry !== undefined && biometry !== null) {
    if (!BIOMETRIC.includes(biometry)) throw new DeviceError("biometryUnavailable", `No such biometry: ${biometry}`);
    return biometry;
  }
  return "device";
};

// -- the device ---------------------------------------------------------------------------------

/**
 * One phone's half of the flows, over the server/ methods. Options: `signatureFormat` (`raw`,
 * the default, or `der`: the server takes both), `randomBytes` (draws keys and salts),
 * `applicationId`.
 */
export class Device {
  constructor(client, installationId, storage = new Map(), { signatureFormat = "raw", randomBytes: random = randomBytes,
    applicationId } = {}) {
    this.client = client;
    this.installationId = installationId;
    this.storage = wrapStorage(storage);
    this.signatureFormat = signatureFormat;
    this.randomBytes = random;
    this.applicationId = applicationId;
  }

  // -- local state ------------------------------------------------------------------------------

  get registrationId() { return this.storage.get(REGISTRATION_ID) ?? null; }
  get isActivated() { return this.storage.get(REGISTRATION_ID) !== undefined; }
  get isRecoveryActivated() { return this.storage.get(RECOVERY_MASKED_KEY) !== undefined; }
  get methods() {
    const text = this.storage.get(METHODS) ?? "";
    return text ? text.split(",") : [];
  }

  /** The phone's own state, and the server's view of its registration when it holds one. */
  async status() {
    const local = {
      activated: this.isActivated, registrationId: this.registrationId, authMethods: this.methods,
      lastMethod: this.storage.get(LAST_METHOD) ?? null, recoveryActivated: this.isRecoveryActivated,
      onboardingProcessId: this.storage.get(ONBOARDING_PROCESS) ?? null,
    };
    if (this.isActivated) {
      local.server = await this.client.call("server/registration/status", { registrationId: this.registrationId });
    }
    return local;
  }

  // -- activation -------------------------------------------------------------------------------

  /** Opens an activation with a code; resolves with the offer `commitActivation` completes. */
  async prepareActivation(activationCode) {
    this.#requireNotActivated();
    const params = { activationCode, installationId: this.installationId };
    if (this.applicationId !== undefined) params.applicationId = this.applicationId;
    return this.client.call("server/activation/prepare", params);
  }

  /**
   * Makes the keys — `device`, a PIN key when `pin` is given, a touchId/faceId key when
   * `biometry` names one — and has the server register them with their proofs.
   */
  async commitActivation(offer, { pin, biometry, activationName, tokenPurpose } = {}) {
    this.#requireNotActivated();
    const chosen = this.#chosenFactors(offer, pin, biometry);
    if (tokenPurpose !== undefined && tokenPurpose !== "none" && chosen.length === 0) {
      throw new DeviceError("authMethodNotAllowed", "A token needs a two-factor method");
    }
    const made = Object.fromEntries(["device", ...chosen].map((role) => [role, newPrivateKey(this.randomBytes)]));
    const keys = Object.fromEntries(Object.entries(made).map(([role, key]) =>
      [role, this.#handOver(key, "activate", offer.activationId, offer.challenge, role)]));
    const params = { activationId: offer.activationId, keys };
    if (activationName !== undefined) params.activationName = activationName;
    if (tokenPurpose !== undefined) params.tokenPurpose = tokenPurpose;
    const result = await this.client.call("server/activation/commit", params);
    this.#keepActivation(result.registrationId, made, pin, result.activatedAuthMethods, offer);
    return result;
  }

  /** `prepareActivation` then `commitActivation`. */
  async activate(activationCode, options = {}) {
    return this.commitActivation(await this.prepareActivation(activationCode), options);
  }

  // -- authentication ---------------------------------------------------------------------------

  /**
   * A challenge for the registration (it picks up a pending pushed authentication, whose
   * context the app shows). The device checks `contextHash` against the context it received.
   */
  async startAuthentication(purpose = "authenticate") {
    const registrationId = this.#heldRegistration();
    const challenge = await this.client.call("server/authentication/challenge", { registrationId, purpose });
    const mine = challenge.authenticationId != null
      ? contextHash(challenge.contextTitle, challenge.contextContent, challenge.contextMIME) : "";
    if ((challenge.contextHash ?? "") !== mine) {
      throw new DeviceError("contextHashMismatch",
        "The server's context hash does not match the context it sent; nothing was signed");
    }
    return { ...challenge, contextHash: mine };
  }

  /**
   * Answers `challenge` with the device key and at most one second factor: `pin` (its key
   * unmasked with it: a wrong PIN signs with a wrong key, the server counts) or `biometry`
   * (`touchId`/`faceId`: the caller says the sensor matched). Approves a pushed authentication.
   * A biometric key destroyed by `changeBiometricEnrolment` rejects with `biometryKeyInvalidated`
   * (see there); `challenge` is left unanswered, so another method may still answer it.
   */
  async finishAuthentication(challenge, { pin, biometry, tokenPurpose } = {}) {
    await this.#refuseInvalidated(biometry);
    const signatures = this.signChallenge(challenge, { pin, biometry });
    const params = { registrationId: this.registrationId, challengeId: challenge.challengeId, signatures };
    if (tokenPurpose !== undefined) params.tokenPurpose = tokenPurpose;
    const result = await this.client.call("server/authentication/verify", params);
    this.storage.set(LAST_METHOD, methodOf({ pin, biometry }));
    return result;
  }

  /** The `signatures` member answering `challenge` (what `finishAuthentication` sends). */
  signChallenge(challenge, { pin, biometry, operation = "authenticate" } = {}) {
    return this.#signatures(operation, challenge, { pin, biometry });
  }

  /** Uses the challenge up unanswered; a pushed authentication it picked up is rejected. */
  async cancelAuthentication(challenge) {
    const answer = await this.client.call("server/authentication/cancel",
      { registrationId: this.#heldRegistration(), challengeId: challenge.challengeId });
    return answer.cancelled;
  }

  /**
   * `startAuthentication` then `finishAuthentication`. When a pushed authentication was picked
   * up, `approve(challenge)` (may be async) decides: false cancels (the push is rejected) and
   * resolves `{responseType: "rejected", authenticationId}`.
   */
  async authenticate({ pin, biometry, tokenPurpose, approve } = {}) {
    const challenge = await this.startAuthentication();
    if (challenge.authenticationId != null && approve && !(await approve(challenge))) {
      await this.cancelAuthentication(challenge);
      return { responseType: "rejected", authenticationId: challenge.authenticationId };
    }
    return this.finishAuthentication(challenge, { pin, biometry, tokenPurpose });
  }

  // -- methods and the registration -------------------------------------------------------------

  /**
   * Adds (or replaces) `method`'s key — `pin` with `newPin`, or touchId/faceId — once the user
   * proves themselves with `pin` or `biometry`. Resolves with the activated methods.
   */
  async addAuthMethod(method, { newPin, pin, biometry } = {}) {
    if (!TWO_FACTOR.includes(method)) throw new DeviceError("authMethodNotAllowed", "Only pin, touchId and faceId can be added");
    if (method === "pin") {
      if (newPin === undefined) throw new DeviceError("policyViolation", "A new PIN is needed", { violations: ["tooShort"] });
      const rules = this.storage.get(PIN_RULES);
      if (rules !== undefined) {
        const [pinCodeType, min, max] = rules.split(",");
        this.#checkPin(newPin, { pinCodeType, pinCodeLengthMin: Number(min), pinCodeLengthMax: Number(max) });
      }
    }
    const signaturesFor = { pin, biometry };
    await this.#refuseInvalidated(biometry);
    const challenge = await this.startAuthentication();
    const key = newPrivateKey(this.randomBytes);
    const { activatedAuthMethods } = await this.client.call("server/authMethod/add", {
      registrationId: this.registrationId, challengeId: challenge.challengeId,
      signatures: this.#signatures("addAuthMethod", challenge, signaturesFor), method,
      key: this.#handOver(key, "addAuthMethod", this.registrationId, challenge.challenge, method, challenge.contextHash),
    });
    this.#storeFactor(method, key, newPin);
    this.storage.set(METHODS, activatedAuthMethods.join(","));
    return activatedAuthMethods;
  }

  /**
   * A finger or a face added or enrolled again: the phone destroys its touchId and faceId keys,
   * which are bound to the enrolled biometrics (Encap's StrongTouchID; iOS `.biometryCurrentSet`,
   * Android `setInvalidatedByBiometricEnrollment`). In an app, call it when the keystore reports
   * the key permanently invalidated. Returns the methods whose keys it destroyed. The server
   * learns on their next use: `finishAuthentication` (or `addAuthMethod` proven with such a
   * method) removes the method through `server/authMethod/remove` (a device signature) and
   * rejects with `biometryKeyInvalidated` (`data.authMethod`, `data.activatedAuthMethods`);
   * nothing counts. Add the method again with `addAuthMethod(method, {pin})`; a registration
   * left with `device` alone needs a recovery or a new activation.
   */
  changeBiometricEnrolment() {
    const destroyed = BIOMETRIC.filter((method) => this.storage.get(BIOMETRIC_KEYS[method]) !== undefined);
    for (const method of destroyed) this.storage.delete(BIOMETRIC_KEYS[method]);
    return destroyed;
  }

  /** Removes `method` from the registration and the device (the device key signs). */
  async removeAuthMethod(method) {
    if (method === "device") {
      throw new DeviceError("cannotDeactivateDevice", "The device method cannot be removed; remove the registration");
    }
    if (!this.methods.includes(method)) throw new DeviceError("authMethodNotAllowed", `${method} is not activated on this device`);
    const challenge = await this.startAuthentication();
    const { activatedAuthMethods } = await this.client.call("server/authMethod/remove", {
      registrationId: this.registrationId, challengeId: challenge.challengeId,
      signatures: this.#signatures("removeAuthMethod", challenge, {}), method,
    });
    for (const name of method === "pin" ? [PIN_SALT, PIN_MASKED_KEY] : [BIOMETRIC_KEYS[method]]) this.storage.delete(name);
    this.storage.set(METHODS, activatedAuthMethods.join(","));
    return activatedAuthMethods;
  }

  /**
   * Removes the registration on the server (works when locked) unless `onlyLocally`, then
   * forgets it. One the server removed already, or does not know, is only forgotten; one whose
   * keys a recovery moved elsewhere rejects with `registrationRemoved` (`onlyLocally` forgets it).
   */
  async removeRegistration({ onlyLocally = false } = {}) {
    const registrationId = this.#heldRegistration();
    if (!onlyLocally) {
      let challenge;
      try {
        challenge = await this.startAuthentication("removeRegistration");
      } catch (error) {
        if (error.reason !== "registrationRemoved" && error.reason !== "notFound") throw error;
        this.#wipe(ACTIVATION_ITEMS);
        return;
      }
      await this.client.call("server/registration/remove", {
        registrationId, challengeId: challenge.challengeId, signatures: this.#signatures("removeRegistration", challenge, {}),
      });
    }
    this.#wipe(ACTIVATION_ITEMS);
  }

  // -- backup-code recovery ---------------------------------------------------------------------

  /**
   * Sets (or replaces) the recovery code with an `addOrUpdateRecovery` token: a new recovery
   * key, masked under the code, joins the recovery data (what backups carry).
   */
  async setRecovery(token, recoveryCode, { tokenPurpose } = {}) {
    const registrationId = this.#heldRegistration();
    const length = [...recoveryCode].length;
    if (length < 6 || length > 64) {
      throw new DeviceError("policyViolation", "A recovery code has 6 to 64 characters",
        { violations: [length < 6 ? "tooShort" : "tooLong"] });
    }
    const key = newPrivateKey(this.randomBytes);
    const salt = Buffer.from(this.randomBytes(16));
    const params = { registrationId, token, key: this.#handOver(key, "setRecovery", registrationId, token, "recovery") };
    if (tokenPurpose !== undefined) params.tokenPurpose = tokenPurpose;
    const result = await this.client.call("server/recovery/set", params);
    this.storage.set(RECOVERY_REGISTRATION_ID, registrationId);
    this.storage.set(RECOVERY_SALT, b64url(salt));
    this.storage.set(RECOVERY_MASKED_KEY, b64url(mask(key, recoveryCode, salt, RECOVERY_ROUNDS)));
    return result;
  }

  /** Deletes the recovery method with a `deleteRecovery` token, on both sides. */
  async deleteRecovery(token, { tokenPurpose } = {}) {
    const params = { registrationId: this.#heldRegistration(), token };
    if (tokenPurpose !== undefined) params.tokenPurpose = tokenPurpose;
    const result = await this.client.call("server/recovery/delete", params);
    this.#wipe(RECOVERY_ITEMS);
    return result;
  }

  /** What a backup carries: the recovery data (never the this-device-only activation keys), as JSON. */
  backup() {
    const items = {};
    for (const name of RECOVERY_ITEMS) {
      const value = this.storage.get(name);
      if (value !== undefined) items[name] = value;
    }
    return JSON.stringify({ format: BACKUP_FORMAT, items });
  }

  /** Puts a backup's recovery data on this phone (it replaces any it had). */
  restore(blob) {
    let items;
    try {
      const data = JSON.parse(blob);
      if (data.format !== BACKUP_FORMAT || typeof data.items !== "object" || data.items === null) throw new Error();
      items = RECOVERY_ITEMS.filter((name) => Object.hasOwn(data.items, name)).map((name) => [name, data.items[name]]);
      if (!items.every(([, value]) => typeof value === "string")) throw new Error();
    } catch {
      throw new DeviceError("invalidBackup", "Not a Latchkey device backup");
    }
    this.#wipe(RECOVERY_ITEMS);
    for (const [name, value] of items) this.storage.set(name, value);
  }

  /**
   * Recovers the restored recovery data's registration onto this phone: the recovery key
   * (unmasked with `recoveryCode`; a wrong code unmasks a wrong key, which only the server
   * tells, and counts) signs, and new `device` and `pin` (or `biometry`) keys replace the lost
   * phone's. The recovery key is used up (ask `tokenPurpose: "addOrUpdateRecovery"` to set another).
   */
  async recover(recoveryCode, { pin, biometry, registrationId, tokenPurpose } = {}) {
    this.#requireNotActivated();
    const held = this.storage.get(RECOVERY_REGISTRATION_ID);
    if (held === undefined || !this.isRecoveryActivated) throw new DeviceError("recoveryNotActivated", "This device holds no recovery data");
    if (registrationId !== undefined && registrationId !== held) {
      throw new DeviceError("recoveryNotActivated", "The recovery data is another registration's");
    }
    if ((pin == null) === (biometry == null)) {
      throw new DeviceError("authMethodNotAllowed", "Recovery activates exactly one two-factor method besides device");
    }
    const offer = await this.client.call("server/recovery/challenge", { registrationId: held, installationId: this.installationId });
    const chosen = this.#chosenFactors(offer, pin, biometry);
    const made = Object.fromEntries(["device", ...chosen].map((role) => [role, newPrivateKey(this.randomBytes)]));
    const keys = Object.fromEntries(Object.entries(made).map(([role, key]) =>
      [role, this.#handOver(key, "recover", held, offer.challenge, role)]));
    const recoveryKey = mask(b64urlDecode(this.storage.get(RECOVERY_MASKED_KEY)), recoveryCode,
      b64urlDecode(this.storage.get(RECOVERY_SALT)), RECOVERY_ROUNDS);
    const params = {
      registrationId: held, challengeId: offer.challengeId, keys,
      recoverySignature: sign(recoveryKey, payload("recover", held, offer.challenge, "recovery"), this.signatureFormat),
    };
    if (tokenPurpose !== undefined) params.tokenPurpose = tokenPurpose;
    const result = await this.client.call("server/recovery/commit", params);
    this.#keepActivation(result.registrationId, made, pin, result.activatedAuthMethods, offer);
    this.#wipe(RECOVERY_ITEMS);
    return result;
  }

  // -- identity-based onboarding ----------------------------------------------------------------

  /** Starts onboarding from identity (`{email}`, …); the device remembers the process. */
  async startOnboarding(credentials) {
    if (this.isActivated) {
      throw new DeviceError("onboardingCannotActivate", "This device is activated already", { wdoReason: "wdo_activation_cannotActivate" });
    }
    if (this.storage.get(ONBOARDING_PROCESS) !== undefined) {
      throw new DeviceError("onboardingInProgress", "An onboarding process runs on this device", { wdoReason: "wdo_activation_inProgress" });
    }
    const params = { credentials, installationId: this.installationId };
    if (this.applicationId !== undefined) params.applicationId = this.applicationId;
    const { processId } = await this.client.call("server/onboarding/start", params);
    this.storage.set(ONBOARDING_PROCESS, processId);
    return processId;
  }

  /** The process's status; `finished` or `failed` ends the device's process. */
  async onboardingStatus() {
    const processId = this.#process();
    let status;
    try {
      ({ status } = await this.client.call("server/onboarding/status", { processId }));
    } catch (error) {
      if (error.reason !== "onboardingNotRunning") throw error;
      status = "failed";
    }
    if (status === "finished" || status === "failed") this.storage.delete(ONBOARDING_PROCESS);
    return status;
  }

  async resendOtp() {
    await this.client.call("server/onboarding/resendOtp", { processId: this.#process() });
  }

  /** Checks the OTP; resolves with the offer `commitActivation` completes. */
  async prepareOnboardingActivation(otp) {
    const processId = this.#process();
    this.#requireNotActivated();
    return this.client.call("server/onboarding/activate", { processId, otp });
  }

  /** `prepareOnboardingActivation` then `commitActivation` (the registration is verificationPending). */
  async activateOnboarding(otp, { pin, biometry, activationName } = {}) {
    return this.commitActivation(await this.prepareOnboardingActivation(otp), { pin, biometry, activationName });
  }

  /** Cancels the process on the server; where it cannot, `force` forgets the device's process anyway. */
  async cancelOnboarding({ force = true } = {}) {
    const processId = this.#process();
    try {
      await this.client.call("server/onboarding/cancel", { processId });
    } catch (error) {
      if (!force || error.reason === "invalidParams") throw error;
    }
    this.storage.delete(ONBOARDING_PROCESS);
  }

  // -- internals --------------------------------------------------------------------------------

  #heldRegistration() {
    const registrationId = this.registrationId;
    if (registrationId === null) throw new DeviceError("notActivatedLocally", "This device holds no activation");
    return registrationId;
  }

  #requireNotActivated() {
    if (this.isActivated) throw new DeviceError("alreadyActivated", "This device holds an activation already");
  }

  #process() {
    const processId = this.storage.get(ONBOARDING_PROCESS);
    if (processId === undefined) {
      throw new DeviceError("onboardingNotRunning", "No onboarding process runs on this device", { wdoReason: "wdo_activation_notRunning" });
    }
    return processId;
  }

  #checkPin(pin, rules) {
    const found = pinViolations(pin, rules);
    if (found.length) throw new DeviceError("policyViolation", `The PIN does not meet the policy: ${found.join(", ")}`, { violations: found });
  }

  #chosenFactors(offer, pin, biometry) {
    const chosen = [];
    if (pin != null) chosen.push("pin");
    if (biometry != null) {
      if (!BIOMETRIC.includes(biometry)) throw new DeviceError("biometryUnavailable", `No such biometry: ${biometry}`);
      chosen.push(biometry);
    }
    for (const method of chosen) {
      if (!offer.authMethodsForActivation.includes(method)) {
        throw new DeviceError("authMethodNotAllowed", `${method} is not enabled for this application`);
      }
    }
    if (pin != null) this.#checkPin(pin, offer);
    return chosen;
  }

  /** `{publicKey, proof}`: the key's own signature over the operation's payload. */
  #handOver(privateKey, operation, subject, challenge, role, context = "") {
    return { publicKey: publicKey(privateKey), proof: sign(privateKey, payload(operation, subject, challenge, role, context), this.signatureFormat) };
  }

  /**
   * An activated biometric method whose key a change of enrolment destroyed: removes it on the
   * server and here (`removeAuthMethod`: the device key signs, over a challenge of its own, so
   * the one in hand stays unanswered) and rejects with `biometryKeyInvalidated`.
   */
  async #refuseInvalidated(biometry) {
    if (!BIOMETRIC.includes(biometry) || !this.methods.includes(biometry)
      || this.storage.get(BIOMETRIC_KEYS[biometry]) !== undefined) return;
    const activatedAuthMethods = await this.removeAuthMethod(biometry);
    const then = activatedAuthMethods.some((method) => TWO_FACTOR.includes(method))
      ? "add it again, proven with another two-factor method"
      : "the registration is left with device alone and needs a recovery or a new activation";
    throw new DeviceError("biometryKeyInvalidated",
      `The ${biometry} key was destroyed by a change of biometric enrolment: nothing was counted and ${biometry} is deactivated; ${then}`,
      { authMethod: biometry, activatedAuthMethods });
  }

  /** The device key's signature and at most one second factor's. */
  #signatures(operation, challenge, { pin, biometry }) {
    if (pin != null && biometry != null) throw new DeviceError("authMethodNotAllowed", "At most one second factor");
    const method = methodOf({ pin, biometry });
    if (!this.methods.includes(method)) throw new DeviceError("authMethodNotAllowed", `${method} is not activated on this device`);
    const registrationId = this.#heldRegistration();
    const signed = (role, privateKey) =>
      sign(privateKey, payload(operation, registrationId, challenge.challenge, role, challenge.contextHash ?? ""), this.signatureFormat);
    const signatures = { device: signed("device", b64urlDecode(this.storage.get(POSSESSION_KEY))) };
    if (method === "pin") {
      const key = mask(b64urlDecode(this.storage.get(PIN_MASKED_KEY)), pin, b64urlDecode(this.storage.get(PIN_SALT)), PIN_ROUNDS);
      signatures.pin = signed("pin", key);
    } else if (BIOMETRIC.includes(method)) {
      if (this.storage.get(BIOMETRIC_KEYS[method]) === undefined) {
        throw new DeviceError("biometryKeyInvalidated", `The ${method} key was destroyed by a change of biometric enrolment`,
          { authMethod: method, activatedAuthMethods: this.methods });
      }
      signatures[method] = signed(method, b64urlDecode(this.storage.get(BIOMETRIC_KEYS[method])));
    }
    return signatures;
  }

  #keepActivation(registrationId, made, pin, methods, offer) {
    this.#wipe(ACTIVATION_ITEMS);
    this.storage.set(REGISTRATION_ID, registrationId);
    this.storage.set(PIN_RULES, `${offer.pinCodeType},${offer.pinCodeLengthMin},${offer.pinCodeLengthMax}`);
    this.storage.set(POSSESSION_KEY, b64url(made.device));
    for (const [method, key] of Object.entries(made)) if (method !== "device") this.#storeFactor(method, key, pin);
    this.storage.set(METHODS, methods.join(","));
  }

  #storeFactor(method, key, pin) {
    if (method === "pin") {
      const salt = Buffer.from(this.randomBytes(16));
      this.storage.set(PIN_SALT, b64url(salt));
      this.storage.set(PIN_MASKED_KEY, b64url(mask(key, pin ?? "", salt, PIN_ROUNDS)));
    } else {
      this.storage.set(BIOMETRIC_KEYS[method], b64url(key));
    }
  }

  #wipe(names) {
    for (const name of names) this.storage.delete(name);
  }
}
