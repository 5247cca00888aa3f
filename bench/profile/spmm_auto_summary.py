#!/usr/bin/env python3
"""CSR SpMM Auto over `spx bench --op spmm --formats csr` runs (issue 16).

For every (matrix, precision, n) with SpX CSR kernels and cuSPARSE
baselines measured: whether the kernel Auto picked (the record marked
auto_choice) is within 5% of the fastest SpX CSR kernel, and how SpX's best
and Auto's pick compare with cuSPARSE's best SpMM algorithm (dense cuBLAS
GEMM, also a baseline of the benchmark, is left out of "cuSPARSE's best").
Later files override earlier ones for the same (matrix, precision, n).

Usage: spmm_auto_summary.py RUN.json[.gz] [RUN.json[.gz] ...]
"""
import collections
import gzip
import json
import math
import sys


def load(path):
    """A benchmark JSON (gzipped when the name ends in .gz); exits with the
    reason when it cannot be read."""
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"{path}: cannot read a benchmark JSON: {e}")


def load_runs(paths):
    """From the runs' SpMM records, later files overriding earlier ones:
    (SpX times[key][algorithm], cuSPARSE times[key][algorithm], Auto's
    pick[key], rows[matrix name], keys with all three), key = (matrix,
    precision, n)."""
    spx = collections.defaultdict(dict)
    cus = collections.defaultdict(dict)
    auto = {}
    rows = {}
    for path in paths:
        doc = load(path)
        for m in doc["matrices"]:
            if m.get("rows"):
                rows[m["name"]] = m["rows"]
        for r in doc["records"]:
            if r["status"] != "ok" or r.get("op") != "spmm":
                continue
            key = (r["matrix"], r["precision"], r["n_cols"])
            if r["baseline"]:
                if r["algorithm"].startswith("cusparse"):
                    cus[key][r["algorithm"]] = r["time_s"]
            else:
                spx[key][r["algorithm"]] = r["time_s"]
                if r.get("auto_choice"):
                    auto[key] = r["algorithm"]
    keys = sorted(k for k in spx if k in auto and cus.get(k))
    return spx, cus, auto, rows, keys


def main(paths):
    spx, cus, auto, rows, keys = load_runs(paths)
    if not keys:
        sys.exit("no (matrix, n) with SpX kernels, an Auto choice and cuSPARSE baselines")
    hits, misses, below_best, below_auto = 0, [], [], []
    per_n = collections.defaultdict(lambda: [0, 0])
    for k in keys:
        times = spx[k]
        best_alg = min(times, key=times.get)
        best = times[best_alg]
        picked = times[auto[k]]
        cbest = min(cus[k].values())
        per_n[k[2]][1] += 1
        if picked <= 1.05 * best:
            hits += 1
            per_n[k[2]][0] += 1
        else:
            misses.append((picked / best, k, auto[k], best_alg))
        if cbest < best:
            below_best.append((cbest / best, k, best_alg, min(cus[k], key=cus[k].get)))
        if cbest < picked:
            below_auto.append(cbest / picked)
    n = len(keys)
    print(f"(matrix, precision, n) cases: {n}")
    print(f"Auto within 5% of the fastest SpX CSR kernel: {hits} ({100 * hits / n:.1f}%)")
    for width in sorted(per_n):
        h, t = per_n[width]
        print(f"  n = {width:4d}: {h} of {t}")
    if misses:
        misses.sort(reverse=True)
        g = math.exp(sum(math.log(m[0]) for m in misses) / len(misses))
        print(f"misses: {len(misses)}, geomean {g:.2f}x slower than the fastest, worst {misses[0][0]:.2f}x")
        for ratio, k, a, b in misses:
            print(f"  {k[0]:28s} {k[1]} n={k[2]:<4d} Auto {a:12s} {ratio:.2f}x of {b}"
                  f" ({rows.get(k[0], 0)} rows)")
    print(f"SpX's best below cuSPARSE's best: {len(below_best)} of {n}")
    print(f"Auto's pick below cuSPARSE's best: {len(below_auto)} of {n}")
    below_best.sort()
    for ratio, k, b, c in below_best:
        print(f"  {k[0]:28s} {k[1]} n={k[2]:<4d} {b:12s} {ratio:.3f} of {c} ({rows.get(k[0], 0)} rows)")


def cli(doc, run):
    """The command line of the summaries over runs: run(paths), or the usage
    in doc (the module's docstring) for -h or no argument."""
    if len(sys.argv) < 2:
        sys.exit(doc)
    if sys.argv[1] in ("-h", "--help"):
        print(doc.strip())
        sys.exit(0)
    run(sys.argv[1:])


if __name__ == "__main__":
    cli(__doc__, main)
