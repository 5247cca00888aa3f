#!/usr/bin/env python3
"""CSR SpMV Auto over `spx bench --formats csr` runs (issue 16).

For every (matrix, precision) with SpX CSR kernels, an Auto choice (the
record marked auto_choice) and cuSPARSE's CSR ALG1: Auto's pick against the
fastest SpX CSR kernel (within 5%?) and against ALG1 (the issue's targets:
>= 1.0x on every member, >= 1.15x on its eight irregular cases), and SpX's
best CSR kernel against cuSPARSE's best CSR algorithm. Later files override
earlier ones for the same (matrix, precision).

Usage: csr_auto_summary.py RUN.json[.gz] [RUN.json[.gz] ...]
"""
import collections
import math
import sys

from spmm_auto_summary import cli, load

# The eight cases (issue 16, "Targets").
EIGHT = {("rmat-s21-d8", "f64"), ("chunglu-n2500000-d8", "f64"), ("mixed-n2000000", "f32"),
         ("denserows-n2000000-d8-r4", "f32"), ("rmat-s17-d8", "f64"), ("mixed-n100000", "f64"),
         ("denserows-n100000-d8-r4", "f64"), ("chunglu-n125000-d8", "f32")}


def main(paths):
    spx = collections.defaultdict(dict)
    cus = collections.defaultdict(dict)
    auto = {}
    for path in paths:
        for r in load(path)["records"]:
            if r["status"] != "ok" or r.get("op", "spmv") != "spmv" or r["format"] != "csr":
                continue
            key = (r["matrix"], r["precision"])
            if r["baseline"]:
                cus[key][r["algorithm"]] = r["time_s"]
            else:
                spx[key][r["algorithm"]] = r["time_s"]
                if r.get("auto_choice"):
                    auto[key] = r["algorithm"]
    keys = sorted((k for k in spx if k in auto and "cusparse_csr_alg1" in cus.get(k, {})),
                  key=lambda k: (k[1], k[0]))
    if not keys:
        sys.exit("no (matrix, precision) with SpX CSR kernels, an Auto choice and cuSPARSE's ALG1")
    print(f"{'matrix':28s} prec {'Auto':>12s} {'us':>8s} {'best SpX':>12s} {'us':>8s}"
          f" {'ALG1 us':>8s} {'ALG1/Auto':>9s} {'cuSP/best':>9s}")
    hits, below, logs = 0, [], collections.defaultdict(list)
    for k in keys:
        t = spx[k]
        best_alg = min(t, key=t.get)
        picked = t[auto[k]]
        alg1 = cus[k]["cusparse_csr_alg1"]
        cbest = min(cus[k].values())
        hits += picked <= 1.05 * t[best_alg]
        ratio = alg1 / picked
        logs[k[1]].append(math.log(ratio))
        if ratio < 1.0:
            below.append((ratio, k))
        mark = " *" if k in EIGHT else ""
        print(f"{k[0]:28s} {k[1]}  {auto[k]:>12s} {picked * 1e6:8.1f} {best_alg:>12s}"
              f" {t[best_alg] * 1e6:8.1f} {alg1 * 1e6:8.1f} {ratio:9.3f} {cbest / t[best_alg]:9.3f}{mark}")
    n = len(keys)
    print(f"\n(matrix, precision) cases: {n}; * = the issue's eight cases")
    print(f"Auto within 5% of the fastest SpX CSR kernel: {hits} ({100 * hits / n:.1f}%)")
    for p, v in sorted(logs.items()):
        print(f"{p}: geomean ALG1 / Auto {math.exp(sum(v) / len(v)):.3f} over {len(v)}")
    print(f"Auto below ALG1: {len(below)} of {n}")
    for ratio, k in sorted(below):
        print(f"  {k[0]:28s} {k[1]} {ratio:.3f}")


if __name__ == "__main__":
    cli(__doc__, main)
