#!/usr/bin/env python3
"""Kernel variants of one binary, measured in alternating runs (sessions 17+).

Reads PREFIX-<label>.json.gz for every label given, where a label is the
variant (one character) followed by the run (0a, 0b, 3a: variant 0 run a,
...), and prints, per (matrix, precision), ALGORITHM's time in every run,
then the best time of the base variant over the best of each other variant
(> 1: the other is faster) and, where a run measured it, cuSPARSE's CSR ALG1
over each variant.
Ends with the geometric means per precision.

e.g. variant_summary.py bench/results/merge-var-NVIDIA-H100-20261127-s17-94b6ced 0 0a 0b 1a 2a 3a 3b
"""
import argparse
import collections
import math
import sys

from spmm_auto_summary import load


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("prefix")
    ap.add_argument("base", help="the variant the others are compared with (one character)")
    ap.add_argument("labels", nargs="+", help="variant and run: 0a, 0b, 3a, ...")
    ap.add_argument("--algorithm", default="merge_path")
    a = ap.parse_args()
    if any(len(label) < 2 for label in a.labels):
        ap.error("each label is a one-character variant and a run, e.g. 0a")
    if a.base not in {label[0] for label in a.labels}:
        ap.error(f"base {a.base!r} is not the variant of any label")
    runs, alg1 = {}, {}
    for label in a.labels:
        runs[label] = {}
        for r in load(f"{a.prefix}-{label}.json.gz")["records"]:
            if r["status"] != "ok":
                continue
            key = (r["matrix"], r["precision"])
            if r["algorithm"] == a.algorithm:
                runs[label][key] = r["time_s"] * 1e6
            elif r["algorithm"] == "cusparse_csr_alg1":
                alg1[key] = min(alg1.get(key, math.inf), r["time_s"] * 1e6)
    variants = sorted({label[0] for label in a.labels})
    others = [v for v in variants if v != a.base]
    keys = sorted(set.intersection(*(set(t) for t in runs.values())), key=lambda k: (k[1], k[0]))
    if not keys:
        sys.exit(f"no (matrix, precision) with {a.algorithm} measured in every run")
    print(f"{'matrix':28s} prec " + " ".join(f"{label:>7s}" for label in a.labels) +
          "".join(f" {a.base + '/' + v:>6s}" for v in others) +
          ("".join(f" {'A1/' + v:>6s}" for v in variants) if alg1 else ""))
    logs = collections.defaultdict(lambda: collections.defaultdict(list))
    for k in keys:
        best = {v: min(runs[label][k] for label in a.labels if label[0] == v) for v in variants}
        line = f"{k[0]:28s} {k[1]}  " + " ".join(f"{runs[label][k]:7.1f}" for label in a.labels)
        for v in others:
            line += f" {best[a.base] / best[v]:6.3f}"
            logs[k[1]][v].append(math.log(best[a.base] / best[v]))
        if k in alg1:
            line += "".join(f" {alg1[k] / best[v]:6.2f}" for v in variants)
        print(line)
    for p in sorted(logs):
        print(f"{p}: geomean " + ", ".join(
            f"{a.base}/{v} {math.exp(sum(x) / len(x)):.3f}" for v, x in logs[p].items()) +
              f" over {len(keys) // len(logs)} matrices")


if __name__ == "__main__":
    main()
