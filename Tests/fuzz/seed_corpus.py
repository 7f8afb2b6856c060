#!/usr/bin/env python3
"""Seeds the fuzz corpus from the golden transcripts: each input file, and each of its lines."""
import glob, hashlib, os, sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
count = 0
for path in glob.glob(os.path.join(here, "..", "golden", "**", "*.in.jsonl"), recursive=True):
    data = open(path, "rb").read()
    pieces = [data] + data.split(b"\n")
    for piece in pieces:
        if not piece.strip() or len(piece) > 8192:
            continue
        name = hashlib.sha1(piece).hexdigest()
        with open(os.path.join(out, name), "wb") as f:
            f.write(piece)
        count += 1
print(f"corpus: {count} seeds from the golden files")
