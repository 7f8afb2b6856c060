// Types for authenticator.js: a software WebAuthn authenticator with its browser half.

import type {
  PublicKeyCredentialCreationOptionsJSON as ServerCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON as ServerRequestOptionsJSON,
} from "./index.js";

export declare const ES256: -7;
export declare const EDDSA: -8;
export declare const FLAGS: { UP: 0x01; UV: 0x04; BE: 0x08; BS: 0x10; AT: 0x40; ED: 0x80 };

/** What a browser's promise would reject with; `name` is the DOMException name. */
export declare class WebAuthnError extends Error {
  name: "NotAllowedError" | "InvalidStateError" | "SecurityError" | "NotSupportedError";
}

/** PublicKeyCredentialCreationOptionsJSON (every byte string unpadded base64url). */
export interface CreationOptionsJSON {
  rp: { id?: string; name: string };
  user: { id: string; name: string; displayName: string };
  challenge: string;
  pubKeyCredParams: { type: "public-key"; alg: number }[];
  timeout?: number;
  excludeCredentials?: { type: "public-key"; id: string; transports?: string[] }[];
  authenticatorSelection?: { residentKey?: string; requireResidentKey?: boolean; userVerification?: "required" | "preferred" | "discouraged"; authenticatorAttachment?: string };
  attestation?: string;
  extensions?: Record<string, unknown>;
}
/** PublicKeyCredentialRequestOptionsJSON. */
export interface RequestOptionsJSON {
  challenge: string;
  rpId?: string;
  timeout?: number;
  allowCredentials?: { type: "public-key"; id: string; transports?: string[] }[];
  userVerification?: "required" | "preferred" | "discouraged";
  extensions?: Record<string, unknown>;
}
/**
 * What `create()` takes: creation options, as typed here or as the Latchkey client types them
 * (`PublicKeyCredentialCreationOptionsJSON` of index.d.ts), or an object holding them as `publicKey`
 * — the whole result of `passkey/creationOptions` or `reset/passkeyCreationOptions`.
 */
export type CreationOptionsInput =
  | CreationOptionsJSON | ServerCreationOptionsJSON
  | { publicKey: CreationOptionsJSON | ServerCreationOptionsJSON };
/**
 * What `get()` takes: request options, as typed here or as the Latchkey client types them
 * (`PublicKeyCredentialRequestOptionsJSON` of index.d.ts), or an object holding them as `publicKey`
 * — the whole result of `passkey/requestOptions` or `operation/passkeyOptions`.
 */
export type RequestOptionsInput =
  | RequestOptionsJSON | ServerRequestOptionsJSON
  | { publicKey: RequestOptionsJSON | ServerRequestOptionsJSON };
export interface RegistrationResponseJSON {
  id: string; rawId: string; type: "public-key";
  response: { clientDataJSON: string; attestationObject: string; authenticatorData: string; transports: string[]; publicKey: string; publicKeyAlgorithm: number };
  authenticatorAttachment: string;
  clientExtensionResults: Record<string, unknown>;
}
export interface AuthenticationResponseJSON {
  id: string; rawId: string; type: "public-key";
  response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle: string };
  authenticatorAttachment: string;
  clientExtensionResults: Record<string, unknown>;
}
export interface HeldCredential {
  id: Uint8Array; rpId: string; userHandle: Uint8Array; userName: string; algorithm: number;
  privateKey: CryptoKey; publicKey: CryptoKey; signCount: number; created: number;
}
export interface AuthenticatorOptions {
  /** The page's origin the "browser" reports (default "https://localhost"). */
  origin?: string;
  /** The authenticator can verify the user (sets UV unless "discouraged"); default true. */
  userVerification?: boolean;
  /** BE and BS flags (a synced passkey sets both); default false. */
  backupEligible?: boolean;
  backedUp?: boolean;
  /** "count": 0 at registration, then 1, 2, … per assertion (default); "zero": always 0. */
  counter?: "count" | "zero";
  /** Supported COSE algorithms (default [ES256, EDDSA]). */
  algorithms?: number[];
  aaguid?: Uint8Array;
  attachment?: "platform" | "cross-platform";
  transports?: string[];
  crossOrigin?: boolean;
}

export declare class SoftwareAuthenticator {
  constructor(options?: AuthenticatorOptions);
  origin: string;
  userVerification: boolean;
  backupEligible: boolean;
  backedUp: boolean;
  counter: "count" | "zero";
  /** base64url id → credential. */
  credentials: Map<string, HeldCredential>;
  /** navigator.credentials.create() then toJSON(); takes the options or `{publicKey}`. */
  create(options: CreationOptionsInput, opts?: { origin?: string }): Promise<RegistrationResponseJSON>;
  /** navigator.credentials.get() then toJSON(); takes the options or `{publicKey}`. */
  get(options: RequestOptionsInput, opts?: { origin?: string; credentialId?: string }): Promise<AuthenticationResponseJSON>;
  /** A copy with the same credentials and their counters as they are now. */
  clone(): SoftwareAuthenticator;
  registrationResponse(credential: HeldCredential, challenge: string, origin: string, userVerified: boolean): Promise<RegistrationResponseJSON>;
  clientData(type: "webauthn.create" | "webauthn.get", challenge: string, origin: string): Uint8Array;
  authenticatorData(rpId: string, userVerified: boolean, signCount: number, attested?: Uint8Array): Promise<Uint8Array>;
}

export declare function b64url(bytes: Uint8Array | ArrayBuffer): string;
export declare function b64urlDecode(text: string): Uint8Array;
export declare function cborEncode(value: unknown): Uint8Array;
export declare function cborDecode(bytes: Uint8Array, opts?: { allowTrailing?: false }): unknown;
export declare function cborDecode(bytes: Uint8Array, opts: { allowTrailing: true }): [unknown, Uint8Array];
export declare function coseKey(publicKey: CryptoKey): Promise<Map<number, number | Uint8Array>>;
export declare function derSignature(raw: Uint8Array): Uint8Array;
