"""`latchkey mcp` driven by the official MCP Python SDK (PyPI `mcp`) as a real stdio client.

Runs in the SDK's default mode ('auto': it probes `server/discover` first, which must fail at
once so the client falls back to the handshake) and in handshake mode ('legacy'): lists every
tool (the SDK checks each result against its tool's outputSchema), walks a whole activation and
authentication on a simulated phone, a wrong PIN, arguments off the schema, an unknown tool,
and a notification of a subscribed topic as a log message.

    LATCHKEY_BIN=.build/debug/latchkey .build/venv/bin/python -m pytest -q Tests/mcp
"""
from __future__ import annotations

import json
import os
import tempfile
import time

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("LATCHKEY_BIN") or os.path.join(ROOT, ".build", "debug", "latchkey")
ARGS = ["mcp", "--in-memory", "--seed", "1", "--clock", "manual"]
MODES = ["auto", "legacy"]
# Handshake-era logging is what these revisions serve; the SDK warns that 2026-07-28 drops it.
pytestmark = pytest.mark.filterwarnings("ignore:The logging capability is deprecated")


def server(sent_log: str) -> StdioServerParameters:
    """`latchkey mcp`, with what the client sends copied to `sent_log` on the way."""
    # The contract check of debug builds (see the Makefile) follows the process.
    env = {k: v for k, v in os.environ.items() if k.startswith("LATCHKEY_") or k in ("PATH", "HOME")}
    return StdioServerParameters(command="/bin/sh", args=["-c", 'tee "$0" | exec "$@"', sent_log, BINARY, *ARGS], env=env)


def registry_tool_names() -> list[str]:
    """The tool names the method registry implies (the OpenRPC document, less rpc.discover)."""
    with open(os.path.join(ROOT, "schema", "openrpc.json")) as f:
        methods = [m["name"] for m in json.load(f)["methods"]]
    return [m.replace("/", "_") for m in methods if m != "rpc.discover"]


def run(body):
    """Connects in each mode and runs `body(client, logs)`; returns, per mode, the seconds
    connecting took and the methods the client sent, in order."""

    async def main(mode: str, sent_log: str) -> float:
        logs: list = []

        async def on_log(params) -> None:
            logs.append(params)

        started = time.monotonic()
        async with Client(server(sent_log), mode=mode, logging_callback=on_log, read_timeout_seconds=30) as client:
            connected = time.monotonic() - started
            assert client.server_info is not None and client.server_info.name == "latchkey"
            assert client.protocol_version in ("2025-06-18", "2025-11-25")
            await body(client, logs)
        return connected

    outcome = {}
    with tempfile.TemporaryDirectory() as scratch:
        for mode in MODES:
            sent_log = os.path.join(scratch, f"{mode}.jsonl")
            connected = anyio.run(main, mode, sent_log)
            with open(sent_log) as f:
                sent = [json.loads(line).get("method") for line in f if line.strip()]
            outcome[mode] = (connected, sent)
    return outcome


def structured(result) -> dict:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    assert len(result.content) == 1 and result.content[0].type == "text"
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def error(result) -> dict:
    assert result.is_error
    assert result.structured_content is None
    assert len(result.content) == 1 and result.content[0].type == "text"
    return json.loads(result.content[0].text)


def test_default_mode_falls_back_to_the_handshake_at_once():
    async def body(client, logs):
        assert client.server_capabilities.tools is not None
        assert client.server_capabilities.logging is not None

    outcome = run(body)
    print(f"connect seconds and first methods: {outcome}")
    # Default mode probes the stateless revision first, then falls back to the handshake.
    assert outcome["auto"][1][:3] == ["server/discover", "initialize", "notifications/initialized"]
    assert outcome["legacy"][1][:2] == ["initialize", "notifications/initialized"]
    # The SDK waits 10 s for a server/discover answer; methodNotFound must come at once.
    assert outcome["auto"][0] < 5, outcome


def test_lists_every_tool_with_object_schemas():
    async def body(client, logs):
        listed = await client.list_tools()
        names = [tool.name for tool in listed.tools]
        assert names == registry_tool_names()
        assert listed.next_cursor is None
        for tool in listed.tools:
            assert tool.description
            assert tool.input_schema["type"] == "object"
            assert tool.output_schema is not None and tool.output_schema["type"] == "object"
            assert "$ref" not in json.dumps(tool.input_schema) + json.dumps(tool.output_schema)

    run(body)


def test_activation_and_authentication_with_a_wrong_pin_first():
    async def body(client, logs):
        await client.list_tools()  # the SDK checks structuredContent against the listed outputSchema
        structured(await client.call_tool("admin_createUser", {"userId": "alice", "email": "alice@example.com"}))
        code = structured(await client.call_tool("admin_createActivationCode", {"userId": "alice"}))["activationCode"]
        structured(await client.call_tool("device_create", {"deviceId": "d1"}))
        start = structured(await client.call_tool("activation_start", {"deviceId": "d1", "activationCode": code}))
        assert "pin" in start["authMethodsForActivation"]
        finish = structured(await client.call_tool(
            "activation_finish", {"deviceId": "d1", "authParameter": {"method": "pin", "pin": "1234"}}))
        assert finish["responseType"] == "activated"
        registration = finish["registrationId"]

        structured(await client.call_tool("authentication_start", {"deviceId": "d1"}))
        wrong = error(await client.call_tool(
            "authentication_finish", {"deviceId": "d1", "authParameter": {"method": "pin", "pin": "9999"}}))
        assert wrong["code"] == 1400 and wrong["data"]["reason"] == "authenticationFailed"
        assert wrong["data"]["remainingAttempts"] == 4

        again = structured(await client.call_tool("authentication_start", {"deviceId": "d1"}))
        assert again["remainingAttemptsPIN"] == 4
        done = structured(await client.call_tool(
            "authentication_finish", {"deviceId": "d1", "authParameter": {"method": "pin", "pin": "1234"}}))
        assert done["responseType"] == "authenticated"
        held = structured(await client.call_tool("admin_getRegistration", {"registrationId": registration}))
        assert held["state"] == "active" and held["failedAttempts"] == 0

    run(body)


def test_bad_arguments_and_unknown_tools():
    async def body(client, logs):
        bad = error(await client.call_tool("activation_start", {"deviceId": 3}))
        assert bad["code"] == -32602 and bad["data"]["reason"] == "invalidParams"
        assert [e["path"] for e in bad["data"]["errors"]] == ["deviceId", "activationCode"]
        for name in ("no_such_tool", "rpc.discover"):
            with pytest.raises(MCPError) as raised:
                await client.call_tool(name, {})
            assert raised.value.code == -32602

    run(body)


def test_a_subscribed_notification_is_a_log_message_without_its_code():
    async def body(client, logs):
        await client.set_logging_level("info")
        structured(await client.call_tool("events_subscribe", {"topics": ["delivery"]}))
        structured(await client.call_tool("admin_createUser", {"userId": "bob", "email": "bob@example.com"}))
        structured(await client.call_tool(
            "reset_requestPasswordReset", {"email": "bob@example.com", "redirectUrl": "app://reset"}))
        # Written before the response of the call that caused it.
        sent = [log for log in logs if log.logger == "delivery/sent"]
        assert len(sent) == 1 and sent[0].level == "info"
        message = sent[0].data["message"]
        assert message["to"] == "bob@example.com" and message["purpose"] == "passwordReset"
        assert not {"code", "text", "link"} & set(message)
        # The code still reaches an operator as a tool result.
        listed = structured(await client.call_tool("delivery_list", {"to": "bob@example.com"}))
        assert listed["messages"][0]["code"]

        await client.set_logging_level("warning")
        structured(await client.call_tool(
            "reset_requestPasswordReset", {"email": "bob@example.com", "redirectUrl": "app://reset"}))
        assert len([log for log in logs if log.logger == "delivery/sent"]) == 1

    run(body)
