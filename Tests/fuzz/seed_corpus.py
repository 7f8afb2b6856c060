#!/usr/bin/env python3
"""Seeds a fuzz corpus from the golden transcripts.

usage: seed_corpus.py DIR [all|lines|cbor|cose|authData|registration|assertion|operationData|qrPayload]
  all   - each transcript whole, and each of its lines (the default)
  lines - each line alone (short inputs: many more executions per second)
  the WebAuthn targets (LATCHKEY_FUZZ_TARGET) - the passkey credentials the transcripts carry,
          decoded from base64url: attestation objects (cbor, registration), their COSE keys (cose),
          authenticator data (authData), and authenticator data with its signature (assertion)
  the operation targets - every operation-data string (operationData) and every offline QR
          payload (qrPayload) the transcripts' results carry
"""
import base64, glob, hashlib, json, os, sys

WEBAUTHN = ("cbor", "cose", "authData", "registration", "assertion")
OPERATIONS = {"operationData": "data", "qrPayload": "qrPayload"}


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def credentials(value):
    """Every credential response object a JSON value holds."""
    if isinstance(value, dict):
        if isinstance(value.get("response"), dict) and "clientDataJSON" in value["response"]:
            yield value["response"]
        for item in value.values():
            yield from credentials(item)
    elif isinstance(value, list):
        for item in value:
            yield from credentials(item)


def webauthn_seeds(kind, root):
    for path in sorted(glob.glob(os.path.join(root, "**", "*.jsonl"), recursive=True)):
        for line in open(path, "rb").read().split(b"\n"):
            try:
                message = json.loads(line)
            except (ValueError, RecursionError):
                continue
            for response in credentials(message):
                try:
                    if "attestationObject" in response:
                        attestation = unb64(response["attestationObject"])
                        if kind in ("cbor", "registration"):
                            yield attestation
                        if kind == "cose":
                            # authData's COSE key starts after rpIdHash, flags, counter, AAGUID, id length, id.
                            auth = attestation[attestation.find(b"hauthData") + 9:]
                            auth = auth[2:] if auth[:1] == b"\x58" else auth[3:]
                            id_length = int.from_bytes(auth[53:55], "big")
                            yield auth[55 + id_length:]
                    elif kind in ("authData", "assertion"):
                        data, signature = unb64(response["authenticatorData"]), unb64(response["signature"])
                        yield data if kind == "authData" else bytes([len(data) // 2 & 0xFF]) + data + signature
                except (KeyError, ValueError, TypeError):
                    continue

def operation_seeds(kind, root):
    """Every string member named as the target's field in the transcripts' messages."""
    field = OPERATIONS[kind]

    def strings(value):
        if isinstance(value, dict):
            for key, item in value.items():
                if key == field and isinstance(item, str):
                    yield item.encode()
                else:
                    yield from strings(item)
        elif isinstance(value, list):
            for item in value:
                yield from strings(item)

    for path in sorted(glob.glob(os.path.join(root, "**", "*.jsonl"), recursive=True)):
        for line in open(path, "rb").read().split(b"\n"):
            try:
                yield from strings(json.loads(line))
            except (ValueError, RecursionError):
                continue


out = sys.argv[1]
kind = sys.argv[2] if len(sys.argv) > 2 else "all"
if kind not in ("all", "lines") + WEBAUTHN + tuple(OPERATIONS):
    targets = ", ".join(WEBAUTHN + tuple(OPERATIONS))
    sys.exit(f"seed_corpus.py: unknown seed kind {kind!r} (all, lines, or a parser's target: {targets})")
limit = 512 if kind == "lines" else 8192
os.makedirs(out, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
count = 0

def pieces_of_transcripts():
    for path in sorted(glob.glob(os.path.join(here, "..", "golden", "**", "*.in.jsonl"), recursive=True)):
        data = open(path, "rb").read()
        yield from data.split(b"\n") + ([data] if kind == "all" else [])


golden = os.path.join(here, "..", "golden")
if kind in WEBAUTHN:
    pieces = webauthn_seeds(kind, golden)
elif kind in OPERATIONS:
    pieces = operation_seeds(kind, golden)
else:
    pieces = pieces_of_transcripts()
for piece in pieces:
    if True:
        if not piece.strip() or len(piece) > limit:
            continue
        name = hashlib.sha1(piece).hexdigest()
        with open(os.path.join(out, name), "wb") as f:
            f.write(piece)
        count += 1
print(f"corpus: {count} seeds ({kind}) from the golden files")
