// The software authenticator (authenticator.js) without the binary: its CBOR read back, its
// signatures verified with WebCrypto, the flags and counters, what a browser refuses, a test
// vector shared with the Python authenticator, and — when $PYTHON has PyPI `webauthn` — its
// responses verified by py_webauthn, a Relying Party nobody here wrote.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash, webcrypto } from "node:crypto";
import { test } from "node:test";
import {
  EDDSA, ES256, SoftwareAuthenticator, WebAuthnError, b64url, b64urlDecode, cborDecode, cborEncode,
} from "../authenticator.js";
import { PYTHON } from "./support.mjs";

const subtle = webcrypto.subtle;
const ORIGIN = "https://localhost";
const RP_ID = "localhost";
const random = (n) => b64url(webcrypto.getRandomValues(new Uint8Array(n)));

const creationOptions = ({ uv = "required", algs = [ES256, EDDSA, -257], exclude = [] } = {}) => ({
  rp: { id: RP_ID, name: "Latchkey" },
  user: { id: random(32), name: "ann@example.com", displayName: "ann@example.com" },
  challenge: random(32),
  pubKeyCredParams: algs.map((alg) => ({ type: "public-key", alg })),
  timeout: 300000,
  excludeCredentials: exclude.map((id) => ({ type: "public-key", id })),
  authenticatorSelection: { residentKey: "required", requireResidentKey: true, userVerification: uv },
  attestation: "none",
});
const requestOptions = ({ allow = [], uv = "required" } = {}) => ({
  rpId: RP_ID, challenge: random(32), timeout: 300000, userVerification: uv,
  allowCredentials: allow.map((id) => ({ type: "public-key", id })),
});

/** Parses a registration as an RP does; returns {flags, signCount, credentialId, cose, publicKey}. */
async function readRegistration(response, challenge) {
  const clientData = JSON.parse(Buffer.from(response.response.clientDataJSON, "base64url").toString());
  assert.deepEqual(clientData, { type: "webauthn.create", challenge, origin: ORIGIN, crossOrigin: false });
  const attestation = cborDecode(b64urlDecode(response.response.attestationObject));
  assert.deepEqual([...attestation.keys()], ["fmt", "attStmt", "authData"]);
  assert.equal(attestation.get("fmt"), "none");
  assert.equal(attestation.get("attStmt").size, 0);
  const authData = attestation.get("authData");
  assert.equal(b64url(authData), response.response.authenticatorData);
  assert.deepEqual(authData.slice(0, 32), new Uint8Array(createHash("sha256").update(RP_ID).digest()));
  const flags = authData[32];
  const signCount = Buffer.from(authData.slice(33, 37)).readUInt32BE();
  assert.deepEqual(authData.slice(37, 53), new Uint8Array(16)); // AAGUID
  const length = (authData[53] << 8) | authData[54];
  const credentialId = authData.slice(55, 55 + length);
  assert.equal(b64url(credentialId), response.rawId);
  const cose = cborDecode(authData.slice(55 + length)); // nothing after the key (no extensions)
  // Canonical: writing it again gives the same bytes.
  assert.equal(b64url(cborEncode(cose)), b64url(authData.slice(55 + length)));
  const publicKey = await subtle.importKey("spki", b64urlDecode(response.response.publicKey),
    cose.get(3) === ES256 ? { name: "ECDSA", namedCurve: "P-256" } : { name: "Ed25519" }, true, ["verify"]);
  const raw = new Uint8Array(await subtle.exportKey("raw", publicKey));
  if (cose.get(3) === ES256) assert.deepEqual(raw, new Uint8Array([4, ...cose.get(-2), ...cose.get(-3)]));
  else assert.deepEqual(raw, cose.get(-2));
  return { flags, signCount, credentialId, cose, publicKey };
}

/** DER ECDSA-Sig-Value → r‖s (what WebCrypto verifies). */
function rawSignature(der) {
  const read = (at) => {
    const length = der[at + 1];
    const bytes = der.slice(at + 2, at + 2 + length);
    return [Buffer.concat([Buffer.alloc(32), Buffer.from(bytes)]).subarray(-32), at + 2 + length];
  };
  assert.equal(der[0], 0x30);
  const [r, next] = read(2);
  const [s] = read(next);
  return Buffer.concat([r, s]);
}

/** Verifies an assertion as an RP does; returns {flags, signCount}. */
async function readAssertion(response, challenge, registered) {
  const clientDataBytes = b64urlDecode(response.response.clientDataJSON);
  assert.deepEqual(JSON.parse(Buffer.from(clientDataBytes).toString()),
    { type: "webauthn.get", challenge, origin: ORIGIN, crossOrigin: false });
  const authData = b64urlDecode(response.response.authenticatorData);
  assert.equal(authData.length, 37);
  const signed = Buffer.concat([authData, createHash("sha256").update(clientDataBytes).digest()]);
  const signature = b64urlDecode(response.response.signature);
  const ok = registered.cose.get(3) === ES256
    ? await subtle.verify({ name: "ECDSA", hash: "SHA-256" }, registered.publicKey, rawSignature(signature), signed)
    : await subtle.verify({ name: "Ed25519" }, registered.publicKey, signature, signed);
  assert.ok(ok, "the signature verifies");
  return { flags: authData[32], signCount: Buffer.from(authData.slice(33, 37)).readUInt32BE() };
}

test("CBOR: canonical, read back strictly", () => {
  const value = new Map([["fmt", "none"], [1, 2], [-1, [1, -300, "é"]], [3, true], ["a", null], [70000, 2 ** 40]]);
  const raw = cborEncode(value);
  // Keys by encoded length, then bytewise: 1, 3, -1, "a", "fmt", 70000.
  assert.deepEqual([...cborDecode(raw).keys()], [1, 3, -1, "a", "fmt", 70000]);
  assert.deepEqual(cborDecode(raw), new Map([[1, 2], [3, true], [-1, [1, -300, "é"]], ["a", null], ["fmt", "none"], [70000, 2 ** 40]]));
  assert.throws(() => cborDecode(concat(raw, [0])), /left after/);
  assert.throws(() => cborDecode(Uint8Array.of(0xa2, 1, 1, 1, 2)), /duplicate/);
  assert.throws(() => cborDecode(Uint8Array.of(0x9f)), /indefinite/);
  assert.deepEqual(cborDecode(Uint8Array.of(1, 0xff), { allowTrailing: true }), [1, Uint8Array.of(0xff)]);
});
const concat = (a, b) => Uint8Array.from([...a, ...b]);

test("registration and logins read and verify as an RP reads them", async () => {
  const key = new SoftwareAuthenticator({ origin: ORIGIN });
  const options = creationOptions();
  const response = await key.create({ ceremonyId: "c-1", publicKey: options });
  assert.equal(response.id, response.rawId);
  assert.equal(response.type, "public-key");
  assert.equal(response.authenticatorAttachment, "platform");
  assert.deepEqual(response.clientExtensionResults, {});
  assert.equal(response.response.publicKeyAlgorithm, ES256);
  assert.ok(!JSON.stringify(response).includes("="), "unpadded base64url");
  const registered = await readRegistration(response, options.challenge);
  assert.equal(registered.flags, 0x01 | 0x04 | 0x40); // UP UV AT
  assert.equal(registered.signCount, 0);
  assert.deepEqual([...registered.cose.keys()], [1, 3, -1, -2, -3]);

  for (const expected of [1, 2, 3]) {
    const request = requestOptions({ allow: [response.id] });
    const { flags, signCount } = await readAssertion(await key.get(request), request.challenge, registered);
    assert.equal(flags, 0x05);
    assert.equal(signCount, expected);
  }
  // Discoverable: the newest credential, with the user handle.
  const request = requestOptions();
  const assertion = await key.get(request);
  assert.equal(assertion.id, response.id);
  assert.equal(assertion.response.userHandle, options.user.id);

  // A clone keeps the counter it had; the original moves on.
  const twin = key.clone();
  const a = await readAssertion(await key.get(request), request.challenge, registered);
  const b = await readAssertion(await twin.get(request), request.challenge, registered);
  assert.equal(a.signCount, b.signCount);
});

test("EdDSA, synced flags, counter zero, no user verification", async () => {
  const synced = new SoftwareAuthenticator({ backupEligible: true, backedUp: true, counter: "zero" });
  const options = creationOptions({ algs: [EDDSA, ES256] });
  const response = await synced.create(options);
  const registered = await readRegistration(response, options.challenge);
  assert.equal(registered.cose.get(3), EDDSA);
  assert.equal(registered.flags, 0x01 | 0x04 | 0x08 | 0x10 | 0x40);
  const request = requestOptions({ allow: [response.id] });
  for (let i = 0; i < 2; i++) assert.equal((await readAssertion(await synced.get(request), request.challenge, registered)).signCount, 0);

  const plain = new SoftwareAuthenticator({ userVerification: false });
  await assert.rejects(plain.create(creationOptions()), (e) => e instanceof WebAuthnError && e.name === "NotAllowedError");
  const preferred = creationOptions({ uv: "preferred" });
  const noUv = await readRegistration(await plain.create(preferred), preferred.challenge);
  assert.equal(noUv.flags & 0x04, 0);
  assert.equal(noUv.flags & 0x01, 0x01);
});

test("what a browser refuses", async () => {
  const key = new SoftwareAuthenticator();
  const response = await key.create(creationOptions());
  await assert.rejects(key.create(creationOptions({ exclude: [response.id] })), { name: "InvalidStateError" });
  await assert.rejects(key.create(creationOptions(), { origin: "https://evil.example" }), { name: "SecurityError" });
  await assert.rejects(key.get(requestOptions({ allow: [b64url(new Uint8Array(16).fill(1))] })), { name: "NotAllowedError" });
  await assert.rejects(new SoftwareAuthenticator({ algorithms: [EDDSA] }).create(creationOptions({ algs: [ES256] })), { name: "NotSupportedError" });
  // A subdomain may use its parent as the RP id (the RP then sees that origin).
  const other = await key.get(requestOptions(), { origin: "https://app.localhost" });
  assert.equal(JSON.parse(Buffer.from(other.response.clientDataJSON, "base64url")).origin, "https://app.localhost");
});

test("vector shared with the Python authenticator", async () => {
  // The P-256 key whose scalar is the bytes 1..32 (the devices' vector key).
  const jwk = {
    kty: "EC", crv: "P-256", d: "AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA",
    x: "UVw9brnjlrkE0_7Kf1T9zQzB6Ze_N13KUVrQpsO0A18", y: "RTa-OlDzGPv5pUdZAqIhUCvvDVfgjFOyzApW8X2fk1Q",
  };
  const { d, ...publicJwk } = jwk;
  const key = new SoftwareAuthenticator();
  const credential = {
    id: Uint8Array.from({ length: 16 }, (_, i) => i), rpId: RP_ID, userHandle: new Uint8Array(32).fill(7),
    userName: "ann@example.com", algorithm: ES256, signCount: 0,
    privateKey: await subtle.importKey("jwk", jwk, { name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]),
    publicKey: await subtle.importKey("jwk", publicJwk, { name: "ECDSA", namedCurve: "P-256" }, true, ["verify"]),
  };
  const response = await key.registrationResponse(credential, b64url(new Uint8Array(32).fill(5)), ORIGIN, true);
  const attestation = b64urlDecode(response.response.attestationObject);
  assert.equal(createHash("sha256").update(attestation).digest("hex"), "c5dec2a56910aef0863de2612ac6a66ee6e328c692cde85b495b2e59ca82dfd0");
  assert.equal(response.response.clientDataJSON,
    "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiQlFVRkJRVUZCUVVGQlFVRkJRVUZCUVVGQlFVRkJRVUZCUVVGQlFVRkJRVSIs"
    + "Im9yaWdpbiI6Imh0dHBzOi8vbG9jYWxob3N0IiwiY3Jvc3NPcmlnaW4iOmZhbHNlfQ");
});

// py_webauthn verifies what this authenticator made: a registration, two logins, and a clone.
const VERIFY = `
import json, sys
import webauthn
from webauthn.helpers import base64url_to_bytes as d
case = json.load(sys.stdin)
reg = webauthn.verify_registration_response(credential=case["registration"], expected_challenge=d(case["challenge"]),
    expected_rp_id="localhost", expected_origin="https://localhost", require_user_verification=True)
count, out = reg.sign_count, []
for login in case["logins"]:
    try:
        v = webauthn.verify_authentication_response(credential=login["credential"], expected_challenge=d(login["challenge"]),
            expected_rp_id="localhost", expected_origin="https://localhost", credential_public_key=reg.credential_public_key,
            credential_current_sign_count=count, require_user_verification=True)
        count = v.new_sign_count
        out.append(count)
    except Exception as e:
        out.append(type(e).__name__)
print(json.dumps(out))
`;
const hasPyWebauthn = spawnSync(PYTHON, ["-c", "import webauthn"]).status === 0;

for (const algorithm of [ES256, EDDSA]) {
  test(`py_webauthn verifies its ${algorithm === ES256 ? "ES256" : "EdDSA"} output`,
    { skip: hasPyWebauthn ? false : `${PYTHON} has no PyPI webauthn (the web test venv has it)` }, async () => {
      const key = new SoftwareAuthenticator();
      const options = creationOptions({ algs: [algorithm] });
      const registration = await key.create(options);
      const twin = key.clone();
      const logins = [];
      for (const authenticator of [key, key, twin]) {
        const request = requestOptions({ allow: [registration.id] });
        logins.push({ challenge: request.challenge, credential: await authenticator.get(request) });
      }
      const run = spawnSync(PYTHON, ["-c", VERIFY], { input: JSON.stringify({ registration, challenge: options.challenge, logins }) });
      assert.equal(run.status, 0, run.stderr.toString());
      // Counting from 1; the clone's 1 after 2 is refused.
      assert.deepEqual(JSON.parse(run.stdout), [1, 2, "InvalidAuthenticationResponse"]);
    });
}
