"""Callback receivers on loopback for the system tests and the benchmark.

`Receiver` is an HTTP/1.1 server (keep-alive, Content-Length bodies) on 127.0.0.1 in a thread of its
own, plain or TLS (`tls=PrivateCA().server_context()`). Each request is filed with its headers, body,
arrival time and what `standardwebhooks` (PyPI: the Standard Webhooks reference library, not our
code) said of it; `answer(request)` picks the reply: a status, or `HANG` (never answer: the sender's
time limit ends it). `PrivateCA` makes a private CA and a certificate for localhost/127.0.0.1 with
`cryptography`, written to PEM files for `--callback-ca-file`. `RefusingPort` holds a port whose
connections are refused; `wait_until` waits for a condition with a deadline (the tests sleep for nothing
else, so they run side by side under `pytest -n`).

A process under `--clock manual` signs with its manual time: `ManualClockWebhook` checks the
timestamp against that clock instead of the wall clock (standardwebhooks 1.1.0 hard-codes
`datetime.now` and 5 minutes in a private method, which Python lets a subclass replace).
"""
import asyncio
import datetime
import ipaddress
import json
import os
import socket
import ssl
import threading
import time
import warnings

from standardwebhooks import Webhook, WebhookVerificationError

HANG = "hang"
TOLERANCE = datetime.timedelta(minutes=5)


class ManualClockWebhook(Webhook):
    """standardwebhooks' verifier with `now()` for a clock: the timestamp must be within 5 minutes of it."""

    def __init__(self, secret, now):
        super().__init__(secret)
        self._now = now

    def _Webhook__verify_timestamp(self, header):  # the name-mangled private method of Webhook
        try:
            stamp = datetime.datetime.fromtimestamp(float(header), tz=datetime.timezone.utc)
        except Exception:
            raise WebhookVerificationError("Invalid Signature Headers")
        if abs(stamp - self._now()) > TOLERANCE:
            raise WebhookVerificationError("Message timestamp out of tolerance")
        return stamp


def rfc3339(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)


class Request:
    def __init__(self, method, path, headers, body, received, verified, problem):
        self.method = method
        self.path = path
        self.headers = headers      # lower-cased names
        self.body = body            # bytes
        self.received = received    # time.monotonic()
        self.verified = verified    # the parsed body standardwebhooks returned, or None
        self.problem = problem      # why standardwebhooks refused it, or None

    @property
    def id(self):
        return self.headers.get("webhook-id")

    def json(self):
        return json.loads(self.body)


class Receiver:
    """An HTTP(S) receiver on 127.0.0.1; `answer(request) -> int | HANG` (default 200)."""

    def __init__(self, secret=None, answer=None, tls=None, manual=False, delay=0):
        self.secret = secret
        self.delay = delay          # seconds each answer waits (a busy receiver)
        self.answer = answer or (lambda request: 200)
        self.manual = manual        # a sender under --clock manual: verified later, with `verify_at`
        self.requests = []
        self._cond = threading.Condition()
        self._loop = asyncio.new_event_loop()
        self._open = None           # set: answers go out (`hold` clears it until `release`)
        self._hung = []
        ready = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(tls, ready), daemon=True)
        self._thread.start()
        ready.wait(10)
        self.port = self._server.sockets[0].getsockname()[1]

    def url(self, path="/hook", host="127.0.0.1"):
        scheme = "https" if self._tls else "http"
        return f"{scheme}://{host}:{self.port}{path}"

    def _run(self, tls, ready):
        asyncio.set_event_loop(self._loop)
        self._open = asyncio.Event()
        self._open.set()
        self._tls = tls
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=tls, backlog=256))
        ready.set()
        self._loop.run_forever()

    def _verify(self, body, headers, hook=None):
        if self.secret is None or (self.manual and hook is None):
            return None, None
        try:
            return (hook or Webhook(self.secret)).verify(body, headers), None
        except Exception as e:  # WebhookVerificationError, or a malformed header's ValueError
            return None, f"{type(e).__name__}: {e}"

    def verify_at(self, request, now):
        """standardwebhooks' verdict on a request with `now` (a datetime) as the current time: the parsed body, or raises."""
        verified, problem = self._verify(request.body, request.headers, ManualClockWebhook(self.secret, lambda: now))
        if problem:
            raise AssertionError(f"standardwebhooks refused {request.id}: {problem}")
        return verified

    async def _serve(self, reader, writer):
        try:
            while True:
                line = await reader.readline()
                if not line:
                    return
                method, path, _ = line.decode("latin-1").split(" ", 2)
                headers = {}
                while True:
                    h = await reader.readline()
                    if h in (b"\r\n", b"\n", b""):
                        break
                    name, _, value = h.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                verified, problem = self._verify(body, headers)
                request = Request(method, path, headers, body, time.monotonic(), verified, problem)
                with self._cond:
                    self.requests.append(request)
                    self._cond.notify_all()
                await self._open.wait()
                if self.delay:
                    await asyncio.sleep(self.delay)
                status = self.answer(request)
                if status == HANG:
                    self._hung.append(writer)
                    await asyncio.sleep(3600)
                    return
                writer.write(f"HTTP/1.1 {status} X\r\ncontent-length: 0\r\n\r\n".encode())
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, ValueError, ssl.SSLError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    def hold(self):
        """Requests are filed but not answered until `release`."""
        self._loop.call_soon_threadsafe(self._open.clear)

    def release(self):
        self._loop.call_soon_threadsafe(self._open.set)

    def wait_for(self, predicate, timeout=20):
        """Waits until predicate(requests) is true; returns the requests."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate(self.requests):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"receiver: condition not met within {timeout}s ({len(self.requests)} requests)")
                self._cond.wait(min(left, 0.5))
            return list(self.requests)

    def wait_count(self, n, timeout=20):
        return self.wait_for(lambda rs: len(rs) >= n, timeout)

    def snapshot(self):
        with self._cond:
            return list(self.requests)

    def close(self):
        async def stop():
            self._server.close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        try:
            asyncio.run_coroutine_threadsafe(stop(), self._loop).result(5)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)


class RefusingPort:
    """A loopback port bound and never listened on, held until `close`: a connection to it is refused, and no
    other test (pytest -n) can take the port meanwhile, as it could a port bound and closed."""

    def __init__(self):
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self.port = self._socket.getsockname()[1]

    def url(self, path="/hook"):
        return f"http://127.0.0.1:{self.port}{path}"

    def close(self):
        self._socket.close()


def wait_until(condition, timeout=20, what="condition", interval=0.05):
    """Calls condition() until it returns something true, which it returns; fails after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what}: not met within {timeout}s (last: {value!r})")
        time.sleep(interval)


class PrivateCA:
    """A private CA and a server certificate for localhost and 127.0.0.1, as PEM files in `directory`."""

    def __init__(self, directory, names=("localhost",), addresses=("127.0.0.1",)):
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID

        now = datetime.datetime.now(datetime.timezone.utc)
        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Latchkey test CA")])
        ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
              .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
              .not_valid_after(now + datetime.timedelta(days=2))
              .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
              .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                                           key_encipherment=False, data_encipherment=False, key_agreement=False,
                                           encipher_only=False, decipher_only=False), critical=True)
              .sign(ca_key, hashes.SHA256()))
        key = ec.generate_private_key(ec.SECP256R1())
        sans = [x509.DNSName(n) for n in names] + [x509.IPAddress(ipaddress.ip_address(a)) for a in addresses]
        common_name = names[0] if names else addresses[0]
        cert = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)]))
                .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=1))
                .add_extension(x509.SubjectAlternativeName(sans), critical=False)
                .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
                .sign(ca_key, hashes.SHA256()))
        self.ca_file = os.path.join(directory, "ca.pem")
        self.cert_file = os.path.join(directory, "server.pem")
        self.key_file = os.path.join(directory, "server.key")
        with open(self.ca_file, "wb") as f:
            f.write(ca.public_bytes(serialization.Encoding.PEM))
        with open(self.cert_file, "wb") as f:
            f.write(cert.public_bytes(serialization.Encoding.PEM))
        with open(self.key_file, "wb") as f:
            f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))

    def server_context(self, minimum=ssl.TLSVersion.TLSv1_2, maximum=None):
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        with warnings.catch_warnings():  # TLS 1.0 and 1.1 are deprecated: the point of the test that asks for them
            warnings.simplefilter("ignore", DeprecationWarning)
            context.minimum_version = minimum
            if maximum is not None:
                context.maximum_version = maximum
        context.load_cert_chain(self.cert_file, self.key_file)
        return context
