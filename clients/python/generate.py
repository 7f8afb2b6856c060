#!/usr/bin/env python3
"""Writes latchkey/_generated.py — the typed method helpers and the error registry — from the
OpenRPC document.

    python3 generate.py [--schema PATH] [--out PATH] [--check]

The schema defaults to ../../schema/openrpc.json; --check exits 1 when the output on disk
differs from what the schema gives. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import keyword
import re
import sys
import textwrap
from pathlib import Path
from typing import Any, Dict, List, Tuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DEFAULT_SCHEMA = REPO / "schema" / "openrpc.json"
DEFAULT_OUT = HERE / "latchkey" / "_generated.py"

# Attributes of Latchkey that a generated name must not shadow (a clash gets a "_" suffix).
RESERVED = {"call", "notify", "close", "on_notification", "notifications", "process", "timeout",
            "returncode", "stderr_tail", "spawn"}
SIMPLE_TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool",
                "null": "None", "object": "Dict[str, Any]"}


def resolve(doc: Dict[str, Any], node: Any) -> Any:
    """Follows local ``$ref`` pointers (``#/components/...``)."""
    for _ in range(32):
        if not (isinstance(node, dict) and isinstance(node.get("$ref"), str)):
            return node
        ref = node["$ref"]
        if not ref.startswith("#/"):
            raise ValueError(f"only local $refs are supported: {ref}")
        node = doc
        for part in ref[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
    raise ValueError("$ref chain too long")


def py_type(doc: Dict[str, Any], schema: Any, depth: int = 0) -> str:
    """A Python annotation for a JSON Schema (precise for scalars, lists and unions)."""
    schema = resolve(doc, schema)
    if not isinstance(schema, dict) or depth > 8:
        return "Any"
    if "const" in schema or "enum" in schema:
        values = [schema["const"]] if "const" in schema else schema["enum"]
        if values and all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in values):
            return f"Literal[{', '.join(repr(v) for v in values)}]"
        return _union(sorted({_value_type(v) for v in values}))
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return _union([py_type(doc, s, depth + 1) for s in schema[key]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union([py_type(doc, dict(schema, type=k), depth + 1) for k in kind])
    if kind == "array":
        return f"List[{py_type(doc, schema.get('items', {}), depth + 1)}]"
    if kind is None and "properties" in schema:
        return "Dict[str, Any]"
    return SIMPLE_TYPES.get(kind, "Any")


def _value_type(value: Any) -> str:
    for python, name in ((bool, "bool"), (int, "int"), (float, "float"), (str, "str"),
                         (list, "List[Any]"), (dict, "Dict[str, Any]")):
        if isinstance(value, python):
            return name
    return "None" if value is None else "Any"


def _union(types: List[str]) -> str:
    unique = list(dict.fromkeys(types))
    if "Any" in unique:
        return "Any"
    if len(unique) == 1:
        return unique[0]
    others = [t for t in unique if t != "None"]
    inner = others[0] if len(others) == 1 else f"Union[{', '.join(others)}]"
    return f"Optional[{inner}]" if "None" in unique else inner


def identifier(name: str, taken: frozenset = frozenset()) -> str:
    """A Python identifier for a schema name: invalid characters → "_", clashes → suffix "_"."""
    ident = re.sub(r"\W", "_", name) or "_"
    if ident[0].isdigit():
        ident = "_" + ident
    while keyword.iskeyword(ident) or ident in taken:
        ident += "_"
    return ident


def constant_name(reason: str) -> str:
    """``registrationLocked`` → ``REGISTRATION_LOCKED``."""
    return identifier(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", reason).upper())


def split_name(method: str) -> Tuple[str, str]:
    """``activation/start`` → (``activation``, ``start``); ``ping`` → ("", ``ping``)."""
    parts = re.split(r"[/.]", method, maxsplit=1)
    return ("", parts[0]) if len(parts) == 1 else (parts[0], parts[1])


def error_registry(doc: Dict[str, Any]) -> Dict[str, int]:
    """reason → code from ``components.errors`` (sorted by code)."""
    registry = {}
    for key, error in doc.get("components", {}).get("errors", {}).items():
        error = resolve(doc, error)
        data = error.get("data")
        reason = data.get("reason") if isinstance(data, dict) else None
        registry[reason if isinstance(reason, str) else key] = error["code"]
    return dict(sorted(registry.items(), key=lambda item: (item[1], item[0])))


def docstring(text: str, indent: str) -> str:
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').rstrip()
    lines = text.split("\n")
    if len(lines) == 1:
        return f'{indent}"""{text}"""\n'
    body = "\n".join((indent + line) if line.strip() else "" for line in lines[1:])
    return f'{indent}"""{lines[0]}\n{body}\n{indent}"""\n'


def method_code(doc: Dict[str, Any], method: Dict[str, Any], attr: str, target: str,
                indent: str, reasons: Dict[int, str]) -> str:
    """One helper: keyword-only params, unset optionals left out of the request."""
    name = method["name"]
    params = [resolve(doc, p) for p in method.get("params", [])]
    taken = frozenset({"self", "_timeout"})
    signature, entries, notes = ["self", "*"], [], []
    for param in params:
        ident = identifier(param["name"], taken)
        annotation = py_type(doc, param.get("schema", {}))
        required = bool(param.get("required", False))
        signature.append(f"{ident}: {annotation}" + ("" if required else " = UNSET"))
        entries.append(f"{param['name']!r}: {ident}")
        note = f"    {ident} ({annotation}{'' if required else ', optional'})"
        description = param.get("description") or param.get("summary")
        notes.append(note + (f": {description}" if description else ""))
    signature.append("_timeout: Optional[float] = None")
    result = method.get("result")
    returns = py_type(doc, resolve(doc, result).get("schema", {})) if result else "None"

    doc_lines = [f"``{name}``" + (f": {method['summary']}" if method.get("summary") else "")]
    if method.get("deprecated"):
        doc_lines.append("\nDeprecated.")
    if method.get("description"):
        doc_lines.append("\n" + method["description"])
    if notes:
        doc_lines.append("\nParams:\n" + "\n".join(notes))
    errors = []
    for error in method.get("errors", []):
        error = resolve(doc, error)
        errors.append(f"{reasons.get(error.get('code'), error.get('message'))} ({error.get('code')})")
    if errors:
        doc_lines.append("\n" + textwrap.fill("Errors: " + ", ".join(errors) + ".", 88))

    body = indent + "    "
    head = f"{indent}def {attr}({', '.join(signature)}) -> {returns}:\n"
    if len(head) > 100:
        head = (f"{indent}def {attr}(\n" + "".join(f"{body}    {part},\n" for part in signature)
                + f"{body}) -> {returns}:\n")
    if not entries:
        args = "None"
    elif len(entries) == 1:
        args = "_params({" + entries[0] + "})"
    else:
        args = "_params({\n" + "".join(f"{body}    {entry},\n" for entry in entries) + body + "})"
    return (head + docstring("\n".join(doc_lines), body)
            + f"{body}return {target}.call({name!r}, {args}, timeout=_timeout)\n")


def generate(doc: Dict[str, Any]) -> str:
    """The text of _generated.py for an OpenRPC document."""
    registry = error_registry(doc)
    reasons = {code: reason for reason, code in registry.items()}
    methods = sorted(doc.get("methods", []), key=lambda m: m["name"])
    groups: Dict[str, List[Dict[str, Any]]] = {}
    for method in methods:
        groups.setdefault(split_name(method["name"])[0], []).append(method)
    namespaces = {prefix: identifier(prefix, frozenset(RESERVED)) for prefix in groups if prefix}
    top_taken = frozenset(RESERVED | set(namespaces.values()))

    out = [f"""\
# Generated by clients/python/generate.py from Latchkey's OpenRPC document (`latchkey schema`) — do not edit.
# Regenerate with: python3 clients/python/generate.py
\"\"\"Typed helpers for every Latchkey method and the error registry ({len(methods)} methods).\"\"\"

from __future__ import annotations

from typing import {{typing_names}}

__all__ = ["ERROR_CODES", "ERROR_REASONS", "GeneratedMethods", "METHODS", "SCHEMA_VERSION",
           "UNSET", "errors"]


class _Unset:
    \"\"\"The default of an optional param: left out of the request (None would send null).\"\"\"

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()


def _params(values: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    given = {{key: value for key, value in values.items() if value is not UNSET}}
    return given or None


#: The ``info.version`` of the schema these helpers were generated from.
SCHEMA_VERSION = {doc.get("info", {}).get("version", "")!r}

#: Every method name in the schema.
METHODS = (
"""]
    out += [f"    {m['name']!r},\n" for m in methods]
    out.append(")\n\n#: Error code by reason (``data.reason``).\nERROR_CODES: Dict[str, int] = {\n")
    out += [f"    {reason!r}: {code},\n" for reason, code in registry.items()]
    out.append("}\n\n#: Reason by error code.\n"
               "ERROR_REASONS: Dict[int, str] = {code: reason for reason, code in ERROR_CODES.items()}"
               "\n\n\nclass errors:\n"
               '    """Error codes as constants: ``errors.REGISTRATION_LOCKED == 1401``."""\n\n')
    out += [f"    {constant_name(reason)} = {code}\n" for reason, code in registry.items()]
    if not registry:
        out.append("    pass\n")
    out.append('\n\nclass _Namespace:\n    __slots__ = ("_client",)\n\n'
               "    def __init__(self, client: Any) -> None:\n        self._client = client\n")

    for prefix in namespaces:
        out.append(f"\n\nclass {_class_name(prefix)}(_Namespace):\n"
                   f'    """The ``{prefix}`` methods."""\n\n    __slots__ = ()\n')
        taken: set = set()
        for method in groups[prefix]:
            attr = identifier(split_name(method["name"])[1], frozenset(taken | {"_client"}))
            taken.add(attr)
            out.append("\n" + method_code(doc, method, attr, "self._client", "    ", reasons))

    out.append("\n\nclass GeneratedMethods:\n"
               '    """Mixed into Latchkey: a property per namespace, a method per un-prefixed name."""\n\n'
               "    __slots__ = ()\n")
    for prefix, ident in namespaces.items():
        out.append(f"\n    @property\n    def {ident}(self) -> {_class_name(prefix)}:\n"
                   f"        return {_class_name(prefix)}(self)\n")
    for method in groups.get("", []):
        attr = identifier(method["name"], top_taken)
        out.append("\n" + method_code(doc, method, attr, "self", "    ", reasons))
    text = "".join(out)
    used = [name for name in ("Any", "Dict", "List", "Literal", "Optional", "Union")
            if re.search(rf"\b{name}\b", text.split("__all__", 1)[1])]
    return text.replace("{typing_names}", ", ".join(used), 1)


def _class_name(prefix: str) -> str:
    return identifier(prefix[:1].upper() + prefix[1:]) + "Methods"


def main(argv: List[str] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--schema", type=Path, default=DEFAULT_SCHEMA)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--check", action="store_true", help="fail if --out is not up to date")
    options = parser.parse_args(argv)
    if not options.schema.is_file():
        parser.error(f"{options.schema} not found (pass --schema)")
    schema_path = options.schema.resolve()
    text = generate(json.loads(schema_path.read_text(encoding="utf-8")))
    if options.check:
        current = options.out.read_text(encoding="utf-8") if options.out.is_file() else ""
        if current != text:
            print(f"{options.out} is out of date: run python3 clients/python/generate.py",
                  file=sys.stderr)
            return 1
        return 0
    options.out.write_text(text, encoding="utf-8")
    print(f"wrote {options.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
