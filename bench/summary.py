#!/usr/bin/env python3
"""Prints the benchmark summary from bench/out/{pipelined,latency,coldstart}.json."""
import json
import os
import sys

OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "out")


def load(name):
    try:
        with open(os.path.join(OUT_DIR, f"{name}.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def verdict(ok):
    return "PASS" if ok else "FAIL"


def main() -> int:
    rows = []  # (figure, latchkey, C, ratio/target, verdict)
    p = load("pipelined")
    if p:
        rows.append((
            "pipelined req/s (median)",
            f"{p['latchkey_median']:,.0f}", f"{p['c_echo_median']:,.0f}",
            f"{p['ratio']:.2f}x  (>= 0.90x)", verdict(p["ratio"] >= 0.9),
        ))
    else:
        rows.append(("pipelined req/s (median)", "-", "-", "not run", "n/a"))
    lat = load("latency")
    for mode in ("unpinned", "pinned"):
        m = lat.get(mode) if lat else None
        label = f"latency {mode}"
        if m:
            lk, c = m["latchkey"], m["c-echo"]
            rows.append((
                f"{label} p50 µs", f"{lk['p50_us']:.1f}", f"{c['p50_us']:.1f}",
                f"{m['ratio_p50']:.2f}x  (<= 1.20x)", verdict(m["ratio_p50"] <= 1.2),
            ))
            rows.append((
                f"{label} p99 µs", f"{lk['p99_us']:.1f}", f"{c['p99_us']:.1f}",
                f"{m['ratio_p99']:.2f}x", "",
            ))
        else:
            rows.append((f"{label} p50 µs", "-", "-", "not run", "n/a"))
    cs = load("coldstart")
    if cs:
        lk, c = cs["latchkey"], cs["c-echo"]
        med = lk["median_ms"]
        rows.append((
            "cold start median ms", f"{med:.2f}", f"{c['median_ms']:.2f}",
            "<= 25 ms", verdict(med <= 25),
        ))
        rows.append(("", "", "", "<= 10 ms (stretch)", verdict(med <= 10)))
        rows.append(("cold start p90 ms", f"{lk['p90_ms']:.2f}", f"{c['p90_ms']:.2f}", "", ""))
    else:
        rows.append(("cold start median ms", "-", "-", "not run", "n/a"))

    head = ("figure", "latchkey", "C echo", "latchkey/C, target", "")
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(5)]
    print("== summary")
    for r in [head] + rows:
        print("  " + "  ".join(
            str(v).ljust(w) if i in (0, 3, 4) else str(v).rjust(w) for i, (v, w) in enumerate(zip(r, widths))
        ).rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
