"""CONTRIBUTING.md shows `user/passkeys` "whole": the snippet must be the file, byte for byte (but
for the list's indentation), or the recipe teaches a shape the code no longer has."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_user_passkeys_snippet_is_the_file():
    text = (ROOT / "CONTRIBUTING.md").read_text()
    marker = text.index("`user/passkeys`, whole (`Sources/LatchkeyServer/Methods/user/UserPasskeys.swift`)")
    block = re.search(r"^   ```swift\n(.*?)^   ```$", text[marker:], re.MULTILINE | re.DOTALL)
    assert block, "no ```swift block after the user/passkeys line"
    snippet = "".join(line[3:] if line.startswith("   ") else line.lstrip(" ")
                      for line in block.group(1).splitlines(keepends=True))
    source = (ROOT / "Sources/LatchkeyServer/Methods/user/UserPasskeys.swift").read_text()
    assert snippet == source
