"""The generated helpers: drift against the schema, and the generator's naming rules."""

import inspect
import json
import sys
import types

from support import CLIENTS, FIXTURE_SCHEMA, REPO

import latchkey
from latchkey import Latchkey, _generated

sys.path.insert(0, str(CLIENTS / "python"))
import generate  # noqa: E402


def test_generated_file_matches_the_schema():
    """Fails when schema/openrpc.json changed without `python3 clients/python/generate.py`.

    Until the schema exists, the committed file is generated from the test fixture.
    """
    schema = REPO / "schema" / "openrpc.json"
    source = schema if schema.is_file() else FIXTURE_SCHEMA
    expected = generate.generate(json.loads(source.read_text(encoding="utf-8")))
    current = (CLIENTS / "python" / "latchkey" / "_generated.py").read_text(encoding="utf-8")
    assert current == expected, (
        f"latchkey/_generated.py is stale for {source.relative_to(REPO)}: "
        "run python3 clients/python/generate.py"
        + ("" if schema.is_file() else " --schema clients/testdata/mini-openrpc.json"))


def test_no_generated_name_shadows_the_client():
    mine = {name for name in vars(Latchkey) if not name.startswith("__")}
    generated = {name for name in vars(_generated.GeneratedMethods) if not name.startswith("__")}
    assert not mine & generated


def test_every_schema_method_has_a_helper():
    client = type("Client", (_generated.GeneratedMethods, Recorder), {})()
    Recorder.__init__(client)
    for name in latchkey.METHODS:
        prefix, rest = generate.split_name(name)
        reserved = frozenset(generate.RESERVED)
        owner = getattr(client, generate.identifier(prefix, reserved)) if prefix else client
        helper = getattr(owner, generate.identifier(rest, frozenset() if prefix else reserved))
        required = {p.name: None for p in inspect.signature(helper).parameters.values()
                    if p.default is inspect.Parameter.empty}
        helper(**required)
        assert client.calls[-1][0] == name


def test_error_registry():
    assert latchkey.ERROR_CODES["methodNotFound"] == -32601
    assert latchkey.errors.METHOD_NOT_FOUND == -32601
    assert latchkey.ERROR_REASONS[-32601] == "methodNotFound"
    if "registrationLocked" in latchkey.ERROR_CODES:
        assert latchkey.errors.REGISTRATION_LOCKED == latchkey.ERROR_CODES["registrationLocked"] == 1401


def load(doc):
    """Generates from a document and imports the result as a module."""
    module = types.ModuleType("generated_under_test")
    exec(compile(generate.generate(doc), "generated_under_test", "exec"), module.__dict__)
    return module


class Recorder:
    def __init__(self):
        self.calls = []

    def call(self, method, params=None, timeout=None):
        self.calls.append((method, params, timeout))
        return "ok"


def test_helpers_from_the_fixture():
    module = load(json.loads(FIXTURE_SCHEMA.read_text()))
    client = type("Client", (module.GeneratedMethods, Recorder), {})()
    Recorder.__init__(client)
    client.activation.start(deviceId="d1", activationCode="12345678")
    client.activation.start(deviceId="d1", activationCode="1", applicationId="app", _timeout=2)
    client.activation.finish(deviceId="d1", authParameter={"method": "pin", "pin": "1234"})
    client.rpc.discover()
    client.ping(echo=None)
    assert client.calls == [
        ("activation/start", {"deviceId": "d1", "activationCode": "12345678"}, None),
        ("activation/start", {"deviceId": "d1", "activationCode": "1", "applicationId": "app"}, 2),
        ("activation/finish", {"deviceId": "d1", "authParameter": {"method": "pin", "pin": "1234"}}, None),
        ("rpc.discover", None, None),
        ("ping", {"echo": None}, None),
    ]
    assert "activationCodeInvalid (1300)" in module.ActivationMethods.start.__doc__


def test_names_that_are_keywords_or_taken():
    doc = {"methods": [
        {"name": "close", "params": [], "result": {"name": "r", "schema": {}}},
        {"name": "import/from", "params": [
            {"name": "from", "required": True, "schema": {"type": "string"}},
            {"name": "device-id", "schema": {"type": ["string", "null"]}}]},
        {"name": "call/x", "params": []},
        {"name": "lambda", "params": [{"name": "self", "schema": {"type": "integer"}}]},
    ], "components": {"errors": {"iCloudKeychainDisabled": {"code": 1105, "message": "m"}}}}
    module = load(doc)
    client = type("Client", (module.GeneratedMethods, Recorder), {})()
    Recorder.__init__(client)
    client.close_()
    client.import_.from_(from_="a", device_id=None)
    client.call_.x()
    client.lambda_(self_=3)
    assert client.calls == [("close", None, None), ("import/from", {"from": "a", "device-id": None}, None),
                            ("call/x", None, None), ("lambda", {"self": 3}, None)]
    assert module.errors.I_CLOUD_KEYCHAIN_DISABLED == 1105
    assert "Optional[str]" in module.ImportMethods.from_.__doc__


def test_check_mode(tmp_path):
    out = tmp_path / "_generated.py"
    args = ["--schema", str(FIXTURE_SCHEMA), "--out", str(out)]
    assert generate.main(args + ["--check"]) == 1
    assert generate.main(args) == 0
    assert generate.main(args + ["--check"]) == 0
