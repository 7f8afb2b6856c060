// What every page of the example shares: the back end's API, WebAuthn's JSON forms, the status line.
// The session lives in an HttpOnly cookie: no script here ever sees it.

export const $ = (id) => document.getElementById(id);

/** POST a JSON object to /api/<method>; resolves with the result, rejects with {reason, message}. */
export async function api(method, body = {}) {
  const response = await fetch(`/api/${method}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" }, // the back end refuses anything else (CSRF)
    body: JSON.stringify(body),
  });
  const result = await response.json();
  if (!response.ok) {
    const error = new Error(result.error?.message ?? response.statusText);
    error.reason = result.error?.reason;
    error.data = result.error?.data;
    throw error;
  }
  return result;
}

/** Creation options JSON → a new credential's JSON (RegistrationResponseJSON). */
export async function createCredential(publicKey) {
  const options = PublicKeyCredential.parseCreationOptionsFromJSON(publicKey);
  const credential = await navigator.credentials.create({ publicKey: options });
  return credential.toJSON();
}

/** Request options JSON → an assertion's JSON (AuthenticationResponseJSON). WebAuthn Level 3's
 * parseRequestOptionsFromJSON and toJSON when the browser has them, else the same by hand. */
export async function getCredential(publicKey) {
  const options = PublicKeyCredential.parseRequestOptionsFromJSON?.(publicKey) ?? {
    ...publicKey,
    challenge: fromBase64url(publicKey.challenge),
    allowCredentials: (publicKey.allowCredentials ?? []).map((c) => ({ ...c, id: fromBase64url(c.id) })),
  };
  const credential = await navigator.credentials.get({ publicKey: options });
  if (typeof credential.toJSON === "function") return credential.toJSON();
  const { response } = credential;
  return {
    id: credential.id, rawId: base64url(credential.rawId), type: credential.type,
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
    response: {
      clientDataJSON: base64url(response.clientDataJSON),
      authenticatorData: base64url(response.authenticatorData),
      signature: base64url(response.signature),
      userHandle: response.userHandle ? base64url(response.userHandle) : null,
    },
  };
}

/** Bytes (an ArrayBuffer or a view) → unpadded base64url, as WebAuthn's JSON writes them. */
export function base64url(bytes) {
  const view = bytes instanceof ArrayBuffer ? new Uint8Array(bytes)
    : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let text = "";
  for (const byte of view) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text) {
  return Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
}

export function say(text, state = "ok") {
  $("status").textContent = text;
  $("status").dataset.state = state;
}

/** Runs an action, reporting its outcome (errors by reason, and a failed check's name). */
export const action = (fn) => async (event) => {
  event?.preventDefault();
  try {
    await fn();
  } catch (error) {
    const check = error.data?.check ? ` (check: ${error.data.check})` : "";
    const left = Number.isInteger(error.data?.remainingAttempts) ? ` (attempts left: ${error.data.remainingAttempts})` : "";
    say(`${error.reason ?? error.name}: ${error.message}${check}${left}`, "error");
  }
};
