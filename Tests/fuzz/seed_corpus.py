#!/usr/bin/env python3
"""Seeds a fuzz corpus from the golden transcripts.

usage: seed_corpus.py DIR [all|lines]
  all   - each transcript whole, and each of its lines (the default)
  lines - each line alone (short inputs: many more executions per second)
"""
import glob, hashlib, os, sys

out = sys.argv[1]
kind = sys.argv[2] if len(sys.argv) > 2 else "all"
if kind not in ("all", "lines"):
    sys.exit(f"seed_corpus.py: unknown seed kind {kind!r} (all or lines)")
limit = 512 if kind == "lines" else 8192
os.makedirs(out, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
count = 0
for path in sorted(glob.glob(os.path.join(here, "..", "golden", "**", "*.in.jsonl"), recursive=True)):
    data = open(path, "rb").read()
    pieces = data.split(b"\n") + ([data] if kind == "all" else [])
    for piece in pieces:
        if not piece.strip() or len(piece) > limit:
            continue
        name = hashlib.sha1(piece).hexdigest()
        with open(os.path.join(out, name), "wb") as f:
            f.write(piece)
        count += 1
print(f"corpus: {count} seeds ({kind}) from the golden files")
