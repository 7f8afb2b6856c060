// Types for the reference device (device.js), written by hand.

import { LatchkeyError } from "./index.js";
import type { Operation, OperationAttribute, ServerAuthenticationChallengeResult } from "./index.js";

/** Anything that calls a method: a `Latchkey` process, or the app's own transport to its back end. */
export interface DeviceClient {
  call(method: string, params?: object): Promise<any>;
}

/** Where the device keeps its items (string → string): a Map, a Map-like keychain wrapper, or a plain object. */
export type DeviceStorage = Map<string, string> | { get(name: string): string | undefined; set(name: string, value: string): unknown; delete(name: string): unknown } | Record<string, string>;

export type SignatureFormat = "raw" | "der";
export type Biometry = "touchId" | "faceId";
export type TokenPurpose = "none" | "addOrUpdateRecovery" | "deleteRecovery";
/** A token purpose that makes the answer carry a `token`. */
export type TokenWanted = Exclude<TokenPurpose, "none">;
export type AuthMethod = "device" | "pin" | "touchId" | "faceId";

export interface DeviceOptions {
  /** `raw` (r‖s, the default) or `der`; the server takes both. */
  signatureFormat?: SignatureFormat;
  /** Draws keys and salts (default: node:crypto randomBytes). */
  randomBytes?: (size: number) => Uint8Array;
  applicationId?: string;
}

/** The second factor the user presents: a PIN, or a biometric match the app vouches for. */
export interface Factor {
  pin?: string;
  biometry?: Biometry;
}

/** What server/activation/prepare, server/onboarding/activate and server/recovery/challenge offer. */
export interface Offer {
  activationId?: string;
  challengeId?: string;
  challenge: string;
  expiresAt: string;
  authMethodsForActivation: AuthMethod[];
  pinCodeType: "numeric" | "alphanumeric";
  pinCodeLengthMin: number;
  pinCodeLengthMax: number;
  /**
   * The application's operation-signing key (P-256 public key, unpadded base64url) that the device
   * keeps for offline approval: prepare's and onboarding's carry it, a recovery challenge does not.
   */
  operationSigningKey?: string;
}

/** A server/authentication/challenge answer (the generated result type); `contextHash` checked by the device. */
export type Challenge = ServerAuthenticationChallengeResult;

/** What `commitActivation`/`activate`, `activateOnboarding` and `recover` resolve with (server/activation/commit, server/recovery/commit). */
export interface Activated {
  registrationId: string;
  activatedAuthMethods: AuthMethod[];
  /** The registration's server key (P-256 public key, unpadded base64url) the offline codes are derived with; the device keeps it. */
  serverPublicKey?: string;
  token?: string;
  responseType?: "activated";
  contextContent?: null;
}

export interface Authenticated {
  responseType: "authenticated";
  contextContent: string | null;
  token?: string;
}

/**
 * A refusal by the device itself; `reason` as the contract names it, or `contextHashMismatch`, `invalidBackup`.
 * `biometryKeyInvalidated` comes once the device removed the method on the server (`data.authMethod`, `data.activatedAuthMethods`).
 */
export class DeviceError extends LatchkeyError {
  constructor(reason: string, message: string, data?: object);
}

export const PIN_ROUNDS: number;
export const RECOVERY_ROUNDS: number;
export const BACKUP_FORMAT: string;

export function b64url(bytes: Uint8Array): string;
export function b64urlDecode(text: string): Buffer;
/** The six-line signed payload. */
export function payload(operation: string, subject: string, challenge: string, role: string, contextHash?: string): Buffer;
export function contextHash(title: string | null | undefined, content: string | null | undefined, mime: string | null | undefined): string;
export function newPrivateKey(random?: (size: number) => Uint8Array): Buffer;
export function publicKey(privateKey: Uint8Array): string;
export function sign(privateKey: Uint8Array, message: Uint8Array, form?: SignatureFormat): string;
export function verify(publicKey: string, signature: string, message: Uint8Array): boolean;
export function mask(key: Uint8Array, secret: string, salt: Uint8Array, rounds: number): Buffer;
export function pinViolations(pin: string, rules: { pinCodeType: string; pinCodeLengthMin: number; pinCodeLengthMax: number }): string[];

export type RejectReason = "unknown" | "incorrectData" | "unexpectedOperation";
export const REJECT_REASONS: readonly RejectReason[];
export const FIELD_LABELS: Readonly<Record<OperationDataField["type"], string>>;

/** One field of operation data, its value unescaped. */
export type OperationDataField =
  | { type: "amount"; amount: string; currency: string }
  | { type: "iban"; iban: string; bic: string | null }
  | { type: "account"; account: string }
  | { type: "date"; date: string }
  | { type: "reference"; reference: string }
  | { type: "note"; note: string }
  | { type: "text"; text: string };

/** PowerAuth's operation-data string, version A, read. */
export interface OperationData {
  template: number;
  fields: OperationDataField[];
}

/** Text that is not operation data; `rule` the first rule it breaks. */
export class OperationDataError extends Error {
  constructor(rule: string);
  rule: string;
}

/** An attribute as the phone shows it (formData style). */
export type ShownAttribute = OperationAttribute & {
  /** What the row shows: `1 500.00 EUR`, the value, the note; a heading's label. */
  text: string;
  /** Whether what it shows is a whole field of the data (attributes are not signed). */
  inData: boolean;
  amountFormatted?: string;
  currencyFormatted?: string;
};

/** What a banking app shows of an operation. */
export interface ShownOperation {
  operationId: string;
  title: string;
  message: string;
  attributes: ShownAttribute[];
  template: number | null;
  fields: Array<OperationDataField & { label: string; text: string }>;
  /** The rule the data breaks, or null: offer no approval when it is not null. */
  dataError: string | null;
  /** All of it as plain text lines. */
  lines: string[];
}

/** A QR payload, read. */
export interface QRPayload {
  operationId: string;
  title: string;
  message: string;
  data: string;
  /** The `B` flag: touchId or faceId may answer. */
  biometric: boolean;
  nonce: string;
  /** DER. */
  signature: Buffer;
  operationHash: string;
}

/** Why a QR payload was refused (the device answers `qrInvalid`, `data.flaw` this message). */
export class QRPayloadError extends Error {
  constructor(message: string);
}

/** What `offlineCode` returns: the code the user types back, and what it approves. */
export interface OfflineApproval {
  /** `part(device)-part(method)`: 8 digits, `-`, 8 digits. */
  code: string;
  operationId: string;
  title: string;
  message: string;
  data: string;
}

/** Unpadded base64url SHA-256 of the four fields, each a 4-byte big-endian length and its UTF-8. */
export function operationHash(operationId: string, title: string, message: string, data: string): string;
/** Throws `OperationDataError`. */
export function parseOperationData(text: string): OperationData;
export function escapeOperationData(value: string): string;
export function ibanValid(text: string): boolean;
/** `1500.00` → `1 500.00`. */
export function formatAmount(amount: string): string;
/** `CZ2730300000001165254011` → `CZ27 3030 0000 0011 6525 4011`. */
export function formatIban(iban: string): string;
export function showOperation(operation: Pick<Operation, "operationId" | "title" | "message" | "data"> & { attributes?: OperationAttribute[] }): ShownOperation;
/** The seven signed lines of a QR payload, joined by `\n`. */
export function qrSignedText(fields: { operationId: string; title: string; message: string; data: string; biometric: boolean; nonce: string }): string;
/** Throws `QRPayloadError`; checks the signature when `operationSigningKey` is given. */
export function parseQrPayload(text: string, operationSigningKey?: string | null): QRPayload;
/** A QR payload signed by `privateKey` (for tests and tools). */
export function signQrPayload(privateKey: Uint8Array,
  fields: { operationId: string; title: string; message: string; data: string; biometric: boolean; nonce: string }): string;
/** RFC 4226 dynamic truncation (offset from the last byte), `digits` digits with leading zeros. */
export function truncate(mac: Uint8Array, digits?: number): string;
/** One part of the offline code (ECDH, HKDF-SHA256, HMAC-SHA256, truncation). */
export function offlinePart(privateKey: Uint8Array, role: AuthMethod, serverPublicKey: string, registrationId: string,
  operationId: string, operationHash: string, nonce: string): string;

/** One phone's half of the flows, over the server/ methods. */
export class Device {
  constructor(client: DeviceClient, installationId: string, storage?: DeviceStorage, options?: DeviceOptions);
  client: DeviceClient;
  installationId: string;
  signatureFormat: SignatureFormat;
  readonly registrationId: string | null;
  readonly isActivated: boolean;
  readonly isRecoveryActivated: boolean;
  readonly methods: AuthMethod[];
  /** The application's operation-signing key, as first learned (a different one later is not taken). */
  readonly operationSigningKey: string | null;
  /** The registration's server key (offline codes are derived with it). */
  readonly serverPublicKey: string | null;

  status(): Promise<{ activated: boolean; registrationId: string | null; authMethods: AuthMethod[]; lastMethod: string | null;
    recoveryActivated: boolean; onboardingProcessId: string | null; server?: any }>;

  prepareActivation(activationCode: string): Promise<Offer>;
  /** With a `tokenPurpose` other than `none`, the answer carries the `token`. */
  commitActivation(offer: Offer, options: Factor & { activationName?: string; tokenPurpose: TokenWanted }): Promise<Activated & { token: string }>;
  commitActivation(offer: Offer, options?: Factor & { activationName?: string; tokenPurpose?: TokenPurpose }): Promise<Activated>;
  activate(activationCode: string, options: Factor & { activationName?: string; tokenPurpose: TokenWanted }): Promise<Activated & { token: string }>;
  activate(activationCode: string, options?: Factor & { activationName?: string; tokenPurpose?: TokenPurpose }): Promise<Activated>;

  startAuthentication(purpose?: "authenticate" | "removeRegistration"): Promise<Challenge>;
  signChallenge(challenge: Challenge, options?: Factor & { operation?: string }): Record<string, string>;
  finishAuthentication(challenge: Challenge, options?: Factor & { tokenPurpose?: TokenPurpose }): Promise<Authenticated>;
  cancelAuthentication(challenge: Challenge): Promise<boolean>;
  authenticate(options?: Factor & { tokenPurpose?: TokenPurpose; approve?: (challenge: Challenge) => boolean | Promise<boolean> }):
    Promise<Authenticated | { responseType: "rejected"; authenticationId: string }>;

  addAuthMethod(method: "pin" | Biometry, options?: Factor & { newPin?: string }): Promise<AuthMethod[]>;
  /** A finger or a face added or enrolled again: destroys the biometric keys; returns their methods. */
  changeBiometricEnrolment(): Biometry[];
  removeAuthMethod(method: "pin" | Biometry): Promise<AuthMethod[]>;
  removeRegistration(options?: { onlyLocally?: boolean }): Promise<void>;

  setRecovery(token: string, recoveryCode: string, options?: { tokenPurpose?: TokenPurpose }): Promise<{ recoveryMethods: string[]; token?: string }>;
  deleteRecovery(token: string, options?: { tokenPurpose?: TokenPurpose }): Promise<{ recoveryMethods: string[]; token?: string }>;
  backup(): string;
  restore(blob: string): void;
  recover(recoveryCode: string, options: Factor & { registrationId?: string; tokenPurpose: TokenWanted }): Promise<Activated & { token: string }>;
  recover(recoveryCode: string, options?: Factor & { registrationId?: string; tokenPurpose?: TokenPurpose }): Promise<Activated>;

  /** The inbox: the registration's pending operations, oldest first. */
  operations(): Promise<Operation[]>;
  showOperation(operation: Operation): ShownOperation;
  /** Signs the hash of what the phone shows (`shownData` replaces the data: a tampered display). */
  approveOperation(operation: string | Operation, options?: Factor & { shownData?: string }): Promise<Operation>;
  /** The device key alone, over `<reason>:<hash>`. */
  rejectOperation(operation: string | Operation, reason?: RejectReason, options?: { shownData?: string }): Promise<Operation>;
  /**
   * Offline approval, synchronous (no server call). Throws `DeviceError` `qrInvalid`, `offlineUnavailable` (no
   * operation-signing key or server key yet, e.g. after a recovery on a new phone: authenticate once online),
   * `authMethodNotAllowed`, …
   */
  offlineCode(qrPayload: string, options?: Factor): OfflineApproval;

  startOnboarding(credentials: Record<string, string>): Promise<string>;
  onboardingStatus(): Promise<"activationInProgress" | "verificationInProgress" | "failed" | "finished">;
  resendOtp(): Promise<void>;
  prepareOnboardingActivation(otp: string): Promise<Offer>;
  activateOnboarding(otp: string, options?: Factor & { activationName?: string }): Promise<Activated>;
  cancelOnboarding(options?: { force?: boolean }): Promise<void>;
}
