#!/usr/bin/env python3
"""Checks the netns.csv of `rdsm-bench netns` (the bench.netns_quick test): every row the mode promises is
there for the PE counts asked, with positive figures, its ratio equal to rdsm / reference, and its result
the one its target gives. Usage: check_netns.py <netns.csv> <PE counts, comma-separated>"""
import csv, math, sys

LINK_ROWS = [  # (operation, size, target): the 1 + 1 rows against ucx_perftest
    ("put latency (8-byte put ping-pong, one way)", 8, "<= 1.15"),
    ("get latency", 8, "<= 1.15"),
    ("fetch_add latency", 8, "<= 1.15"),
    ("put bandwidth", 1 << 20, ">= 0.9"),
    ("get bandwidth", 1 << 20, ">= 0.9"),
    ("put_signal (ping-pong, one way)", 8, "-"),
    ("barrier_all", 0, "<= 1.3"),
]
COLLECTIVES = ("broadcast", "fcollect", "alltoall", "reduce_sum")


def fail(msg):
    sys.exit(f"check_netns: {msg}")


def main():
    path, pes = sys.argv[1], [int(x) for x in sys.argv[2].split(",")]
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        fail(f"{path} has no rows")
    by_key = {}
    for r in rows:
        key = (r["operation"], int(r["size"]), int(r["pes"]))
        val, ref, ratio = float(r["rdsm"]), float(r["reference_value"]), float(r["ratio"])
        if not (val > 0 and ref > 0 and math.isfinite(val) and math.isfinite(ref)):
            fail(f"{key}: figures {val}, {ref} are not positive")
        if abs(ratio - val / ref) > 0.01 * ratio:
            fail(f"{key}: ratio {ratio} is not rdsm / reference = {val / ref:.4g}")
        if r["target"] == "-":
            if r["result"] != "(info)":
                fail(f"{key}: no target but result {r['result']}")
        else:
            kind, bound = r["target"].split()
            met = ratio <= float(bound) if kind == "<=" else ratio >= float(bound)
            if r["result"] != ("met" if met else "MISSED"):
                fail(f"{key}: ratio {ratio} against {r['target']} is reported {r['result']}")
        by_key[key] = r
    for op, size, target in LINK_ROWS:
        r = by_key.get((op, size, 2))
        if r is None or r["target"] != target:
            fail(f"missing 1 + 1 row '{op}' {size} B with target {target}")
    for p in pes:
        if ("barrier_all", 0, p) not in by_key:
            fail(f"no barrier_all row at {p} PEs")
        for c in COLLECTIVES:
            sizes = sorted(k[1] for k in by_key if k[0] == c and k[2] == p)
            if not sizes or sizes[0] != 8 or sizes[-1] != 1 << 20:
                fail(f"{c} at {p} PEs: sizes {sizes}, expected 8 B to 1 MiB")
            if any(not by_key[(c, s, p)]["one_host"] or float(by_key[(c, s, p)]["one_host"]) <= 0 for s in sizes):
                fail(f"{c} at {p} PEs: a row without the one-host figure")
            if any(by_key[(c, s, p)]["target"] != "<= 1.3" for s in sizes):
                fail(f"{c} at {p} PEs: a row without the model's target")
    print(f"check_netns: {len(rows)} rows ok")


if __name__ == "__main__":
    main()
