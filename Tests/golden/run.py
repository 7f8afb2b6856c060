#!/usr/bin/env python3
"""Golden transcripts: feed NAME.in.jsonl to the binary, compare stdout with NAME.out.jsonl byte for byte.

usage: run.py [--binary PATH] [FILTER...]
  Each case runs `latchkey --in-memory --seed 1 --clock manual`, or the arguments listed one per
  line in NAME.args beside it. The input file is fed as raw bytes (so Content-Length framing,
  broken UTF-8 and oversized lines can be tested too).
  LATCHKEY_RECORD=1 (or `make golden-record [FILTER=...]`) re-records each .out.jsonl from the
  current binary and then exits 3, so a run that recorded never passes: review the diff, then
  run again without it.
  NAME.description (optional) says what the case walks, and which seed it comes from; it is
  printed when the case fails.
"""
import difflib, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_ARGS = ["--in-memory", "--seed", "1", "--clock", "manual"]


def cases(filters):
    for root, _, files in os.walk(HERE):
        for name in sorted(files):
            if not name.endswith(".in.jsonl"):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, HERE)[: -len(".in.jsonl")]
            if filters and not any(f in rel for f in filters):
                continue
            yield rel, path[: -len(".in.jsonl")]


def run_case(binary, base):
    args = DEFAULT_ARGS
    if os.path.exists(base + ".args"):
        with open(base + ".args") as f:
            args = [line.rstrip("\n") for line in f if line.strip()]
    with open(base + ".in.jsonl", "rb") as f:
        data = f.read()
    proc = subprocess.run([binary] + args, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


def main():
    argv = sys.argv[1:]
    binary = os.environ.get("LATCHKEY_BIN") or os.path.join(HERE, "..", "..", ".build", "debug", "latchkey")
    if argv[:1] == ["--binary"]:
        binary, argv = argv[1], argv[2:]
    record = os.environ.get("LATCHKEY_RECORD") == "1"
    passed = failed = recorded = 0
    for rel, base in sorted(cases(argv)):
        code, out, err = run_case(binary, base)
        expected_path = base + ".out.jsonl"
        if record and code == 0:
            before = open(expected_path, "rb").read() if os.path.exists(expected_path) else None
            if before != out:
                with open(expected_path, "wb") as f:
                    f.write(out)
                recorded += 1
                print(f"RECORDED {rel}")
        expected = open(expected_path, "rb").read() if os.path.exists(expected_path) else None
        if code == 0 and expected == out:
            passed += 1
            continue
        failed += 1
        print(f"FAIL {rel} (exit {code})")
        if os.path.exists(base + ".description"):
            print("  " + open(base + ".description").read().strip().replace("\n", "\n  "))
        if expected is None:
            print("  no .out.jsonl: record it with `make golden-record FILTER=...`")
        else:
            diff = difflib.unified_diff(expected.decode("utf-8", "replace").splitlines(),
                                        out.decode("utf-8", "replace").splitlines(),
                                        "expected", "actual", lineterm="", n=1)
            for line in list(diff)[:40]:
                print("  " + line)
        if err:
            print("  stderr: " + err.decode("utf-8", "replace")[-600:])
    print(f"golden: {passed} passed, {failed} failed")
    if failed or passed == 0:
        sys.exit(1)
    if record:
        print(f"golden: recorded with LATCHKEY_RECORD=1 ({recorded} rewritten): review `git diff Tests/golden`, "
              "then run again without it")
        sys.exit(3)


if __name__ == "__main__":
    main()
