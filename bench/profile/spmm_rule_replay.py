#!/usr/bin/env python3
"""Replays the CUDA CSR SpMM Auto rule on measured times (issue 16).

Reads `spx bench --op spmm --formats csr` runs (as spmm_auto_summary.py:
later files override earlier ones for the same (matrix, precision, n) and
kernel) and the statistics the rule reads, per (matrix, precision, n), from
the CSV of bench/profile/spmm-rule-stats.cpp. For the rule before issue 16
(session 12) and the rule after it (session 13), prints how often each
picks a kernel within 5% of the fastest SpX CSR kernel, per n, the misses,
and the cases where the two rules pick differently. The old rule's replay
is checked against the runs' recorded Auto choices.

This is a replay of times measured with the old rule's kernels; it says
nothing about timings the runs did not measure (the row panel kernel ran
with panel_plan's R only), and the new rule has to be measured on the GPU.

few_rows and fits_l2 come from the CSV (computed for the H100 the runs were
measured on); the new rule's count of warps is checked against the same
H100: 132 SMs x 2048 resident threads.

Usage:
  spmm_rule_replay.py --stats STATS.csv RUN.json[.gz] ...
  spmm_rule_replay.py --stats STATS.csv --sweep RUN.json[.gz] ...
      (hits of the new rule over a grid of its two new thresholds)
  spmm_rule_replay.py --names RUN.json[.gz] ...
      (the matrices the runs measured, for spmm-rule-stats)
"""
import argparse
import collections
import csv
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import spmm_auto_summary  # noqa: E402  (the runs' SpMM records, read as the summary reads them)

H100_RESIDENT_THREADS = 132 * 2048
WARP = 32
HIT = 1.05  # within 5% of the fastest SpX CSR kernel, as spmm_auto_summary.py

# The session 12 rule (src/cuda/spmm.hpp before issue 16).
MERGE_THRESHOLD = 9.35
MERGE_CACHED_THRESHOLD = 5.5
PANEL_WORTH_IT = 0.6
PANEL_NEAR_RATIO = 1.1
PANEL_MIN_MEAN = 6.0
PANEL_MAX_MEAN = 16.0
# The session 13 additions (src/cuda/spmm.hpp).
PANEL_SHORT_RATIO = 0.9
PANEL_FEW_WARPS_RATIO = 0.4


def load_runs(paths):
    """(times[key][algorithm], auto[key], keys) from spmm_auto_summary.py."""
    spx, _, auto, _, keys = spmm_auto_summary.load_runs(paths)
    return spx, auto, keys


def load_stats(path):
    out = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            s = {k: row[k] for k in ("matrix", "precision")}
            for k in ("n", "rows", "nnz", "max_row", "bytes", "u2", "u4", "u8", "panel_rows"):
                s[k] = int(row[k])
            for k in ("mean_row", "panel_ratio"):
                s[k] = float(row[k])
            for k in ("few_rows", "irregular_rows", "fits_l2", "panel_worth_it"):
                s[k] = row[k] == "1"
            out[(s["matrix"], s["precision"], s["n"])] = s
    return out


def narrow(s, n):
    """choose_spmm (unchanged by issue 16)."""
    if s["few_rows"]:
        return "row_split"
    if s["irregular_rows"]:
        return "merge_based"
    mean = s["mean_row"]
    if n <= 16 and (mean < MERGE_CACHED_THRESHOLD or (mean < MERGE_THRESHOLD and not s["fits_l2"])):
        return "merge_based"
    return "row_split"


def old_worth_it(s):
    r, mean = s["panel_ratio"], s["mean_row"]
    return r < PANEL_WORTH_IT or (r < PANEL_NEAR_RATIO and PANEL_MIN_MEAN <= mean <= PANEL_MAX_MEAN)


def panel_warps(s, n):
    """Warps of the row panel kernel: panels x column tiles (spmm_tile.cuh:
    tiles of 32 columns up to n = 32, of 64 up to 64, else of 128)."""
    panels = -(-s["rows"] // s["panel_rows"])
    tile = 32 if n <= 32 else 64 if n <= 64 else 128
    return panels * -(-n // tile)


def new_worth_it(s, n, short_ratio=PANEL_SHORT_RATIO, few_warps_ratio=PANEL_FEW_WARPS_RATIO):
    r, mean = s["panel_ratio"], s["mean_row"]
    if panel_warps(s, n) * WARP <= H100_RESIDENT_THREADS:
        return r < few_warps_ratio
    return (r < PANEL_WORTH_IT or (r < PANEL_NEAR_RATIO and PANEL_MIN_MEAN <= mean <= PANEL_MAX_MEAN)
            or (r < short_ratio and mean < PANEL_MIN_MEAN))


def rule(s, n, worth_it):
    """register_spmm.cu's lambda: row panel before choose_spmm's rule 2."""
    if not s["few_rows"] and n > 16 and not s["irregular_rows"] and worth_it(s, n):
        return "row_panel"
    return narrow(s, n)


def old_rule(s, n):
    return rule(s, n, lambda s, n: old_worth_it(s))


def new_rule(s, n, **kw):
    return rule(s, n, lambda s, n: new_worth_it(s, n, **kw))


def evaluate(keys, spx, stats, choose):
    per_n = collections.defaultdict(lambda: [0, 0])
    picks, misses = {}, []
    for k in keys:
        t = spx[k]
        best_alg = min(t, key=t.get)
        pick = choose(stats[k], k[2])
        picks[k] = pick
        per_n[k[2]][1] += 1
        if t[pick] <= HIT * t[best_alg]:
            per_n[k[2]][0] += 1
        else:
            misses.append((t[pick] / t[best_alg], k, pick, best_alg))
    return per_n, picks, sorted(misses, reverse=True)


def report(name, keys, per_n, misses, stats):
    hits = sum(h for h, _ in per_n.values())
    print(f"{name}: {hits} of {len(keys)} within 5% ({100 * hits / len(keys):.1f}%)")
    for width in sorted(per_n):
        h, t = per_n[width]
        print(f"  n = {width:4d}: {h} of {t}")
    if misses:
        g = math.exp(sum(math.log(m[0]) for m in misses) / len(misses))
        print(f"  misses: {len(misses)}, geomean {g:.2f}x, worst {misses[0][0]:.2f}x")
    for ratio, k, a, b in misses:
        s = stats[k]
        print(f"    {k[0]:26s} {k[1]} n={k[2]:<4d} {a:12s} {ratio:.2f}x of {b:12s}"
              f" (rows {s['rows']}, mean {s['mean_row']:.1f}, R {s['panel_rows']},"
              f" ratio {s['panel_ratio']:.3f})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--stats", help="CSV of bench/profile/spmm-rule-stats.cpp")
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--names", action="store_true")
    a = ap.parse_args()
    spx, auto, keys = load_runs(a.runs)
    if a.names:
        print(" ".join(sorted({k[0] for k in keys})))
        return
    if not a.stats:
        ap.error("--stats is required")
    stats = load_stats(a.stats)
    missing = [k for k in keys if k not in stats]
    if missing:
        raise SystemExit(f"no statistics for {len(missing)} cases, e.g. {missing[0]}")

    per_old, old_picks, old_misses = evaluate(keys, spx, stats, old_rule)
    wrong = [k for k in keys if old_picks[k] != auto[k]]
    print(f"old rule replayed: {len(keys) - len(wrong)} of {len(keys)} picks as the runs recorded")
    for k in wrong:
        print(f"  {k}: replay {old_picks[k]}, run {auto[k]}")

    if a.sweep:
        print("hits of the new rule: rows PANEL_SHORT_RATIO, columns PANEL_FEW_WARPS_RATIO")
        few = [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6]
        print("       " + " ".join(f"{f:5.2f}" for f in few))
        for short in [0.6, 0.7, 0.75, 0.8, 0.85, 0.875, 0.9, 0.925, 0.95, 1.0, 1.1]:
            cells = []
            for f in few:
                per_n, _, _ = evaluate(
                    keys, spx, stats, lambda s, n: new_rule(s, n, short_ratio=short, few_warps_ratio=f))
                cells.append(sum(h for h, _ in per_n.values()))
            print(f"  {short:5.3f} " + " ".join(f"{c:5d}" for c in cells))
        return

    per_new, new_picks, new_misses = evaluate(keys, spx, stats, new_rule)
    report("old rule (session 12)", keys, per_old, old_misses, stats)
    report("new rule (session 13)", keys, per_new, new_misses, stats)
    print("cases the rules decide differently (time of the new pick / the old pick):")
    for k in keys:
        if old_picks[k] != new_picks[k]:
            t = spx[k]
            best = min(t.values())
            print(f"  {k[0]:26s} {k[1]} n={k[2]:<4d} {old_picks[k]:12s} -> {new_picks[k]:12s}"
                  f" {t[new_picks[k]] / t[old_picks[k]]:.2f}"
                  f" (old {t[old_picks[k]] / best:.2f}x, new {t[new_picks[k]] / best:.2f}x of the best)")


if __name__ == "__main__":
    main()
