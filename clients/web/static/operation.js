// An operation as a banking page shows it: PowerAuth's operation data (version A, as Latchkey's
// contract defines it) read and formatted — "1 500.00 EUR", "CZ27 3030 0000 …", "31 January 2026",
// never the raw string — and the operation hash, which is what an approval binds.
//
// Data: "A", a template number (0–99), then fields each after a "*", each a type letter and its
// value: A amount and ISO 4217 currency (digits with at most one ".", three capital letters),
// I IBAN (mod-97 check) optionally ",BIC", Q account, D date (YYYYMMDD, a real date), R reference,
// N note, T text; "\*", "\\" and "\n" escape; at most 5 fields and 255 bytes; nothing below U+0020.
// The rules are checked in the order the other readers check them (Swift, clients/python's
// device.py), and a rule broken names itself in the same words.

export const FIELD_LABELS = {
  amount: "Amount", iban: "To account", account: "Account", date: "Due date",
  reference: "Reference", note: "Note", text: "Text",
};
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
  "September", "October", "November", "December"];
const MAX_BYTES = 255;
const MAX_FIELDS = 5;
const [STAR, BACKSLASH, DOT, COMMA] = [0x2a, 0x5c, 0x2e, 0x2c];
const isDigit = (byte) => byte >= 0x30 && byte <= 0x39;
const isUpper = (byte) => byte >= 0x41 && byte <= 0x5a;
const utf8 = new TextEncoder();
const text = new TextDecoder("utf-8", { fatal: true });

/** Data that breaks a rule; `rule` says which ("has an amount (A) that is not digits …"). */
export class OperationDataError extends Error {
  constructor(rule) {
    super(`The operation's data ${rule}`);
    this.name = "OperationDataError";
    this.rule = rule;
  }
}

function fail(rule) {
  throw new OperationDataError(rule);
}

/** Reads operation data: {template, fields}, each field {type: "amount", amount, currency},
 * {type: "iban", iban, bic (null without)}, {type: "account", account}, {type: "date", date:
 * "YYYY-MM-DD"}, or {type: "reference" | "note" | "text", <type>: value}, values unescaped.
 * Untrusted input: throws OperationDataError for the first rule broken. */
export function parseOperationData(data) {
  if (typeof data !== "string" || /\p{Cs}/u.test(data)) fail("is not UTF-8 text");
  const raw = utf8.encode(data);
  if (raw.length > MAX_BYTES) fail(`is longer than ${MAX_BYTES} bytes`);
  if (raw.some((byte) => byte < 0x20)) fail("holds a control character (below U+0020)");
  if (raw[0] !== 0x41) fail("does not start with the version A");
  const [number, ...fields] = split(raw.subarray(1));
  if (number.length < 1 || number.length > 2 || !number.every(isDigit)) {
    fail("has no template number (0 to 99) after the version");
  }
  if (fields.length > MAX_FIELDS) fail(`has more than ${MAX_FIELDS} fields`);
  return { template: Number(ascii(number)), fields: fields.map(field) };
}

/** Splits at every "*" not escaped, unescaping each part (and checking its escapes). */
function split(raw) {
  const parts = [[]];
  for (let index = 0; index < raw.length; index += 1) {
    const byte = raw[index];
    if (byte === BACKSLASH) {
      if (index + 1 >= raw.length) fail("ends with a lone backslash");
      const escaped = raw[index + 1];
      if (escaped !== STAR && escaped !== BACKSLASH && escaped !== 0x6e) {
        fail("has a backslash that escapes neither *, \\ nor n");
      }
      parts.at(-1).push(escaped === 0x6e ? 0x0a : escaped);
      index += 1;
    } else if (byte === STAR) {
      parts.push([]);
    } else {
      parts.at(-1).push(byte);
    }
  }
  return parts;
}

function field(part) {
  if (part.length === 0) fail("has an empty field");
  const letter = String.fromCharCode(part[0]);
  const value = part.slice(1);
  const decoded = text.decode(new Uint8Array(value));
  switch (letter) {
    case "A": {
      if (value.length <= 3) fail("has an amount (A) without digits and a three-letter currency");
      const [number, currency] = [value.slice(0, -3), value.slice(-3)];
      if (!currency.every(isUpper)) fail("has an amount (A) whose currency is not three capital letters");
      const dots = number.filter((b) => b === DOT).length;
      if (dots > 1 || !number.some(isDigit) || !number.every((b) => isDigit(b) || b === DOT)) {
        fail("has an amount (A) that is not digits with at most one dot");
      }
      return { type: "amount", amount: ascii(number), currency: ascii(currency) };
    }
    case "I": {
      const pieces = splitBytes(value, COMMA);
      if (pieces.length > 2) fail("has an IBAN (I) with more than one BIC");
      if (!ibanValid(text.decode(new Uint8Array(pieces[0])))) fail("has an IBAN (I) whose mod-97 check fails");
      let bic = null;
      if (pieces.length === 2) {
        const code = pieces[1];
        const letters = code.every((b) => isDigit(b) || isUpper(b)) && code.slice(4, 6).every(isUpper);
        if (![8, 11].includes(code.length) || !letters) {
          fail("has a BIC after the IBAN (I) that is not 8 or 11 capital letters and digits");
        }
        bic = ascii(code);
      }
      return { type: "iban", iban: ascii(pieces[0]), bic };
    }
    case "Q":
      if (value.length === 0) fail("has an empty account (Q)");
      return { type: "account", account: decoded };
    case "D": {
      if (value.length !== 8 || !value.every(isDigit)) fail("has a date (D) that is not YYYYMMDD");
      const [year, month, day] = [decoded.slice(0, 4), decoded.slice(4, 6), decoded.slice(6)].map(Number);
      if (month < 1 || month > 12 || day < 1 || day > daysIn(month, year)) {
        fail("has a date (D) that does not exist");
      }
      return { type: "date", date: `${decoded.slice(0, 4)}-${decoded.slice(4, 6)}-${decoded.slice(6)}` };
    }
    case "R": return { type: "reference", reference: decoded };
    case "N": return { type: "note", note: decoded };
    case "T": return { type: "text", text: decoded };
    default:
      fail("has a field of an unknown type (not A, I, Q, D, R, N or T)");
  }
}

const ascii = (bytes) => String.fromCharCode(...bytes);

function splitBytes(bytes, separator) {
  const pieces = [[]];
  for (const byte of bytes) {
    if (byte === separator) pieces.push([]);
    else pieces.at(-1).push(byte);
  }
  return pieces;
}

function daysIn(month, year) {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** ISO 13616: two capital letters, two check digits, 11 to 30 capital letters and digits (15 to
 * 34 in all), whose number (letters 10–35, the first four characters moved to the end) is 1 mod 97. */
export function ibanValid(iban) {
  const raw = utf8.encode(iban);
  if (raw.length < 15 || raw.length > 34 || !raw.every((b) => isDigit(b) || isUpper(b))) return false;
  if (!isUpper(raw[0]) || !isUpper(raw[1]) || !isDigit(raw[2]) || !isDigit(raw[3])) return false;
  let remainder = 0;
  for (const byte of [...raw.subarray(4), ...raw.subarray(0, 4)]) {
    const value = isDigit(byte) ? byte - 48 : byte - 55;
    remainder = (remainder * (value >= 10 ? 100 : 10) + value) % 97;
  }
  return remainder === 1;
}

/** "1500.00" → "1 500.00": thousands grouped by spaces, leading zeros dropped. */
export function formatAmount(amount) {
  const [whole, fraction] = amount.split(".");
  const digits = whole.replace(/^0+/, "") || "0";
  const grouped = digits.replace(/\B(?=(\d{3})+$)/g, " ");
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/** A valid IBAN in groups of four ("CZ27 3030 0000 0011 6525 4011"); anything else as it is. */
export function formatIban(iban) {
  return ibanValid(iban) ? iban.match(/.{1,4}/g).join(" ") : iban;
}

/** "2026-01-31" → "31 January 2026" (the same words whatever the browser's locale). */
export function formatDate(date) {
  const [year, month, day] = date.split("-").map(Number);
  return `${day} ${MONTHS[month - 1]} ${year}`;
}

/** What a field's row shows. */
export function fieldText(f) {
  switch (f.type) {
    case "amount": return `${formatAmount(f.amount)} ${f.currency}`;
    case "iban": return formatIban(f.iban) + (f.bic ? ` (BIC ${f.bic})` : "");
    case "date": return formatDate(f.date);
    default: return f[f.type];
  }
}

/** The operation hash: unpadded base64url SHA-256 of operationId, title, message and data, each
 * a 4-byte big-endian byte length and its UTF-8 bytes. What a phone signs; here, the page's
 * account of what it displayed. */
export async function operationHash({ operationId, title, message, data }) {
  const parts = [operationId, title, message, data].map((part) => utf8.encode(part));
  const bytes = new Uint8Array(parts.reduce((n, part) => n + 4 + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    new DataView(bytes.buffer).setUint32(offset, part.length);
    bytes.set(part, offset + 4);
    offset += 4 + part.length;
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return btoa(String.fromCharCode(...digest)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const STATUS_TEXT = {
  pending: "Waiting for your approval", rejected: "Rejected", canceled: "Canceled",
  failed: "Failed: too many wrong attempts", expired: "Expired",
};
const APPROVED_WITH = {
  passkey: "with a passkey", offline: "offline, with your phone", pin: "on your phone (PIN)",
  touchId: "on your phone (Touch ID)", faceId: "on your phone (Face ID)",
};

/** "Approved with a passkey", "Waiting for your approval", … */
export function describeStatus(operation) {
  if (operation.status === "approved") return `Approved ${APPROVED_WITH[operation.approvedWith] ?? ""}`.trim();
  return STATUS_TEXT[operation.status] ?? operation.status;
}

/** Fills the payment section (#op-title, #op-message, #fields, #op-status) from the data — the
 * signed part; attributes are not signed and the back end does not send them. Answers the parsed
 * data, or throws OperationDataError (the section then says so, and nothing may be approved). */
export function renderPayment(operation) {
  const $ = (id) => document.getElementById(id);
  $("payment").hidden = false;
  $("op-title").textContent = operation.title;
  $("op-message").textContent = operation.message;
  $("op-status").textContent = describeStatus(operation);
  $("op-status").dataset.status = operation.status;
  let parsed;
  try {
    parsed = parseOperationData(operation.data);
  } catch (error) {
    const row = document.createElement("p");
    row.className = "unreadable";
    row.textContent = `These payment details cannot be read (${error.rule ?? error.message}): do not approve.`;
    $("fields").replaceChildren(row);
    throw error;
  }
  $("fields").replaceChildren(...parsed.fields.map((f) => {
    const row = document.createElement("div");
    row.dataset.field = f.type;
    const [label, value] = [document.createElement("dt"), document.createElement("dd")];
    label.textContent = FIELD_LABELS[f.type];
    value.textContent = fieldText(f);
    row.append(label, value);
    return row;
  }));
  return parsed;
}

/** The operation the page is for: /confirm?operation=<operationId> (an identifier, not a secret:
 * the back end shows it only to its own user). */
export const operationIdFromURL = () => new URLSearchParams(location.search).get("operation");
