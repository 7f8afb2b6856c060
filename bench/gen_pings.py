#!/usr/bin/env python3
"""Write N JSON-RPC ping requests, one per line, to stdout (or to --out FILE).

    {"jsonrpc":"2.0","id":i,"method":"ping","params":{"echo":"hello"}}   for i = 1..N
"""
import argparse
import sys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("n", type=int, help="number of requests")
    ap.add_argument("--out", help="write here instead of stdout")
    args = ap.parse_args()
    if args.n < 0:
        ap.error("N must be >= 0")
    template = '{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"echo":"hello"}}\n'
    data = "".join(template % i for i in range(1, args.n + 1)).encode()
    if args.out:
        with open(args.out, "wb") as f:
            f.write(data)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
