#!/usr/bin/env python3
"""Kernel times of one run (the base) against others of the same members:
base time / variant time per (matrix, precision, format, algorithm) SpMV
record measured in all runs, then the geomean and the least per (format,
precision). Usage: ab_summary.py BASE.json[.gz] VARIANT.json[.gz]..."""
import math
import sys
from collections import defaultdict

from spmm_auto_summary import load


def times(path):
    out = {}
    for r in load(path)["records"]:
        if r["status"] == "ok" and r["op"] == "spmv":
            out[(r["matrix"], r["precision"], r["format"], r["algorithm"])] = r["time_s"] * 1e6
    return out


def main(paths):
    runs = [times(p) for p in paths]
    base, rest = runs[0], runs[1:]
    by = defaultdict(list)
    head = "".join(" %8s" % ("v%d" % (i + 1)) for i in range(len(rest)))
    print("%-26s %-4s %-10s %-20s %10s%s" % ("matrix", "prec", "format", "algorithm", "base us", head))
    for k in sorted(base):
        if not all(k in r for r in rest):
            continue
        ratios = [base[k] / r[k] for r in rest]
        print("%-26s %-4s %-10s %-20s %10.1f%s" % (*k, base[k], "".join(" %8.3f" % x for x in ratios)))
        by[(k[2], k[1])].append(ratios)
    print("\nbase / variant per (format, precision): geomean (least)")
    for k, v in sorted(by.items()):
        cols = []
        for i in range(len(rest)):
            xs = [r[i] for r in v]
            g = math.exp(sum(map(math.log, xs)) / len(xs))
            cols.append("%.3f (%.3f)" % (g, min(xs)))
        print("  %-10s %-4s %3d  %s" % (k[0], k[1], len(v), "   ".join(cols)))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1:])
