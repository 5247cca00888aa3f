#!/usr/bin/env python3
"""Session 16: CSR merge path, the predicated loop (new) against main's
kernel before it (old), from the four alternating runs of one binary
(merge-pred-*-{old1,new1,old2,new2}.json.gz). Prints, per member and
precision, each run's time, old/new (best of two each), binned, cuSPARSE's
CSR ALG1 and ALG2 (best of four), and ALG1 over new, old and the better of
new and binned. Usage: merge_pred_summary.py PREFIX (the files' path up to
"-old1.json.gz")."""
import gzip
import json
import sys


def load(path):
    with gzip.open(path, "rt") as f:
        records = json.load(f)["records"]
    return {(r["matrix"], r["precision"], r["algorithm"]): r["time_s"] * 1e6
            for r in records if r["status"] == "ok"}


runs = {k: load(f"{sys.argv[1]}-{k}.json.gz") for k in ("old1", "old2", "new1", "new2")}
print(f"{'matrix':26s} prec {'old1':>7s} {'old2':>7s} {'new1':>7s} {'new2':>7s} old/new"
      f" | {'binned':>6s} {'alg1':>6s} {'alg2':>6s} | alg1/new alg1/old alg1/best(new,binned)")
for m, p in sorted({(m, p) for m, p, _ in runs["new1"]}):
    t = {k: runs[k][(m, p, "merge_path")] for k in runs}
    best = lambda alg: min(r.get((m, p, alg), float("inf")) for r in runs.values())
    old, new = min(t["old1"], t["old2"]), min(t["new1"], t["new2"])
    binned, a1, a2 = best("binned"), best("cusparse_csr_alg1"), best("cusparse_csr_alg2")
    print(f"{m:26s} {p}  {t['old1']:7.1f} {t['old2']:7.1f} {t['new1']:7.1f} {t['new2']:7.1f}"
          f" {old / new:7.3f} | {binned:6.1f} {a1:6.1f} {a2:6.1f} | {a1 / new:8.2f} {a1 / old:8.2f}"
          f" {a1 / min(new, binned):8.2f}")
