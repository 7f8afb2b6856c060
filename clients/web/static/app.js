// The page's behaviour: WebAuthn in the browser, everything else on the back end (server.py).
// The browser makes two kinds of WebAuthn call:
//   navigator.credentials.create({publicKey})  — add a passkey (or a new one after a reset)
//   navigator.credentials.get({publicKey})     — sign in with one
// Each takes the options the back end got from Latchkey (parse…FromJSON) and hands back
// credential.toJSON(), which the back end forwards to Latchkey to verify.
// The session lives in an HttpOnly cookie: this script never sees it. What the pages share (the
// API call, WebAuthn's JSON forms, the status line) is in common.js.

import { $, action, api, createCredential, getCredential, say } from "/common.js";

/** Shows the signed-in or the signed-out view, as the session cookie says. */
async function refresh() {
  let me = null;
  try {
    me = await api("user/get");
  } catch (error) {
    if (error.reason !== "userSessionInvalid") throw error;
  }
  $("signed-in").hidden = !me;
  $("signed-out").hidden = !!me;
  if (!me) return;
  $("whoami").textContent = me.email ?? me.uid;
  const { passkeys } = await api("user/passkeys");
  if (!passkeys.length) {
    const none = document.createElement("li");
    none.textContent = "None yet.";
    $("passkeys").replaceChildren(none);
    return;
  }
  $("passkeys").replaceChildren(...passkeys.map((p) => {
    const item = document.createElement("li");
    item.dataset.id = p.id;
    item.textContent = `${p.friendlyName} — added ${p.createdAt}, last used ${p.lastUsedAt ?? "never"}` +
      `${p.backedUp ? ", synced" : ""} `;
    const remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = "Remove";
    remove.addEventListener("click", action(async () => {
      await api("passkey/remove", { passkeyId: p.id });
      await refresh();
      say(`Removed ${p.friendlyName}`);
    }));
    item.append(remove);
    return item;
  }));
}

// -- password sign-in and sign-out ------------------------------------------------------------
$("password-form").addEventListener("submit", action(async () => {
  await api("user/login", { email: $("email").value, password: $("password").value });
  $("password").value = "";
  await refresh();
  say("Signed in with a password");
}));

$("signout").addEventListener("click", action(async () => {
  await api("user/logout");
  await refresh();
  say("Signed out");
}));

// -- add a passkey: options from the back end → create() → back to the back end ---------------
$("add-form").addEventListener("submit", action(async () => {
  const { ceremonyId, publicKey } = await api("passkey/creationOptions");
  const credential = await createCredential(publicKey);
  await api("passkey/create", { ceremonyId, credential, friendlyName: $("passkey-name").value });
  await refresh();
  say("Passkey added");
}));

// -- a payment to approve: the demo back end (--demo-payment) makes one, the confirm page shows it.
// A bank's own back end makes the operation when the user orders a payment; the page only names it.
$("demo-payment").addEventListener("click", action(async () => {
  let operationId;
  try {
    ({ operationId } = await api("operation/demoPayment"));
  } catch (error) {
    if (error.reason !== "forbidden") throw error; // the route is not there
    say("This back end makes no demo payments (start it with --demo-payment)", "error");
    return;
  }
  location.assign(`/confirm?operation=${encodeURIComponent(operationId)}`);
}));

// -- sign in with a passkey: by name (its passkeys are allowed) or with none (discoverable) ---
async function passkeySignIn(email) {
  const { ceremonyId, publicKey } = await api("passkey/requestOptions", email ? { email } : {});
  const credential = await getCredential(publicKey);
  await api("passkey/login", { ceremonyId, credential });
  await refresh();
  say(email ? "Signed in with a passkey" : "Signed in with a passkey (discoverable)");
}
$("passkey-signin").addEventListener("click", action(() => passkeySignIn($("email").value)));
$("passkey-signin-any").addEventListener("click", action(() => passkeySignIn(null)));

// -- reset: a code by email, then a new passkey replaces every old one -------------------------
$("request-code").addEventListener("click", action(async () => {
  await api("reset/requestAccountRecovery", { email: $("reset-email").value });
  say("If that address has an account, a code is on its way");
}));

$("reset-form").addEventListener("submit", action(async () => {
  const email = $("reset-email").value;
  const verificationCode = $("reset-code").value;
  const { ceremonyId, publicKey } = await api("reset/passkeyCreationOptions", { email, verificationCode });
  const credential = await createCredential(publicKey);
  await api("reset/resetPasskeys", { email, verificationCode, ceremonyId, credential, friendlyName: "New passkey" });
  $("reset-code").value = "";
  say("Passkeys reset: sign in with the new one");
}));

// The link in the recovery message opens this page with the code: fill the form, then drop the
// code from the address bar and the history at once.
const link = new URLSearchParams(location.search);
if (link.has("verification_code")) {
  $("reset-code").value = link.get("verification_code");
  $("reset-email").value = link.get("email") ?? "";
  history.replaceState(null, "", "/");
}

if (!window.PublicKeyCredential?.parseCreationOptionsFromJSON) {
  say("This browser cannot use passkeys here (needs WebAuthn Level 3 JSON support)", "error");
} else {
  refresh().then(() => say("Ready"), (error) => say(error.message, "error"));
}
