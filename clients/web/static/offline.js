// The offline page: the back end's QR code (admin/operationQrCode, drawn with segno) for the user's
// phone, and the code the phone answers (admin/verifyOfflineOperation). The phone checks the
// server's signature on the code, shows the payment itself, and its code binds what it showed.

import { $, action, api, say } from "/common.js";
import { operationIdFromURL, renderPayment } from "/operation.js";

const operationId = operationIdFromURL();

function show(operation) {
  $("scan").hidden = true;
  renderPayment(operation); // throws for data that does not parse: then no code is offered
  $("scan").hidden = operation.status !== "pending";
}

/** A new QR code (each has a new nonce, and replaces the one before). */
async function newCode() {
  const { image, operation } = await api("operation/qr", { operationId });
  show(operation);
  $("qr").src = image;
  $("code").value = "";
  say("Scan the code with your phone, then type the code it shows");
}

$("new-qr").addEventListener("click", action(newCode));

$("offline-form").addEventListener("submit", action(async () => {
  // 16 digits as the phone groups them, with or without the dash and spaces.
  const digits = $("code").value.replace(/[\s-]/g, "");
  if (!/^[0-9]{16}$/.test(digits)) {
    say("Type the 16 digits your phone shows (8, a dash, 8)", "error");
    return;
  }
  const operation = await api("operation/verifyOffline", { operationId, code: `${digits.slice(0, 8)}-${digits.slice(8)}` });
  show(operation);
  say("Payment approved");
}));

if (!operationId) {
  say("No payment named here: open it from your account", "error");
} else {
  $("confirm-link").href = `/confirm?operation=${encodeURIComponent(operationId)}`;
  action(async () => {
    const operation = await api("operation/show", { operationId });
    show(operation);
    if (operation.status === "pending") await newCode();
    else say("This payment is decided");
  })();
}
