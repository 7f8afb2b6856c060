// A software WebAuthn authenticator with its browser half, for tests and tools.
//
//   import { SoftwareAuthenticator } from "./clients/js/authenticator.js";
//   const key = new SoftwareAuthenticator({ origin: "https://localhost" });
//   const options = await lk.call("passkey/creationOptions", { sessionId });
//   const credential = await key.create(options);   // a RegistrationResponseJSON, as credential.toJSON()
//   await lk.call("passkey/create", { ceremonyId: options.ceremonyId, credential });
//   const request = await lk.call("passkey/requestOptions", { email: "ann@example.com" });
//   await lk.call("passkey/login", { ceremonyId: request.ceremonyId, credential: await key.get(request) });
//
// It plays the authenticator (keys, flags, signature counter, CTAP2 canonical CBOR) and the
// browser around it (clientDataJSON, the RP id check against the origin, excludeCredentials,
// allowCredentials, WebAuthn Level 3's JSON forms, byte strings as unpadded base64url), so what
// it returns is what navigator.credentials.create()/get() then toJSON() give. Attestation
// "none"; ES256 (-7) and EdDSA (-8), the first of pubKeyCredParams it supports. Options:
// userVerification (can verify the user), backupEligible/backedUp (BE/BS flags), counter
// ("count": 0 at registration then 1, 2, … per assertion; "zero": always 0, as synced
// passkeys), and clone() for a copy with the counters as they are now. The Python twin is
// latchkey.authenticator; both make the same bytes from the same key (test vectors).
//
// node:crypto's WebCrypto only; no dependency.

import { webcrypto } from "node:crypto";

const subtle = webcrypto.subtle;
export const ES256 = -7;
export const EDDSA = -8;
/** authenticatorData flag bits (WebAuthn §6.1). */
export const FLAGS = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40, ED: 0x80 };

/** What a browser's promise would reject with: `name` is the DOMException name. */
export class WebAuthnError extends Error {
  constructor(name, message) {
    super(`${name}: ${message}`);
    this.name = name;
  }
}

export const b64url = (bytes) => Buffer.from(bytes).toString("base64url");
export const b64urlDecode = (text) => new Uint8Array(Buffer.from(text, "base64url"));
const concat = (...parts) => new Uint8Array(Buffer.concat(parts.map((p) => Buffer.from(p))));
const sha256 = async (bytes) => new Uint8Array(await subtle.digest("SHA-256", bytes));
const utf8 = (text) => new TextEncoder().encode(text);

// -- CBOR (RFC 8949), only what WebAuthn uses -------------------------------------------------

function head(major, value) {
  const n = BigInt(value);
  if (n < 24n) return Uint8Array.of((major << 5) | Number(n));
  for (const [info, size] of [[24, 1], [25, 2], [26, 4], [27, 8]]) {
    if (n < 1n << BigInt(8 * size)) {
      const out = new Uint8Array(1 + size);
      out[0] = (major << 5) | info;
      for (let i = 0; i < size; i++) out[size - i] = Number((n >> BigInt(8 * i)) & 0xffn);
      return out;
    }
  }
  throw new RangeError("integer beyond 64 bits");
}

/** Canonical CBOR (CTAP2: shortest forms, definite lengths, map keys sorted by their encoding,
 * shorter first) of integers, Uint8Array, strings, arrays, Map or plain objects, booleans, null.
 * Plain objects' keys that look like integers ("-2") are written as integers. */
export function cborEncode(value) {
  if (value === true) return Uint8Array.of(0xf5);
  if (value === false) return Uint8Array.of(0xf4);
  if (value === null || value === undefined) return Uint8Array.of(0xf6);
  if (typeof value === "number" || typeof value === "bigint") {
    if (typeof value === "number" && !Number.isInteger(value)) throw new TypeError("no floats");
    const n = BigInt(value);
    return n >= 0n ? head(0, n) : head(1, -1n - n);
  }
  if (value instanceof Uint8Array) return concat(head(2, value.length), value);
  if (typeof value === "string") {
    const raw = utf8(value);
    return concat(head(3, raw.length), raw);
  }
  if (Array.isArray(value)) return concat(head(4, value.length), ...value.map(cborEncode));
  const entries = value instanceof Map ? [...value] : Object.entries(value).map(
    ([k, v]) => [/^-?\d+$/.test(k) ? Number(k) : k, v]);
  const encoded = entries.map(([k, v]) => [cborEncode(k), cborEncode(v)]);
  encoded.sort(([a], [b]) => a.length - b.length || Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return concat(head(5, encoded.length), ...encoded.flat());
}

/** The CBOR item of `bytes` (definite lengths, no tags, no floats; maps as Map). With
 * {allowTrailing: true} resolves to [item, rest]. */
export function cborDecode(bytes, { allowTrailing = false } = {}) {
  const data = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let at = 0;
  const need = (n) => { if (at + n > data.length) throw new RangeError("CBOR truncated"); };
  const item = (depth) => {
    if (depth > 16) throw new RangeError("CBOR nested too deeply");
    need(1);
    const first = data[at++];
    const major = first >> 5;
    const info = first & 31;
    let arg;
    if (info < 24) arg = BigInt(info);
    else if (info <= 27) {
      const size = 1 << (info - 24);
      need(size);
      arg = 0n;
      for (let i = 0; i < size; i++) arg = (arg << 8n) | BigInt(data[at++]);
    } else throw new RangeError("indefinite lengths are not accepted");
    const small = (n) => (n <= BigInt(Number.MAX_SAFE_INTEGER) && n >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n);
    switch (major) {
      case 0: return small(arg);
      case 1: return small(-1n - arg);
      case 2: case 3: {
        const n = Number(arg);
        need(n);
        const raw = data.slice(at, at + n);
        at += n;
        return major === 2 ? raw : new TextDecoder("utf-8", { fatal: true }).decode(raw);
      }
      case 4: return Array.from({ length: Number(arg) }, () => item(depth + 1));
      case 5: {
        const map = new Map();
        for (let i = 0n; i < arg; i++) {
          const key = item(depth + 1);
          if (map.has(key)) throw new RangeError("duplicate CBOR map key");
          map.set(key, item(depth + 1));
        }
        return map;
      }
      case 7:
        if (info === 20) return false;
        if (info === 21) return true;
        if (info === 22) return null;
    }
    throw new RangeError("CBOR item not accepted (tag or float)");
  };
  const value = item(0);
  if (allowTrailing) return [value, data.slice(at)];
  if (at !== data.length) throw new RangeError("bytes left after the CBOR item");
  return value;
}

// -- keys ------------------------------------------------------------------------------------

/** The COSE_Key (a Map) of a public CryptoKey: EC2 P-256 for ES256, OKP Ed25519 for EdDSA. */
export async function coseKey(publicKey) {
  const raw = new Uint8Array(await subtle.exportKey("raw", publicKey));
  if (publicKey.algorithm.name === "Ed25519") return new Map([[1, 1], [3, EDDSA], [-1, 6], [-2, raw]]);
  return new Map([[1, 2], [3, ES256], [-1, 1], [-2, raw.slice(1, 33)], [-3, raw.slice(33, 65)]]);
}

const ALGORITHMS = {
  [ES256]: { generate: { name: "ECDSA", namedCurve: "P-256" }, sign: { name: "ECDSA", hash: "SHA-256" } },
  [EDDSA]: { generate: { name: "Ed25519" }, sign: { name: "Ed25519" } },
};

/** A DER ECDSA-Sig-Value from WebCrypto's r‖s. */
export function derSignature(raw) {
  const integer = (bytes) => {
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) i++;
    const trimmed = bytes.slice(i);
    const body = trimmed[0] & 0x80 ? concat([0], trimmed) : trimmed;
    return concat([0x02, body.length], body);
  };
  const half = raw.length / 2;
  const body = concat(integer(raw.slice(0, half)), integer(raw.slice(half)));
  return concat([0x30, body.length], body);
}

async function sign(credential, message) {
  const signature = new Uint8Array(await subtle.sign(ALGORITHMS[credential.algorithm].sign, credential.privateKey, message));
  return credential.algorithm === ES256 ? derSignature(signature) : signature;
}

const hostOf = (origin) => {
  try {
    return new URL(origin).hostname;
  } catch {
    return "";
  }
};

/** A platform authenticator and the browser in front of it; see the top of this file. */
export class SoftwareAuthenticator {
  constructor({
    origin = "https://localhost", userVerification = true, backupEligible = false, backedUp = false,
    counter = "count", algorithms = [ES256, EDDSA], aaguid = new Uint8Array(16), attachment = "platform",
    transports = ["hybrid", "internal"], crossOrigin = false,
  } = {}) {
    if (!["count", "zero"].includes(counter)) throw new TypeError('counter is "count" or "zero"');
    if (backedUp && !backupEligible) throw new TypeError("backedUp needs backupEligible (BS without BE is invalid)");
    if (aaguid.length !== 16) throw new TypeError("an AAGUID is 16 bytes");
    Object.assign(this, { origin, userVerification, backupEligible, backedUp, counter, algorithms, aaguid, attachment, transports, crossOrigin });
    /** id (base64url) → {id, rpId, userHandle, userName, algorithm, privateKey, publicKey, signCount, created} */
    this.credentials = new Map();
    this.made = 0;
  }

  /** navigator.credentials.create({publicKey}) then toJSON(). `options` is the server's
   * PublicKeyCredentialCreationOptionsJSON, or a result holding it in `publicKey`. */
  async create(options, { origin = this.origin } = {}) {
    const o = options.publicKey ?? options;
    const rpId = o.rp?.id || hostOf(origin);
    this.checkRpId(rpId, origin);
    const uv = this.userVerified(o.authenticatorSelection?.userVerification ?? "preferred");
    for (const excluded of o.excludeCredentials ?? []) {
      if (this.credentials.get(b64url(b64urlDecode(excluded.id)))?.rpId === rpId) {
        throw new WebAuthnError("InvalidStateError", "the authenticator holds an excluded credential");
      }
    }
    const offered = (o.pubKeyCredParams ?? []).filter((p) => p.type === "public-key").map((p) => p.alg);
    const algorithm = offered.find((alg) => this.algorithms.includes(alg));
    if (algorithm === undefined) throw new WebAuthnError("NotSupportedError", "no algorithm offered that the authenticator supports");

    const keys = await subtle.generateKey(ALGORITHMS[algorithm].generate, false, ["sign", "verify"]);
    const id = webcrypto.getRandomValues(new Uint8Array(32));
    const credential = {
      id, rpId, userHandle: b64urlDecode(o.user.id), userName: o.user.name ?? "", algorithm,
      privateKey: keys.privateKey, publicKey: keys.publicKey, signCount: 0, created: ++this.made,
    };
    // One credential per user and RP: a new one replaces the old (as platform authenticators do).
    for (const [key, old] of this.credentials) {
      if (old.rpId === rpId && b64url(old.userHandle) === b64url(credential.userHandle)) this.credentials.delete(key);
    }
    this.credentials.set(b64url(id), credential);
    return this.registrationResponse(credential, o.challenge, origin, uv);
  }

  /** The RegistrationResponseJSON for a credential (public so tests can build one from a key). */
  async registrationResponse(credential, challenge, origin, uv) {
    const clientData = this.clientData("webauthn.create", challenge, origin);
    const cose = cborEncode(await coseKey(credential.publicKey));
    const attested = concat(this.aaguid, [credential.id.length >> 8, credential.id.length & 0xff], credential.id, cose);
    const authData = await this.authenticatorData(credential.rpId, uv, credential.signCount, attested);
    const attestation = cborEncode(new Map([["fmt", "none"], ["attStmt", new Map()], ["authData", authData]]));
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientData),
        attestationObject: b64url(attestation),
        authenticatorData: b64url(authData),
        transports: [...this.transports],
        publicKey: b64url(new Uint8Array(await subtle.exportKey("spki", credential.publicKey))),
        publicKeyAlgorithm: credential.algorithm,
      },
      authenticatorAttachment: this.attachment,
      clientExtensionResults: {},
    };
  }

  /** navigator.credentials.get({publicKey}) then toJSON(): the first allowCredentials entry it
   * holds, or for an empty list (a discoverable sign-in) its newest credential for the RP id;
   * `credentialId` (base64url) picks one, as a user would. */
  async get(options, { origin = this.origin, credentialId } = {}) {
    const o = options.publicKey ?? options;
    const rpId = o.rpId || hostOf(origin);
    this.checkRpId(rpId, origin);
    const uv = this.userVerified(o.userVerification ?? "preferred");
    let mine = [...this.credentials.values()].filter((c) => c.rpId === rpId);
    const allowed = (o.allowCredentials ?? []).map((entry) => b64url(b64urlDecode(entry.id)));
    if (allowed.length) {
      mine = mine.filter((c) => allowed.includes(b64url(c.id)));
      mine.sort((a, b) => allowed.indexOf(b64url(a.id)) - allowed.indexOf(b64url(b.id)));
    } else mine.sort((a, b) => b.created - a.created);
    if (credentialId !== undefined) mine = mine.filter((c) => b64url(c.id) === credentialId);
    if (!mine.length) throw new WebAuthnError("NotAllowedError", "the authenticator holds no credential for this request");
    const credential = mine[0];
    if (this.counter === "count") credential.signCount += 1;
    const clientData = this.clientData("webauthn.get", o.challenge, origin);
    const authData = await this.authenticatorData(rpId, uv, credential.signCount);
    const signature = await sign(credential, concat(authData, await sha256(clientData)));
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientData),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: b64url(credential.userHandle),
      },
      authenticatorAttachment: this.attachment,
      clientExtensionResults: {},
    };
  }

  /** A copy holding the same credentials (keys and counters as they are now). */
  clone() {
    const twin = Object.assign(Object.create(SoftwareAuthenticator.prototype), this);
    twin.credentials = new Map([...this.credentials].map(([k, c]) => [k, { ...c }]));
    twin.transports = [...this.transports];
    return twin;
  }

  /** clientDataJSON exactly as Chromium serialises it (member order, no spaces). */
  clientData(type, challenge, origin) {
    return utf8(JSON.stringify({ type, challenge, origin, crossOrigin: this.crossOrigin }));
  }

  async authenticatorData(rpId, userVerified, signCount, attested = new Uint8Array(0)) {
    let flags = FLAGS.UP;
    if (userVerified) flags |= FLAGS.UV;
    if (this.backupEligible) flags |= FLAGS.BE;
    if (this.backedUp) flags |= FLAGS.BS;
    if (attested.length) flags |= FLAGS.AT;
    const count = [signCount >>> 24, (signCount >>> 16) & 0xff, (signCount >>> 8) & 0xff, signCount & 0xff];
    return concat(await sha256(utf8(rpId)), [flags], count, attested);
  }

  userVerified(requirement) {
    if (requirement === "required" && !this.userVerification) {
      throw new WebAuthnError("NotAllowedError", "user verification required; the authenticator has none");
    }
    return this.userVerification && requirement !== "discouraged";
  }

  checkRpId(rpId, origin) {
    if (origin.startsWith("android:apk-key-hash:")) return;
    const host = hostOf(origin);
    if (!(host === rpId || host.endsWith(`.${rpId}`))) {
      throw new WebAuthnError("SecurityError", "the RP id is not the origin's host or a parent of it");
    }
  }
}
