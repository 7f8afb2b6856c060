"""docs/flows.md draws the flows; every method a diagram names must be in the registry.

Run: python3 -m pytest -q Tests/docs
"""

import json
import re
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FLOWS = ROOT / "docs" / "flows.md"
SCHEMA = ROOT / "schema" / "openrpc.json"

# A fenced block that opens with ```mermaid and closes with ``` on a line of its own.
MERMAID_BLOCK = re.compile(r"^```mermaid[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
# Wire names: lower camelCase segments joined by "/" (activation/start, server/authMethod/add),
# plus the two names that have no slash.
METHOD_NAME = re.compile(r"(?<![\w/.])(?:[a-z][A-Za-z]*(?:/[a-z][A-Za-z]*)+|rpc\.discover|ping)(?![\w/]|\.\w)")


def mermaid_blocks(text):
    """Each mermaid block as (where: the heading above it, body)."""
    blocks = []
    for match in MERMAID_BLOCK.finditer(text):
        headings = re.findall(r"^#+ +(.+)$", text[:match.start()], re.MULTILINE)
        blocks.append((headings[-1] if headings else f"line {text.count(chr(10), 0, match.start()) + 1}", match.group(1)))
    return blocks


def named_methods(block):
    return set(METHOD_NAME.findall(block))


def registry():
    """The methods of schema/openrpc.json and the notifications it lists (x-notifications)."""
    document = json.loads(SCHEMA.read_text(encoding="utf-8"))
    methods = {method["name"] for method in document["methods"]}
    notifications = {note["method"] for note in document.get("x-notifications", [])}
    return methods, notifications


class FlowsTest(unittest.TestCase):
    def setUp(self):
        self.text = FLOWS.read_text(encoding="utf-8")
        self.blocks = mermaid_blocks(self.text)
        self.methods, self.notifications = registry()

    def test_has_mermaid_blocks(self):
        self.assertTrue(self.blocks, f"{FLOWS.relative_to(ROOT)} has no ```mermaid block")

    def test_every_named_method_is_in_the_registry(self):
        known = self.methods | self.notifications
        unknown = {}
        for where, block in self.blocks:
            missing = sorted(named_methods(block) - known)
            if missing:
                unknown[where] = missing
        if unknown:
            self.fail("diagrams name methods that schema/openrpc.json lacks: "
                      + "; ".join(f"{where!r}: {', '.join(names)}" for where, names in unknown.items()))

    def test_every_diagram_names_a_method(self):
        # Guards the pattern above: a diagram in which it finds nothing is checked for nothing.
        empty = [where for where, block in self.blocks if not named_methods(block) & self.methods]
        if empty:
            self.fail("diagrams that name no method: " + ", ".join(map(repr, empty)))

    def test_pattern_finds_method_names(self):
        sample = "App->>Server: server/authMethod/add(x), rpc.discover, ping\n s0 --> s1: accountRecovery/start\n"
        self.assertEqual(named_methods(sample),
                         {"server/authMethod/add", "rpc.discover", "ping", "accountRecovery/start"})
        self.assertEqual(named_methods("email or SMS, PIN/biometry, app://reset?x, shipping"), set())
        self.assertEqual(named_methods("device/noSuchMethod, then recovery/nope."), {"device/noSuchMethod", "recovery/nope"})

    def test_readme_links_flows(self):
        readme = (ROOT / "README.md").read_text(encoding="utf-8")
        self.assertTrue("docs/flows.md" in readme, "README.md does not link docs/flows.md")


if __name__ == "__main__":
    unittest.main()
