#!/usr/bin/env python3
"""Compares two `spx bench` JSON files of the same suite on the same device:
every SpX kernel's speed-up over the best baseline (cuSPARSE, Eigen) measured
in the same run, before and after a change.

    python3 bench/compare.py BEFORE.json AFTER.json [--json OUT] [--slower 0.10]

For each SpX record measured in both runs (key: op, matrix, precision, n,
layout, format, algorithm) it prints the ratio
    (speed-up over the best baseline, after) / (the same, before),
so drift of the GPU between the runs cancels as far as it hits SpX and the
baseline alike. Ratios above 1 mean the kernel gained. The summary gives the
geometric mean over all kernels, per precision, and every kernel more than
--slower (default 10%) slower. Exit status 0 whatever the result: it reports,
it does not judge. Standard library only.
"""

import argparse
import json
import math
import sys


def key_of(r):
    return (r.get("op") or "spmv", r["matrix"], r["precision"], r.get("n_cols"), r.get("layout"))


def speedups(doc):
    """{(op, matrix, precision, n, layout, format, algorithm): (time, speed-up)}."""
    best_base = {}
    for r in doc["records"]:
        if r.get("status") == "ok" and r.get("baseline") and r.get("time_s"):
            k = key_of(r)
            best_base[k] = min(best_base.get(k, math.inf), r["time_s"])
    out = {}
    for r in doc["records"]:
        if r.get("status") != "ok" or r.get("baseline") or not r.get("time_s"):
            continue
        k = key_of(r)
        if k not in best_base:
            continue
        out[k + (r["format"], r["algorithm"])] = (r["time_s"], best_base[k] / r["time_s"])
    return out


def geomean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--json", help="write the comparison here")
    ap.add_argument("--slower", type=float, default=0.10,
                    help="list kernels whose speed-up fell by more than this fraction")
    a = ap.parse_args()
    docs = []
    for path in (a.before, a.after):
        with open(path) as f:
            docs.append(json.load(f))
    before, after = (speedups(d) for d in docs)
    common = sorted(set(before) & set(after), key=str)
    if not common:
        sys.exit("compare: no SpX kernel was measured in both runs")
    rows = []
    for k in common:
        (tb, sb), (ta, sa) = before[k], after[k]
        rows.append({"op": k[0], "matrix": k[1], "precision": k[2], "n_cols": k[3],
                     "layout": k[4], "format": k[5], "algorithm": k[6],
                     "time_before_s": tb, "time_after_s": ta,
                     "speedup_before": sb, "speedup_after": sa, "ratio": sa / sb})
    runs = [d["run"] for d in docs]
    print(f"before: commit {runs[0].get('commit')} on {runs[0]['device']['name']}, "
          f"copy {runs[0].get('copy_gbs', 0):.0f} GB/s")
    print(f"after:  commit {runs[1].get('commit')} on {runs[1]['device']['name']}, "
          f"copy {runs[1].get('copy_gbs', 0):.0f} GB/s")
    only = (len(before) - len(common), len(after) - len(common))
    print(f"{len(common)} SpX kernels measured in both runs "
          f"({only[0]} only before, {only[1]} only after)")
    summary = {"kernels": len(common), "only_before": only[0], "only_after": only[1]}
    for prec in sorted({r["precision"] for r in rows}) + ["all"]:
        sel = [r for r in rows if prec in ("all", r["precision"])]
        g = geomean([r["ratio"] for r in sel])
        gt = geomean([r["time_before_s"] / r["time_after_s"] for r in sel])
        print(f"  {prec:>4}: geomean speed-up ratio after/before {g:.4f} "
              f"(raw time ratio before/after {gt:.4f}) over {len(sel)} kernels")
        summary[f"geomean_ratio_{prec}"] = g
        summary[f"geomean_time_ratio_{prec}"] = gt
    slow = sorted((r for r in rows if r["ratio"] < 1 - a.slower), key=lambda r: r["ratio"])
    worst = min(rows, key=lambda r: r["ratio"])
    print(f"worst: {worst['ratio']:.3f} {worst['matrix']} {worst['precision']} "
          f"{worst['format']}/{worst['algorithm']} ({worst['time_before_s'] * 1e6:.1f} -> "
          f"{worst['time_after_s'] * 1e6:.1f} us)")
    print(f"{len(slow)} kernels more than {a.slower:.0%} slower relative to the baseline:")
    for r in slow:
        n = f" n={r['n_cols']}" if r["n_cols"] else ""
        print(f"  {r['ratio']:.3f}  {r['matrix']} {r['precision']}{n} {r['format']}/"
              f"{r['algorithm']}  {r['time_before_s'] * 1e6:.1f} -> {r['time_after_s'] * 1e6:.1f} us")
    summary["slower_than_threshold"] = len(slow)
    summary["worst_ratio"] = worst["ratio"]
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"before": runs[0], "after": runs[1], "summary": summary, "kernels": rows},
                      f, indent=1)


if __name__ == "__main__":
    main()
