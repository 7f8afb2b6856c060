"""Replays the golden transcripts (Tests/golden and clients/testdata/golden) through call()."""

import json
import sys

import pytest
from support import (CLIENTS, DEFAULT_ARGS, FAKE, REPO, Transcript, find_transcripts,
                     load_transcript, replay)

TRANSCRIPTS = find_transcripts()


def test_transcripts_are_found():
    assert any(p.is_relative_to(CLIENTS) for p in TRANSCRIPTS)


@pytest.mark.parametrize("in_path", TRANSCRIPTS, ids=lambda p: p.relative_to(REPO).as_posix())
def test_golden(binary, in_path):
    transcript = load_transcript(in_path)
    if isinstance(transcript, str):
        pytest.skip(f"cannot be replayed through call(): {transcript}")
    problems = replay(binary, transcript)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("in_path", [p for p in TRANSCRIPTS if p.is_relative_to(CLIENTS)],
                         ids=lambda p: p.name)
def test_fixture_transcripts_against_the_stand_in(in_path):
    """The replay machinery on our own transcripts, with no Swift build."""
    transcript = load_transcript(in_path)
    if isinstance(transcript, str):
        assert "skipped" in in_path.parts, transcript
        return
    assert "skipped" not in in_path.parts
    assert not replay(sys.executable, transcript, [str(FAKE)])


def test_replay_compares_notifications_and_results(tmp_path):
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "events/subscribe", "params": {"topics": ["audit"]}},
        {"jsonrpc": "2.0", "id": 2, "method": "clock/advance", "params": {"seconds": 5}},
    ]
    note = {"jsonrpc": "2.0", "method": "audit/event",
            "params": {"event": {"at": "2026-01-01T00:00:05Z", "type": "clockAdvanced", "seconds": 5}}}
    responses = [{"jsonrpc": "2.0", "id": 1, "result": {"topics": ["audit"]}},
                 note,
                 {"jsonrpc": "2.0", "id": 2, "result": {"now": "2026-01-01T00:00:05Z"}}]
    (tmp_path / "t.in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in requests))
    (tmp_path / "t.out.jsonl").write_text("".join(json.dumps(r) + "\n" for r in responses))
    transcript = load_transcript(tmp_path / "t.in.jsonl")
    assert isinstance(transcript, Transcript) and transcript.args == DEFAULT_ARGS
    assert transcript.notifications == [(1, "audit/event", note["params"])]
    assert replay(sys.executable, transcript, [str(FAKE)]) == []

    # A notification in the wrong place, and a wrong result, are both reported.
    transcript.notifications = [(2, "audit/event", note["params"])]
    transcript.responses[1] = {"jsonrpc": "2.0", "id": 2, "result": {"now": "2026-01-01T00:00:06Z"}}
    problems = replay(sys.executable, transcript, [str(FAKE)])
    assert len(problems) == 2 and "00:00:06Z" in problems[0] and "notifications" in problems[1]
