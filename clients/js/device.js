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
// Operations (the contract's "Operations", over server/operation/*): `operations()` is the inbox,
// `showOperation()` what a banking app shows of one, `approveOperation()` and `rejectOperation()`
// sign the hash of what the phone shows, and `offlineCode()` answers a scanned QR payload with the
// code the user types back (no server call), checked with the operation-signing key kept from the
// activation.
//
// `client` is anything with `call(method, params)` → Promise of the result that rejects with a
// LatchkeyError: a Latchkey process, or the app's own transport to its back end. `storage` is a
// Map (or any object with get/set/delete, or a plain object) of string → string; item names are
// those of the Swift and Python reference devices, bytes unpadded base64url — so a backup made
// by one restores on the other.

import { createECDH, createHash, createHmac, createPrivateKey, createPublicKey, hkdfSync, pbkdf2Sync, randomBytes,
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
const OPERATION_SIGNING_KEY = "activation.operationSigningKey";
const SERVER_PUBLIC_KEY = "activation.serverPublicKey";
const ONBOARDING_PROCESS = "onboarding.processId";
const RECOVERY_REGISTRATION_ID = "recovery.registrationId";
const RECOVERY_SALT = "recovery.salt";
const RECOVERY_MASKED_KEY = "recovery.maskedKey";
const ACTIVATION_ITEMS = [REGISTRATION_ID, METHODS, POSSESSION_KEY, PIN_SALT, PIN_MASKED_KEY,
  ...Object.values(BIOMETRIC_KEYS), LAST_METHOD, PIN_RULES, OPERATION_SIGNING_KEY, SERVER_PUBLIC_KEY];
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

// -- operations: what the phone shows and signs -------------------------------------------------

/** Why a user rejects an operation (the Mobile Token API's reasons). */
export const REJECT_REASONS = Object.freeze(["unknown", "incorrectData", "unexpectedOperation"]);
const DATA_MAX_BYTES = 255;
const DATA_MAX_FIELDS = 5;
const QR_HEADER = "LATCHKEY-QR-V1";
const QR_MAX_BYTES = 4096;
const OTP_LABEL = "LATCHKEY-OTP-V1";
/** What a phone calls each field of operation data when no attribute names it. */
export const FIELD_LABELS = Object.freeze({ amount: "Amount", iban: "To account", account: "Account", date: "Due date",
  reference: "Reference", note: "Note", text: "Text" });

const isDigit = (byte) => byte >= 0x30 && byte <= 0x39;
const isUpper = (byte) => byte >= 0x41 && byte <= 0x5A;
const wellFormed = (text) => typeof text === "string" && !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);

/** Canonical unpadded base64url (no padding, no other alphabet, unused bits zero) as a Buffer, else null. */
function b64urlStrict(text) {
  if (typeof text !== "string" || !/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const bytes = b64urlDecode(text);
  return b64url(bytes) === text ? bytes : null;
}

/**
 * What an approval signs: unpadded base64url SHA-256 of `operationId`, `title`, `message` and
 * `data`, each a 4-byte big-endian byte length and its UTF-8 bytes.
 */
export function operationHash(operationId, title, message, data) {
  const hash = createHash("sha256");
  for (const field of [operationId, title, message, data]) {
    const bytes = Buffer.from(field, "utf8");
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    hash.update(length).update(bytes);
  }
  return b64url(hash.digest());
}

/** Text that is not operation data; `rule` the first rule it breaks, worded as the server words it. */
export class OperationDataError extends Error {
  constructor(rule) {
    super(rule);
    this.name = "OperationDataError";
    this.rule = rule;
  }
}

/**
 * Reads PowerAuth's operation-data string, version A: `{template, fields}`, each field
 * `{type: "amount", amount, currency}`, `{type: "iban", iban, bic}` (`bic` null without one),
 * `{type: "account", account}`, `{type: "date", date: "YYYY-MM-DD"}`, `{type: "reference" |
 * "note" | "text", [type]: value}`, values unescaped. Untrusted input: bounded (255 bytes);
 * throws `OperationDataError` for the first rule broken.
 */
export function parseOperationData(text) {
  if (!wellFormed(text)) throw new OperationDataError("is not UTF-8 text");
  const raw = Buffer.from(text, "utf8");
  if (raw.length > DATA_MAX_BYTES) throw new OperationDataError(`is longer than ${DATA_MAX_BYTES} bytes`);
  if (raw.some((byte) => byte < 0x20)) throw new OperationDataError("holds a control character (below U+0020)");
  if (raw[0] !== 0x41) throw new OperationDataError("does not start with the version A");
  const parts = splitData(raw.subarray(1));
  const number = parts[0];
  if (number.length < 1 || number.length > 2 || !number.every(isDigit)) {
    throw new OperationDataError("has no template number (0 to 99) after the version");
  }
  if (parts.length - 1 > DATA_MAX_FIELDS) throw new OperationDataError(`has more than ${DATA_MAX_FIELDS} fields`);
  return { template: Number(number.toString("latin1")), fields: parts.slice(1).map(dataField) };
}

/** Split at every `*` not escaped, each part unescaped (escapes checked). */
function splitData(raw) {
  const parts = [[]];
  for (let index = 0; index < raw.length; index += 1) {
    const byte = raw[index];
    if (byte === 0x5C) {
      if (index + 1 >= raw.length) throw new OperationDataError("ends with a lone backslash");
      const escaped = raw[index + 1];
      if (escaped !== 0x2A && escaped !== 0x5C && escaped !== 0x6E) {
        throw new OperationDataError("has a backslash that escapes neither *, \\ nor n");
      }
      parts[parts.length - 1].push(escaped === 0x6E ? 0x0A : escaped);
      index += 1;
    } else if (byte === 0x2A) {
      parts.push([]);
    } else {
      parts[parts.length - 1].push(byte);
    }
  }
  return parts.map((part) => Buffer.from(part));
}

function dataField(part) {
  if (part.length === 0) throw new OperationDataError("has an empty field");
  const letter = String.fromCharCode(part[0]);
  const value = part.subarray(1);
  const text = value.toString("utf8");
  switch (letter) {
    case "A": {
      if (value.length <= 3) throw new OperationDataError("has an amount (A) without digits and a three-letter currency");
      const number = value.subarray(0, value.length - 3);
      const currency = value.subarray(value.length - 3);
      if (!currency.every(isUpper)) throw new OperationDataError("has an amount (A) whose currency is not three capital letters");
      if (number.filter((byte) => byte === 0x2E).length > 1 || !number.some(isDigit)
        || !number.every((byte) => isDigit(byte) || byte === 0x2E)) {
        throw new OperationDataError("has an amount (A) that is not digits with at most one dot");
      }
      return { type: "amount", amount: number.toString("latin1"), currency: currency.toString("latin1") };
    }
    case "I": {
      const pieces = text.split(",");
      if (pieces.length > 2) throw new OperationDataError("has an IBAN (I) with more than one BIC");
      if (!ibanValid(pieces[0])) throw new OperationDataError("has an IBAN (I) whose mod-97 check fails");
      let bic = null;
      if (pieces.length === 2) {
        const code = Buffer.from(pieces[1], "utf8");
        if ((code.length !== 8 && code.length !== 11) || !code.every((byte) => isDigit(byte) || isUpper(byte))
          || !code.subarray(4, 6).every(isUpper)) {
          throw new OperationDataError("has a BIC after the IBAN (I) that is not 8 or 11 capital letters and digits");
        }
        bic = pieces[1];
      }
      return { type: "iban", iban: pieces[0], bic };
    }
    case "Q":
      if (value.length === 0) throw new OperationDataError("has an empty account (Q)");
      return { type: "account", account: text };
    case "D": {
      if (value.length !== 8 || !value.every(isDigit)) throw new OperationDataError("has a date (D) that is not YYYYMMDD");
      const year = Number(text.slice(0, 4));
      const month = Number(text.slice(4, 6));
      const day = Number(text.slice(6));
      if (month < 1 || month > 12 || day < 1 || day > daysIn(month, year)) {
        throw new OperationDataError("has a date (D) that does not exist");
      }
      return { type: "date", date: `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6)}` };
    }
    case "R": return { type: "reference", reference: text };
    case "N": return { type: "note", note: text };
    case "T": return { type: "text", text };
    default: throw new OperationDataError("has a field of an unknown type (not A, I, Q, D, R, N or T)");
  }
}

function daysIn(month, year) {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** One field's value as it goes into operation data: `\` → `\\`, `*` → `\*`, a newline → `\n`. */
export const escapeOperationData = (value) => value.replace(/\\/g, "\\\\").replace(/\*/g, "\\*").replace(/\n/g, "\\n");

/**
 * ISO 13616: two capital letters, two check digits, 11 to 30 capital letters and digits (15 to
 * 34 in all), whose number (letters 10–35, the first four characters moved to the end) is 1 mod 97.
 */
export function ibanValid(text) {
  if (!wellFormed(text)) return false;
  const raw = Buffer.from(text, "utf8");
  if (raw.length < 15 || raw.length > 34 || !raw.every((byte) => isDigit(byte) || isUpper(byte))) return false;
  if (!isUpper(raw[0]) || !isUpper(raw[1]) || !isDigit(raw[2]) || !isDigit(raw[3])) return false;
  let remainder = 0;
  for (const byte of [...raw.subarray(4), ...raw.subarray(0, 4)]) {
    const value = isDigit(byte) ? byte - 48 : byte - 55;
    remainder = (remainder * (value >= 10 ? 100 : 10) + value) % 97;
  }
  return remainder === 1;
}

/**
 * An amount as a banking app shows it: thousands grouped by spaces, leading zeros dropped
 * (`1500.00` → `1 500.00`). Text that is not digits with at most one dot comes back as is.
 */
export function formatAmount(amount) {
  if (!/^[0-9]*\.?[0-9]*$/.test(amount) || !/[0-9]/.test(amount)) return amount;
  const [integer, fraction = ""] = amount.split(".");
  let whole = integer.replace(/^0+/, "") || "0";
  const groups = [];
  while (whole.length > 3) {
    groups.unshift(whole.slice(-3));
    whole = whole.slice(0, -3);
  }
  groups.unshift(whole);
  return groups.join(" ") + (fraction ? `.${fraction}` : "");
}

/** A valid IBAN in groups of four (`CZ27 3030 0000 …`); anything else as is. */
export const formatIban = (iban) => (ibanValid(iban) ? iban.match(/.{1,4}/g).join(" ") : iban);

function fieldText(field) {
  if (field.type === "amount") return `${formatAmount(field.amount)} ${field.currency}`;
  if (field.type === "iban") return formatIban(field.iban) + (field.bic ? ` (BIC ${field.bic})` : "");
  return field[field.type];
}

/** The texts an attribute may render out of one field (each whole: `500.00` of `1500.00` is none). */
function fieldValues(field) {
  if (field.type === "amount") return [`${field.amount}\n${field.currency}`];
  if (field.type === "iban") return [field.iban, field.bic || field.iban, formatIban(field.iban)];
  if (field.type === "date") return [field.date, field.date.replace(/-/g, "")];
  return [field[field.type]];
}

/**
 * What a banking app shows of an operation (one of `operations()`), formatted — never the raw
 * data string: `title`, `message` as they are (the signed hash covers them); `attributes` in the
 * Mobile Token API's `formData` style, each as the template made it plus `text` (what the row
 * shows), for `amount` also `amountFormatted` and `currencyFormatted`, and `inData` (whether what
 * it shows is a whole field of the data: attributes are not signed, so one not `inData` shows
 * something the approval does not cover); `template` and `fields`, the parsed data with a `label`
 * and a `text` each (`dataError` names the rule when the data does not parse: offer no approval
 * then); `lines`, all of it as plain text. The same output as the Python device's `show_operation`.
 */
export function showOperation(operation) {
  let parsed = null;
  let dataError = null;
  try {
    parsed = parseOperationData(operation.data);
  } catch (error) {
    if (!(error instanceof OperationDataError)) throw error;
    dataError = error.rule;
  }
  const fields = (parsed?.fields ?? []).map((field) => ({ ...field, label: FIELD_LABELS[field.type], text: fieldText(field) }));
  const values = (parsed?.fields ?? []).flatMap(fieldValues);
  const occurs = (text) => parsed !== null && values.includes(text);
  const attributes = (operation.attributes ?? []).map((attribute) => {
    const shown = { ...attribute };
    if (attribute.type === "amount") {
      shown.amountFormatted = formatAmount(attribute.amount);
      shown.currencyFormatted = attribute.currency;
      shown.text = `${shown.amountFormatted} ${attribute.currency}`;
      shown.inData = occurs(`${attribute.amount}\n${attribute.currency}`);
    } else if (attribute.type === "keyValue") {
      shown.text = attribute.value;
      shown.inData = occurs(attribute.value);
    } else if (attribute.type === "note") {
      shown.text = attribute.note;
      shown.inData = occurs(attribute.note);
    } else {
      shown.text = attribute.label ?? "";
      shown.inData = true;
    }
    return shown;
  });
  const rows = attributes.length ? attributes : fields;
  const lines = [operation.title, ...operation.message.split("\n"),
    ...rows.map((row) => (row.type === "heading" ? row.text : `${row.label}: ${row.text}`))];
  return {
    operationId: operation.operationId, title: operation.title, message: operation.message, attributes,
    template: parsed ? parsed.template : null, fields, dataError, lines,
  };
}

// -- offline approval: the QR payload and the code ----------------------------------------------

/** Why a QR payload was refused (`its signature is not …`); the device answers `qrInvalid`. */
export class QRPayloadError extends Error {
  constructor(message) {
    super(message);
    this.name = "QRPayloadError";
  }
}

const escapeLine = (text) => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");

function unescapeLine(line, what) {
  let out = "";
  let escaping = false;
  for (const character of line) {
    if (escaping) {
      if (character !== "\\" && character !== "n") throw new QRPayloadError(`its ${what} has a backslash that escapes neither \\ nor n`);
      out += character === "n" ? "\n" : "\\";
      escaping = false;
    } else if (character === "\\") {
      escaping = true;
    } else {
      if (character.codePointAt(0) < 0x20) throw new QRPayloadError(`its ${what} holds a control character`);
      out += character;
    }
  }
  if (escaping) throw new QRPayloadError(`its ${what} ends with a lone backslash`);
  return out;
}

/** The seven lines a QR payload's signature covers, joined by `\n`. */
export function qrSignedText({ operationId, title, message, data, biometric, nonce }) {
  return [QR_HEADER, operationId, escapeLine(title), escapeLine(message), data, biometric ? "B" : "", nonce].join("\n");
}

/** A P-256 public key (KeyObject) from its unpadded base64url uncompressed point, or null. */
function pointKey(text) {
  const raw = b64urlStrict(text);
  if (raw === null || raw.length !== 65 || raw[0] !== 4) return null;
  try {
    return createPublicKey({ format: "jwk", key: { kty: "EC", crv: "P-256", x: b64url(raw.subarray(1, 33)), y: b64url(raw.subarray(33)) } });
  } catch {
    return null;
  }
}

/**
 * Reads a QR payload strictly (eight lines, the header, a printable operation id, title and
 * message with only `\\` and `\n` escapes, operation data, flags empty or `B`, a 16-byte nonce and
 * a DER signature, both canonical unpadded base64url, at most 4 096 bytes) and, given
 * `operationSigningKey` (unpadded base64url), checks the ECDSA P-256 / SHA-256 signature over the
 * first seven lines. Resolves `{operationId, title, message, data, biometric, nonce, signature,
 * operationHash}`; throws `QRPayloadError` naming the first flaw.
 */
export function parseQrPayload(text, operationSigningKey) {
  if (!wellFormed(text)) throw new QRPayloadError("it is not UTF-8 text");
  if (Buffer.byteLength(text, "utf8") > QR_MAX_BYTES) throw new QRPayloadError(`it is longer than ${QR_MAX_BYTES} bytes`);
  const lines = text.split("\n");
  if (lines.length !== 8) throw new QRPayloadError("it does not have eight lines");
  if (lines[0] !== QR_HEADER) throw new QRPayloadError(`it does not start with ${QR_HEADER}`);
  const operationId = lines[1];
  if (operationId.length < 1 || operationId.length > 128 || !/^[\x21-\x7E]+$/.test(operationId)) {
    throw new QRPayloadError("its operation id is not printable ASCII");
  }
  const title = unescapeLine(lines[2], "title");
  const message = unescapeLine(lines[3], "message");
  const data = lines[4];
  try {
    parseOperationData(data);
  } catch (error) {
    if (!(error instanceof OperationDataError)) throw error;
    throw new QRPayloadError(`its data is not operation data: it ${error.rule}`);
  }
  if (lines[5] !== "" && lines[5] !== "B") throw new QRPayloadError("its flags are neither empty nor B");
  const nonce = b64urlStrict(lines[6]);
  if (nonce === null || nonce.length !== 16) throw new QRPayloadError("its nonce is not 16 bytes of unpadded base64url");
  const signature = b64urlStrict(lines[7]);
  if (signature === null || signature.length === 0 || signature.length > 72) {
    throw new QRPayloadError("its signature is not DER in unpadded base64url");
  }
  const scanned = {
    operationId, title, message, data, biometric: lines[5] === "B", nonce: lines[6], signature,
    operationHash: operationHash(operationId, title, message, data),
  };
  if (operationSigningKey !== undefined && operationSigningKey !== null) {
    const key = pointKey(operationSigningKey);
    let valid = false;
    try {
      valid = key !== null && cryptoVerify("sha256", Buffer.from(qrSignedText(scanned), "utf8"), { key, dsaEncoding: "der" }, signature);
    } catch {
      valid = false;
    }
    if (!valid) throw new QRPayloadError("its signature is not the application's operation-signing key's");
  }
  return scanned;
}

/** A QR payload signed by `privateKey` (what `admin/operationQrCode` makes): for tests and tools. */
export function signQrPayload(privateKey, fields) {
  const text = qrSignedText(fields);
  return `${text}\n${sign(privateKey, Buffer.from(text, "utf8"), "der")}`;
}

/**
 * RFC 4226's dynamic truncation: offset the low 4 bits of the last byte (`M[31] & 0x0F` for a
 * SHA-256 MAC), the 4 bytes from it big-endian `& 0x7FFFFFFF`, modulo 10^digits, written with
 * exactly `digits` digits (leading zeros kept).
 */
export function truncate(mac, digits = 8) {
  const bytes = Buffer.from(mac);
  const offset = bytes[bytes.length - 1] & 0x0F;
  const value = bytes.readUInt32BE(offset) & 0x7FFFFFFF;
  return String(value % 10 ** digits).padStart(digits, "0");
}

/**
 * One part of the offline code, as the contract defines it:
 *   K = HKDF-SHA256(IKM = the 32-byte x of ECDH(privateKey, serverPublicKey), salt empty,
 *                   info "LATCHKEY-OTP-V1\n<role>\n<registrationId>", 32 bytes)
 *   M = HMAC-SHA256(K, "LATCHKEY-OTP-V1\n<operationId>\n<operation hash>\n<nonce>")
 *   part = truncate(M), 8 digits
 * The server computes the same from its private key and the role's public key. Bytes that are no
 * key (a wrong PIN's, once in 2^32) stand in with their SHA-256 for the shared secret.
 */
export function offlinePart(privateKey, role, serverPublicKey, registrationId, operationId, hash, nonce) {
  const value = scalar(privateKey);
  let secret;
  if (!(value > 0n && value < N)) {
    secret = createHash("sha256").update(privateKey).digest();
  } else {
    const theirs = b64urlStrict(serverPublicKey);
    if (theirs === null || pointKey(serverPublicKey) === null) throw new RangeError("the server key is not a P-256 public key");
    const ecdh = createECDH("prime256v1");
    ecdh.setPrivateKey(privateKey);
    secret = ecdh.computeSecret(theirs);
  }
  const key = Buffer.from(hkdfSync("sha256", secret, Buffer.alloc(0), Buffer.from(`${OTP_LABEL}\n${role}\n${registrationId}`, "utf8"), 32));
  const mac = createHmac("sha256", key).update(`${OTP_LABEL}\n${operationId}\n${hash}\n${nonce}`, "utf8").digest();
  return truncate(mac);
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

/** [id, the operation as shown or null] of an id or an operation. */
const operationOf = (operation) => (typeof operation === "string" ? [operation, null] : [operation.operationId, operation]);

/** The hash of what the phone displays: never the `operationHash` the server hands over. */
const shownHash = (operationId, shown, shownData) =>
  operationHash(operationId, shown.title, shown.message, shownData ?? shown.data);

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
    this.#learnKeys(result);
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
    this.#learnKeys(challenge);
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
    this.#keepActivation(result.registrationId, made, pin, result.activatedAuthMethods, offer, { recovery: true });
    this.#learnKeys(result);
    this.#wipe(RECOVERY_ITEMS);
    return result;
  }

  // -- operations -------------------------------------------------------------------------------

  /** The application's operation-signing key (unpadded base64url), as first learned; null before. */
  get operationSigningKey() { return this.storage.get(OPERATION_SIGNING_KEY) ?? null; }
  /** The registration's server key (unpadded base64url): offline codes are derived with it. */
  get serverPublicKey() { return this.storage.get(SERVER_PUBLIC_KEY) ?? null; }

  /** The inbox: the registration's pending operations, oldest first (`server/operation/list`). */
  async operations() {
    const inbox = await this.client.call("server/operation/list", { registrationId: this.#heldRegistration() });
    this.#learnKeys(inbox);
    return inbox.operations;
  }

  /** What the app shows of `operation` (see the module's `showOperation`). */
  showOperation(operation) {
    return showOperation(operation);
  }

  /**
   * Approves an operation with the device key and a second factor (`pin`: a wrong one signs with
   * a wrong key and the server counts; or `biometry`). The device signs the hash of what it shows:
   * the title and message of the operation as shown (`operation` may be the object from
   * `operations()`, else its id: the challenge's) and `shownData` (default: the operation's data;
   * another string models a tampered display, answered `operationDataMismatch`). Resolves with the
   * operation, `approved`. A destroyed biometric key rejects with `biometryKeyInvalidated`.
   */
  async approveOperation(operation, { pin, biometry, shownData } = {}) {
    const registrationId = this.#heldRegistration();
    const [operationId, shown] = operationOf(operation);
    const challenge = await this.#operationChallenge(registrationId, operationId);
    await this.#refuseInvalidated(biometry);
    const hash = shownHash(operationId, shown ?? challenge.operation, shownData);
    const signatures = this.#signatures("approveOperation", { challenge: challenge.challenge, contextHash: hash }, { pin, biometry });
    const result = await this.client.call("server/operation/approve", {
      registrationId, challengeId: challenge.challengeId, operationId, operationHash: hash, signatures,
    });
    this.storage.set(LAST_METHOD, methodOf({ pin, biometry }));
    return result;
  }

  /**
   * Rejects an operation for `reason` (`unknown`, `incorrectData`, `unexpectedOperation`), signed
   * by the device key alone over `<reason>:<hash of what it shows>` (`shownData` as in
   * `approveOperation`: a hash other than the operation's still rejects it, audited `dataMismatch`).
   */
  async rejectOperation(operation, reason = "unknown", { shownData } = {}) {
    const registrationId = this.#heldRegistration();
    const [operationId, shown] = operationOf(operation);
    const challenge = await this.#operationChallenge(registrationId, operationId);
    const hash = shownHash(operationId, shown ?? challenge.operation, shownData);
    const signed = payload("rejectOperation", registrationId, challenge.challenge, "device", `${reason}:${hash}`);
    return this.client.call("server/operation/reject", {
      registrationId, challengeId: challenge.challengeId, operationId, operationHash: hash, reason,
      signatures: { device: sign(b64urlDecode(this.storage.get(POSSESSION_KEY)), signed, this.signatureFormat) },
    });
  }

  /**
   * Offline approval (synchronous: no server call): reads the scanned `qrPayload`, checks its
   * signature with the operation-signing key kept from the activation, and returns `{code,
   * operationId, title, message, data}` — show the operation, then the code
   * (`part(device)-part(method)`, 17 characters) for the user to type back. A wrong PIN unmasks a
   * wrong key and gives a wrong code, which only the server tells. Throws `DeviceError`:
   * `notActivatedLocally`; `qrInvalid` (`data.flaw`); `offlineUnavailable` (no operation-signing key
   * or server key yet, e.g. after a recovery on a new phone: authenticate once online); `authMethodNotAllowed` (`device`, a method not activated, touchId/faceId without
   * the `B` flag); `biometryKeyInvalidated`.
   */
  offlineCode(qrPayload, { pin, biometry } = {}) {
    const registrationId = this.#heldRegistration();
    const signingKey = this.storage.get(OPERATION_SIGNING_KEY);
    let scanned;
    try { // without a key, only the form can be checked
      scanned = parseQrPayload(qrPayload, signingKey);
    } catch (error) {
      if (!(error instanceof QRPayloadError)) throw error;
      throw new DeviceError("qrInvalid", `The QR code was refused, ${error.message}; nothing was shown`, { flaw: error.message });
    }
    if (signingKey === undefined) { // nothing wrong with the code: the phone cannot check it yet
      throw new DeviceError("offlineUnavailable",
        "The device does not know the operation-signing key yet, so it cannot check the QR code; nothing was shown: authenticate once online");
    }
    const serverKey = this.storage.get(SERVER_PUBLIC_KEY);
    if (serverKey === undefined || pointKey(serverKey) === null) {
      throw new DeviceError("offlineUnavailable", "The device does not know its registration's server key yet: authenticate once online");
    }
    if (pin != null && biometry != null) throw new DeviceError("authMethodNotAllowed", "At most one second factor");
    const method = methodOf({ pin, biometry });
    if (method === "device" || !this.methods.includes(method) || (BIOMETRIC.includes(method) && !scanned.biometric)) {
      throw new DeviceError("authMethodNotAllowed", `${method} may not make this code`);
    }
    if (BIOMETRIC.includes(method) && this.storage.get(BIOMETRIC_KEYS[method]) === undefined) {
      throw new DeviceError("biometryKeyInvalidated",
        `The ${method} key was destroyed by a change of biometric enrolment: nothing was counted; approve with another method`,
        { authMethod: method, activatedAuthMethods: this.methods });
    }
    const part = (privateKey, role) =>
      offlinePart(privateKey, role, serverKey, registrationId, scanned.operationId, scanned.operationHash, scanned.nonce);
    const code = `${part(b64urlDecode(this.storage.get(POSSESSION_KEY)), "device")}-${part(this.#factorKey(method, pin), method)}`;
    return { code, operationId: scanned.operationId, title: scanned.title, message: scanned.message, data: scanned.data };
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

  async #operationChallenge(registrationId, operationId) {
    const challenge = await this.client.call("server/operation/challenge", { registrationId, operationId });
    this.#learnKeys(challenge);
    return challenge;
  }

  /**
   * Keeps the keys an answer carries: the operation-signing key only when none is kept (the first
   * one learned stays: a different one later is not taken), the server key as the server gives it.
   */
  #learnKeys(answer) {
    if (answer.operationSigningKey != null && this.storage.get(OPERATION_SIGNING_KEY) === undefined) {
      this.storage.set(OPERATION_SIGNING_KEY, answer.operationSigningKey);
    }
    if (answer.serverPublicKey != null) this.storage.set(SERVER_PUBLIC_KEY, answer.serverPublicKey);
  }

  /** A two-factor method's private key (the PIN's unmasked with `pin`: a wrong PIN gives a wrong key). */
  #factorKey(method, pin) {
    if (method === "pin") {
      return mask(b64urlDecode(this.storage.get(PIN_MASKED_KEY)), pin ?? "", b64urlDecode(this.storage.get(PIN_SALT)), PIN_ROUNDS);
    }
    return b64urlDecode(this.storage.get(BIOMETRIC_KEYS[method]));
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
      signatures.pin = signed("pin", this.#factorKey("pin", pin));
    } else if (BIOMETRIC.includes(method)) {
      if (this.storage.get(BIOMETRIC_KEYS[method]) === undefined) {
        throw new DeviceError("biometryKeyInvalidated", `The ${method} key was destroyed by a change of biometric enrolment`,
          { authMethod: method, activatedAuthMethods: this.methods });
      }
      signatures[method] = signed(method, b64urlDecode(this.storage.get(BIOMETRIC_KEYS[method])));
    }
    return signatures;
  }

  #keepActivation(registrationId, made, pin, methods, offer, { recovery = false } = {}) {
    // A new activation learns the operation-signing key from its offer (prepare's). A recovery's
    // answers carry none: it keeps the key the phone holds, as first learned (a phone restored
    // from a backup holds none — backups carry the recovery items only — and learns it at its next
    // online challenge; until then offlineCode throws offlineUnavailable).
    this.#wipe(ACTIVATION_ITEMS.filter((name) => !(recovery && name === OPERATION_SIGNING_KEY)));
    this.#learnKeys(offer);
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
