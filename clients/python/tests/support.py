"""Shared test helpers: where things are, and the golden-transcript replay."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, List, Optional, Tuple, Union

import pytest

from latchkey import Latchkey, LatchkeyError

CLIENTS = Path(__file__).resolve().parents[2]
REPO = CLIENTS.parent
FAKE = CLIENTS / "testdata" / "fake-latchkey.py"
FIXTURE_SCHEMA = CLIENTS / "testdata" / "mini-openrpc.json"
DEFAULT_ARGS = ["--in-memory", "--seed", "1", "--clock", "manual"]
GOLDEN_DIRS = [REPO / "Tests" / "golden", CLIENTS / "testdata" / "golden"]


def real_binary() -> Tuple[Optional[str], str]:
    """($LATCHKEY_BIN, "") when it names an executable, else (None, why not)."""
    path = os.environ.get("LATCHKEY_BIN")
    if not path:
        return None, "LATCHKEY_BIN is not set (point it at .build/debug/latchkey)"
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        return None, f"LATCHKEY_BIN={path} is not an executable file"
    return path, ""


def canonical(value: Any) -> str:
    """JSON text that compares equal only for equal JSON (keys sorted; 1, 1.0 and true differ)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


@dataclass
class Transcript:
    name: str
    args: List[str]
    requests: List[dict] = field(default_factory=list)
    responses: List[dict] = field(default_factory=list)
    #: (number of responses before it, method, params), in order.
    notifications: List[Tuple[int, str, Any]] = field(default_factory=list)


def find_transcripts() -> List[Path]:
    """Every *.in.jsonl with a matching *.out.jsonl under the golden directories."""
    found = []
    for root in GOLDEN_DIRS:
        if root.is_dir():
            found += sorted(p for p in root.rglob("*.in.jsonl")
                            if p.with_name(p.name[:-len(".in.jsonl")] + ".out.jsonl").is_file())
    return found


def load_transcript(in_path: Path) -> Union[Transcript, str]:
    """The transcript, or why a client cannot replay it (a transport test, not a client test)."""
    stem = in_path.name[:-len(".in.jsonl")]
    out_path = in_path.with_name(stem + ".out.jsonl")
    args_path = in_path.with_name(stem + ".args")
    args = ([line for line in args_path.read_text().splitlines() if line.strip()]
            if args_path.is_file() else list(DEFAULT_ARGS))
    transcript = Transcript(name=stem, args=args)

    raw_in = in_path.read_bytes()
    if raw_in.lstrip()[:1] not in (b"{", b"["):
        return "not NDJSON framing"
    for number, message in _messages(raw_in):
        if isinstance(message, str):
            return f"input line {number}: {message}"
        if not (set(message) <= {"jsonrpc", "id", "method", "params"}
                and message.get("jsonrpc") == "2.0" and isinstance(message.get("method"), str)
                and isinstance(message.get("id"), (str, int, float))
                and not isinstance(message.get("id"), bool)
                and isinstance(message.get("params", {}), (dict, list))):
            return f"input line {number} is not a plain request with an id"
        transcript.requests.append(message)

    for number, message in _messages(out_path.read_bytes()):
        if isinstance(message, str):
            return f"output line {number}: {message}"
        if "method" in message and "id" not in message:
            transcript.notifications.append(
                (len(transcript.responses), message["method"], message.get("params")))
            continue
        index = len(transcript.responses)
        if index >= len(transcript.requests) or \
                canonical(message.get("id")) != canonical(transcript.requests[index]["id"]):
            return f"output line {number} does not answer the request in order"
        transcript.responses.append(message)
    if len(transcript.responses) != len(transcript.requests):
        return "some requests have no response"
    return transcript


def _messages(raw: bytes):
    """(line number, object) per non-blank line, or (line number, why it is not one)."""
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            message = json.loads(line.decode("utf-8"))
        except ValueError:
            yield number, "not a JSON text"
            continue
        yield number, message if isinstance(message, dict) else "not a single JSON object"


def replay(binary: str, transcript: Transcript, prefix_args: List[str] = ()) -> List[str]:
    """Sends every request through call(); returns the differences from the transcript."""
    problems = []
    seen: List[Tuple[int, str, Any]] = []
    current = [0]
    with Latchkey.spawn(binary, [*prefix_args, *transcript.args]) as lk:
        lk.on_notification(lambda n: seen.append((current[0], n.method, n.params)))
        for index, (request, expected) in enumerate(zip(transcript.requests, transcript.responses)):
            current[0] = index
            try:
                got = {"result": lk.call(request["method"], request.get("params"))}
            except LatchkeyError as error:
                if error.code is None:  # the process died or timed out
                    problems.append(f"request {request['id']}: {error}")
                    break
                got = {"error": {"code": error.code, "message": error.message}}
                if error.data is not None:
                    got["error"]["data"] = error.data
            want = {key: expected[key] for key in ("result", "error") if key in expected}
            if canonical(got) != canonical(want):
                problems.append(f"request {request['id']} ({request['method']}):\n"
                                f"  expected {canonical(want)}\n  got      {canonical(got)}")
        current[0] = len(transcript.requests)
        lk.close()
    expected_notes = [canonical(n) for n in transcript.notifications]
    got_notes = [canonical(n) for n in seen]
    if expected_notes != got_notes:
        problems.append("notifications differ ([responses before, method, params]):\n"
                        f"  expected {expected_notes}\n  got      {got_notes}")
    return problems


def refused(reason, call, *args, **kwargs):
    """The LatchkeyError `call` raises, after checking its reason."""
    with pytest.raises(LatchkeyError) as caught:
        call(*args, **kwargs)
    assert caught.value.reason == reason, caught.value
    return caught.value


def counter(seed):
    """A reproducible random source (keys and salts): SHA-256 of "seed/n" for n = 1, 2, …"""
    state = [0]

    def draw(n):
        out = b""
        while len(out) < n:
            state[0] += 1
            out += hashlib.sha256(f"{seed}/{state[0]}".encode()).digest()
        return out[:n]
    return draw
