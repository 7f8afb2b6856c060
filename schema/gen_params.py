#!/usr/bin/env python3
"""Writes the decoding of every params type (`WireParams`) from its declaration, or checks it is current.

    python3 schema/gen_params.py           # write Sources/<Target>/Generated/WireParams+Decoding.swift
    python3 schema/gen_params.py --check   # exit 1 with a one-line hint when one is stale

A params type lists its members once, as a tuple of member descriptors whose labels are its stored
properties, in wire order:

    struct Params: WireParams {
        let deviceId: String
        let kind: BackupKind
        static let wire = (deviceId: WireMember.deviceId, kind: WireMember.required("kind", .enumeration(BackupKind.self)))
    }

(a type of one member names it alone, `static let wire = WireMember.deviceId`; a type of none writes
`static let wire: () = ()`). For each such type of a target this writes, into one file of that target:

- `decodeMembers`: every member read into a local of its own type, then the memberwise initializer
  called with every label, so a stored property the tuple does not name, or a label that names no
  property, does not compile;
- `members`: the members as the documents describe them (an inline member's own members in its place);
- `write(into:)`, for a type that is also written (`WireWritableParams`): the members in wire order.

It reads the Swift sources with a small tokenizer (comments, string literals with interpolation,
brackets), not a Swift parser: a type is found by its declaration (`struct`, `enum`, `class`,
`extension`) listing `WireParams`, its name qualified by the types around it. The output goes
through swift-format (the toolchain's), so it is formatted as every other file.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = os.path.join(ROOT, "Sources")
GENERATED = os.path.join("Generated", "WireParams+Decoding.swift")
PROTOCOL = "WireParams"
# Params also written: their `write(into:)` is generated too.
WRITTEN = "WireWritableParams"
DECLARATIONS = {"struct", "enum", "class", "extension", "actor", "protocol"}
# The generated code's own names, which a label must not shadow.
RESERVED = {"object", "path", "problems", "wire"}
# What may follow `class` without it declaring a type (`class func`, `class var`).
KEYWORDS = {"func", "var", "let", "subscript", "init", "deinit", "override", "final", "case"}


class GenerationError(Exception):
    pass


def tokenize(text):
    """Identifiers, numbers and punctuation, with comments and string literals left out (a string is one `"` token)."""
    tokens = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif c == '"' or (c == "#" and re.match(r'#+"', text[i:])):
            i = skip_string(text, i)
            tokens.append('"')
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            tokens.append(text[i:j])
            i = j
        elif c.isdigit():
            j = i
            while j < n and (text[j].isalnum() or text[j] in "._"):
                j += 1
            tokens.append(text[i:j])
            i = j
        else:
            tokens.append(c)
            i += 1
    return tokens


def skip_string(text, i):
    """The index just past the string literal at `i` (raw `#"…"#`, multi-line `\"\"\"…\"\"\"`, interpolations `\\(…)`)."""
    hashes = 0
    while text[i] == "#":
        hashes, i = hashes + 1, i + 1
    quote = '"""' if text.startswith('"""', i) else '"'
    i += len(quote)
    close = quote + "#" * hashes
    escape = "\\" + "#" * hashes
    n = len(text)
    while i < n:
        if text.startswith(close, i):
            return i + len(close)
        if text.startswith(escape, i):
            i += len(escape)
            if i < n and text[i] == "(":
                i = skip_interpolation(text, i + 1)
            else:
                i += 1
        else:
            i += 1
    raise GenerationError("a string literal does not end")


def skip_interpolation(text, i):
    """The index just past the `)` closing an interpolation whose `(` is before `i`."""
    depth = 1
    while i < len(text):
        c = text[i]
        if c == '"' or (c == "#" and re.match(r'#+"', text[i:])):
            i = skip_string(text, i)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise GenerationError("an interpolation does not end")


OPENING = {"(": ")", "[": "]", "{": "}"}


def matching(tokens, i):
    """The index of the bracket closing the one at `i`."""
    stack = []
    for j in range(i, len(tokens)):
        t = tokens[j]
        if t in OPENING:
            stack.append(OPENING[t])
        elif t in (")", "]", "}"):
            if not stack or stack.pop() != t:
                raise GenerationError(f"unbalanced {t}")
            if not stack:
                return j
    raise GenerationError("a bracket does not close")


class Scope:
    def __init__(self, kind, name, inherits, public, body):
        self.kind, self.name, self.inherits, self.public, self.body = kind, name, inherits, public, body


def scopes(tokens, start=0, end=None, outer=""):
    """Every type declaration and extension in tokens[start:end], nested ones with qualified names."""
    end = len(tokens) if end is None else end
    found = []
    i = start
    while i < end:
        t = tokens[i]
        if t in OPENING:  # a body or an expression: no declaration of this level inside
            i = matching(tokens, i) + 1
            continue
        if (t in DECLARATIONS and i + 1 < end and re.match(r"[A-Za-z_]", tokens[i + 1]) and tokens[i + 1] not in KEYWORDS
                and not (i > 0 and tokens[i - 1] == ".")):
            j = i + 1
            name = tokens[j]
            while j + 2 < end and tokens[j + 1] == "." and re.match(r"[A-Za-z_]", tokens[j + 2]):
                name += "." + tokens[j + 2]
                j += 2
            j += 1
            if j < end and tokens[j] == "<":
                depth = 0
                while j < end:
                    depth += {"<": 1, ">": -1}.get(tokens[j], 0)
                    j += 1
                    if depth == 0:
                        break
            inherits, constrained = [], False
            while j < end and tokens[j] != "{":
                if tokens[j] in OPENING:
                    j = matching(tokens, j)
                elif tokens[j] == "where":
                    constrained = True  # what follows constrains the extension: it declares no conformance
                elif re.match(r"[A-Za-z_]", tokens[j]) and not constrained:
                    inherits.append(tokens[j])
                j += 1
            if j >= end:
                break
            close = matching(tokens, j)
            qualified = name if t == "extension" or not outer else outer + "." + name
            modifiers = tokens[max(0, i - 3):i]
            scope = Scope(t, qualified, inherits, "public" in modifiers, (j + 1, close))
            found.append(scope)
            found += scopes(tokens, j + 1, close, qualified)
            i = close + 1
            continue
        i += 1
    return found


def top_level(tokens, start, end):
    """The indices in tokens[start:end] outside any bracket."""
    i = start
    while i < end:
        if tokens[i] in OPENING:
            i = matching(tokens, i) + 1
            continue
        yield i
        i += 1


def wire_labels(tokens, scope):
    """The member labels of the scope's `static let wire` and whether it is one member rather than a tuple; None without one.

    A tuple names its labels (in its type annotation, for a computed `static var wire: (…) { … }`, as in its value); a single member is
    the type's only stored `let`.
    """
    start, end = scope.body
    for i in top_level(tokens, start, end):
        if tokens[i] == "static" and tokens[i + 1] in ("let", "var") and tokens[i + 2] == "wire":
            j = i + 3
            if tokens[j] not in (":", "="):
                raise GenerationError(f"{scope.name}: `static let wire` must be `= (label: member, …)`")
            j += 1
            if tokens[j] != "(":
                stored = stored_properties(tokens, scope)
                if len(stored) != 1:
                    raise GenerationError(
                        f"{scope.name}: a `wire` that is one member needs exactly one stored `let` (found {', '.join(stored) or 'none'})")
                return stored, True
            close = matching(tokens, j)
            labels, entry = [], j + 1
            for k in list(top_level(tokens, j + 1, close)) + [close]:
                if tokens[k] in (",", ")") and k > entry:
                    if tokens[entry + 1] != ":":
                        raise GenerationError(f"{scope.name}: every element of `wire` needs a label (its property's name)")
                    labels.append(tokens[entry])
                    entry = k + 1
            return labels, False
    return None


def stored_vars(tokens, scope):
    """The scope's instance `var`s that store a value (a `var` with a default would let `wire` forget it and still compile)."""
    start, end = scope.body
    found = []
    for i in top_level(tokens, start, end):
        if tokens[i] != "var" or tokens[i - 1] == "static" or not re.match(r"[A-Za-z_]", tokens[i + 1]):
            continue
        j = i + 2
        if tokens[j] == ":":
            j, angle = j + 1, 0
            while j < end:
                t = tokens[j]
                if t in ("(", "["):
                    j = matching(tokens, j) + 1
                    continue
                if t == "<":
                    angle += 1
                elif t == ">":
                    angle -= 1
                elif angle == 0 and not (re.match(r"[A-Za-z_]", t) or t in (".", "?", "!", "&")):
                    break
                elif angle == 0 and re.match(r"[A-Za-z_]", t) and tokens[j - 1] not in (":", ".", "&", "<", ","):
                    break  # the next declaration
                j += 1
        if j >= end or tokens[j] != "{":
            found.append(tokens[i + 1])
    return found


def stored_properties(tokens, scope):
    """The scope's instance `let` properties."""
    start, end = scope.body
    names = []
    for i in top_level(tokens, start, end):
        if tokens[i] == "let" and tokens[i - 1] != "static" and re.match(r"[A-Za-z_]", tokens[i + 1]):
            names.append(tokens[i + 1])
    return names


def params_types(directory):
    """[(qualified name, labels, public, one member, written)] for every params type of the target, and the modules its files import."""
    types, imports = [], set()
    for folder, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if d != "Generated")
        for file in sorted(files):
            if not file.endswith(".swift"):
                continue
            path = os.path.join(folder, file)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            tokens = tokenize(text)
            file_types = []
            for scope in scopes(tokens):
                if scope.kind == "protocol" or (PROTOCOL not in scope.inherits and WRITTEN not in scope.inherits):
                    continue
                variables = stored_vars(tokens, scope)
                if variables:
                    raise GenerationError(
                        f"{os.path.relpath(path, ROOT)}: {scope.name} stores {', '.join(variables)} in a `var`: a params type's properties are `let`")
                wire = wire_labels(tokens, scope)
                if wire is None:
                    raise GenerationError(f"{os.path.relpath(path, ROOT)}: {scope.name} conforms to {PROTOCOL} but has no `static let wire`")
                labels, one = wire
                clash = RESERVED.intersection(labels)
                if clash:
                    raise GenerationError(f"{scope.name}: {', '.join(sorted(clash))} would shadow a name of the generated code; rename the property")
                file_types.append((scope.name, labels, scope.public, one, WRITTEN in scope.inherits))
            if file_types:
                types += file_types
                imports.update(re.findall(r"^import (\w+)$", text, re.M))
    return types, imports


def swift_for(name, labels, public, one, written):
    access = "public " if public else ""
    member = (lambda label: "wire") if one else (lambda label: f"wire.{label}")
    lines = [f"extension {name} {{"]
    lines.append(f"    {access}static func decodeMembers(_ object: JSONObject, at path: String, into problems: inout [ParamProblem]) -> Self? {{")
    for label in labels:
        lines.append(f"        let {label} = {member(label)}.read(object, path, &problems)")
    if labels:
        lines.append(f"        guard {', '.join('let ' + label for label in labels)} else {{ return nil }}")
    lines.append(f"        return Self({', '.join(f'{label}: {label}' for label in labels)})")
    lines.append("    }")
    lines.append("")
    if not labels:
        lines.append(f"    {access}static var members: [WireMemberInfo] {{ [] }}")
    elif len(labels) == 1:
        lines.append(f"    {access}static var members: [WireMemberInfo] {{ {member(labels[0])}.members }}")
    else:
        lines.append(f"    {access}static var members: [WireMemberInfo] {{ [{', '.join(member(l) + '.members' for l in labels)}].flatMap {{ $0 }} }}")
    if not written:
        lines.append("}")
        return "\n".join(lines)
    lines.append("")
    if labels:
        lines.append(f"    {access}func write(into object: inout JSONObject) {{")
        for label in labels:
            lines.append(f"        Self.{member(label)}.write({label}, into: &object)")
        lines.append("    }")
    else:
        lines.append(f"    {access}func write(into object: inout JSONObject) {{}}")
    lines.append("}")
    return "\n".join(lines)


HEADER = """\
// Generated by schema/gen_params.py (`make regen`) from each params type's `static let wire`: do not edit.
//
// Every member is read into a local of its own type, then the memberwise initializer takes them all,
// so a stored property missing from `wire`, or a label that names no property, does not compile.
"""


def generate(target):
    directory = os.path.join(SOURCES, target)
    types, imports = params_types(directory)
    if not types:
        return None
    body = [HEADER]
    body += [f"import {module}" for module in sorted(imports | {"LatchkeyJSON", "LatchkeyRPC"})]
    for name, labels, public, one, written in sorted(types, key=lambda t: t[0]):
        body.append("")
        body.append(swift_for(name, labels, public, one, written))
    return formatted("\n".join(body) + "\n")


def formatted(text):
    """The text as swift-format writes it, with the repository's configuration."""
    run = subprocess.run(
        ["swift", "format", "format", "--configuration", os.path.join(ROOT, ".swift-format")],
        input=text, capture_output=True, text=True)
    if run.returncode != 0:
        raise GenerationError(f"swift format failed: {run.stderr.strip()}")
    return run.stdout


def main():
    check = "--check" in sys.argv[1:]
    stale = []
    try:
        for target in sorted(os.listdir(SOURCES)):
            if not os.path.isdir(os.path.join(SOURCES, target)):
                continue
            path = os.path.join(SOURCES, target, GENERATED)
            text = generate(target)
            current = open(path, encoding="utf-8").read() if os.path.exists(path) else None
            if text == current:
                continue
            stale.append(os.path.relpath(path, ROOT))
            if check:
                continue
            if text is None:
                os.remove(path)
            else:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
    except GenerationError as error:
        sys.exit(f"gen_params: {error}")
    if check and stale:
        print(f"generated params decoding is stale ({', '.join(stale)}): run `make regen` and commit the result")
        sys.exit(1)
    if not check:
        print(f"gen_params: {len(stale)} file(s) rewritten" if stale else "gen_params: the params decoding is current")


if __name__ == "__main__":
    main()
