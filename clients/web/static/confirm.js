// The confirm-payment page. It shows the payment from the operation's data (the signed part),
// and approves it with a passkey:
//   operation/passkeyOptions → request options whose challenge is SHA-256 of the operation's id,
//     its hash and a nonce (Latchkey's), so the assertion approves this operation and no other;
//   navigator.credentials.get → credential.toJSON();
//   operation/passkeyApprove {ceremonyId, credential, shownHash} — shownHash is the operation hash
//     of what this page displayed, and the back end refuses it when it is not the operation's.
// Reject cancels the operation (the back end's admin/cancelOperation).

import { $, action, api, getCredential, say } from "/common.js";
import { operationHash, operationIdFromURL, renderPayment } from "/operation.js";

const operationId = operationIdFromURL();
let displayed = null; // the operation as rendered: what shownHash covers

function show(operation) {
  displayed = null;
  $("approve").disabled = $("reject").disabled = true;
  renderPayment(operation); // throws for data that does not parse: then nothing may be approved
  displayed = operation;
  $("approve").disabled = $("reject").disabled = operation.status !== "pending";
}

$("approve").addEventListener("click", action(async () => {
  const shownHash = await operationHash(displayed);
  const { ceremonyId, publicKey } = await api("operation/passkeyOptions", { operationId });
  const credential = await getCredential(publicKey);
  show(await api("operation/passkeyApprove", { ceremonyId, credential, shownHash }));
  say("Payment approved");
}));

$("reject").addEventListener("click", action(async () => {
  show(await api("operation/reject", { operationId }));
  say("Payment rejected: nothing will be paid");
}));

if (!operationId) {
  say("No payment named here: open it from your account", "error");
} else {
  $("offline-link").href = `/offline?operation=${encodeURIComponent(operationId)}`;
  action(async () => {
    show(await api("operation/show", { operationId }));
    say(displayed.status === "pending" ? "Check the payment, then approve it" : "This payment is decided");
  })();
}
