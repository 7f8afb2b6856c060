// Types for the reference device (device.js), written by hand.

import { LatchkeyError } from "./index.js";
import type { ServerAuthenticationChallengeResult } from "./index.js";

/** Anything that calls a method: a `Latchkey` process, or the app's own transport to its back end. */
export interface DeviceClient {
  call(method: string, params?: object): Promise<any>;
}

/** Where the device keeps its items (string → string): a Map, a Map-like keychain wrapper, or a plain object. */
export type DeviceStorage = Map<string, string> | { get(name: string): string | undefined; set(name: string, value: string): unknown; delete(name: string): unknown } | Record<string, string>;

export type SignatureFormat = "raw" | "der";
export type Biometry = "touchId" | "faceId";
export type TokenPurpose = "none" | "addOrUpdateRecovery" | "deleteRecovery";
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
}

/** A server/authentication/challenge answer (the generated result type); `contextHash` checked by the device. */
export type Challenge = ServerAuthenticationChallengeResult;

export interface Activated {
  registrationId: string;
  activatedAuthMethods: AuthMethod[];
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

  status(): Promise<{ activated: boolean; registrationId: string | null; authMethods: AuthMethod[]; lastMethod: string | null;
    recoveryActivated: boolean; onboardingProcessId: string | null; server?: any }>;

  prepareActivation(activationCode: string): Promise<Offer>;
  commitActivation(offer: Offer, options?: Factor & { activationName?: string; tokenPurpose?: TokenPurpose }): Promise<Activated>;
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
  recover(recoveryCode: string, options?: Factor & { registrationId?: string; tokenPurpose?: TokenPurpose }): Promise<Activated>;

  startOnboarding(credentials: Record<string, string>): Promise<string>;
  onboardingStatus(): Promise<"activationInProgress" | "verificationInProgress" | "failed" | "finished">;
  resendOtp(): Promise<void>;
  prepareOnboardingActivation(otp: string): Promise<Offer>;
  activateOnboarding(otp: string, options?: Factor & { activationName?: string }): Promise<Activated>;
  cancelOnboarding(options?: { force?: boolean }): Promise<void>;
}
