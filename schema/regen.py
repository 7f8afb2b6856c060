#!/usr/bin/env python3
"""Regenerates every file derived from the method registry, or checks that none is stale.

    python3 schema/regen.py BINARY           # write them (what `make regen` runs)
    python3 schema/regen.py BINARY --check   # exit 1 with a one-line hint when one is stale

Derived files: schema/openrpc.json (`latchkey schema`), schema/errors.json (its error registry),
clients/python/latchkey/_generated.py, clients/js/generated.js and the generated region of
clients/js/index.d.ts (from the OpenRPC document), and schema/mcp-tools.json (`latchkey schema
--mcp-tools`). A missing tool (node) or a failing step is an error, never a skip.
"""
import json, os, shutil, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pretty(document):
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def derived(binary):
    """Every schema/ file as the binary derives it: {relative path: text}."""
    document = json.loads(subprocess.run([binary, "schema"], check=True, capture_output=True).stdout)
    errors = {reason: {"code": e["code"], "description": e["data"]["description"]}
              for reason, e in document["components"]["errors"].items()}
    files = {"schema/openrpc.json": pretty(document), "schema/errors.json": json.dumps(errors, indent=2) + "\n"}
    tools = subprocess.run([binary, "schema", "--mcp-tools"], check=True, capture_output=True)
    files["schema/mcp-tools.json"] = pretty(json.loads(tools.stdout))
    return files


def clients(schema_path, check):
    """Runs both client generators on `schema_path`; True when (with check) they are up to date."""
    flag = ["--check"] if check else []
    if shutil.which("node") is None:
        sys.exit("regen: node is not on PATH; the JavaScript client's tables need it (apt-get install nodejs)")
    python = subprocess.run([sys.executable, os.path.join(ROOT, "clients/python/generate.py"), "--schema", schema_path] + flag,
                            capture_output=True, text=True)
    node = subprocess.run(["node", os.path.join(ROOT, "clients/js/generate.mjs"), "--schema", schema_path] + flag,
                          capture_output=True, text=True)
    if not check and (python.returncode or node.returncode):
        sys.exit(f"regen: a client generator failed:\n{python.stderr}{node.stderr}")
    # --check exits 1 when the tables are stale; anything else is the generator failing.
    for name, run in (("python", python), ("js", node)):
        if run.returncode not in (0, 1):
            sys.exit(f"regen: the {name} client generator failed (exit {run.returncode}):\n{run.stderr}")
    return python.returncode == 0 and node.returncode == 0


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary, check = sys.argv[1], "--check" in sys.argv[2:]
    files = derived(binary)
    if not check:
        for path, text in files.items():
            with open(os.path.join(ROOT, path), "w") as f:
                f.write(text)
        clients(os.path.join(ROOT, "schema/openrpc.json"), check=False)
        print("regen: schema/, the clients' generated tables and the MCP tool list written")
        return
    stale = []
    for path, text in files.items():
        try:
            with open(os.path.join(ROOT, path)) as f:
                if f.read() != text:
                    stale.append(path)
        except FileNotFoundError:
            stale.append(path)
    # The clients derive from the committed document: checked against it once it is fresh.
    if "schema/openrpc.json" not in stale and not clients(os.path.join(ROOT, "schema/openrpc.json"), check=True):
        stale.append("the clients' generated tables")
    if stale:
        print(f"derived files are stale ({', '.join(stale)}): run `make regen` and commit the result")
        sys.exit(1)
    print("regen check: every derived file matches the method registry")


if __name__ == "__main__":
    main()
