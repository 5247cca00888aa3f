#!/usr/bin/env python3
"""Leave-one-family-out check of the advisor's CPU model (docs/advisor.md).

For each family (the matrices' `group`: stencil3d, fem, road, real, ...) of
the calibration run, calibrates the table (bench/advisor/calibrate.py) from
the calibration run without that family's matrices, and replays it
(bench/advisor/replay.py) on the evaluation run's matrices of that family
only; every matrix is thus judged by a model that saw neither its run nor
its family. Prints, per precision and N, the geometric mean and the worst of
oracle / pick over all the matrices, next to the same replay of the table
calibrated on the whole calibration run, and the families where they differ
most. --no-scatter sets every matrix's scatter to 0 (the model without the
locality term, for comparison).

usage: lofo.py [--stats CSV]... [--no-scatter] CALIBRATION.json EVALUATION.json
"""
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from calibrate import load, read_scatter, split_args, table  # noqa: E402
from replay import replay  # noqa: E402


def summary(results):
    """{(precision, N): (geomean, worst, matrix)} of {(precision, N): [(ratio, matrix, pick)]}."""
    out = {}
    for k, v in results.items():
        gm = math.exp(sum(math.log(x[0]) for x in v) / len(v))
        worst = min(v)
        out[k] = (gm, worst[0], worst[1])
    return out


def main(argv):
    opts, on, paths = split_args(argv, flags=("--no-scatter",))
    if len(paths) != 2:
        sys.exit(__doc__)
    side, no_scatter = read_scatter(opts["--stats"]), on["--no-scatter"]
    cal, ev = load(paths[0]), load(paths[1])
    if no_scatter:
        side = {name: 0.0 for name in side}
        for d in (cal, ev):
            for m in d["matrices"]:
                m["stats"]["scatter"] = 0.0
    families = sorted({m["group"] for m in cal["matrices"] if not m["error"]})
    whole = replay(table([(paths[0], cal)], side), ev, side)[0]
    left_out = {}
    per_family = {}
    for fam in families:
        names = {m["name"] for m in cal["matrices"] if m["group"] == fam}
        rest = dict(cal, matrices=[m for m in cal["matrices"] if m["name"] not in names],
                    records=[r for r in cal["records"] if r["matrix"] not in names])
        res = replay(table([(paths[0], rest)], side), ev, side, groups={fam})[0]
        for k, v in res.items():
            left_out.setdefault(k, []).extend(v)
        per_family[fam] = summary(res)
    a, b = summary(whole), summary(left_out)
    print("{} ({} families{})".format(paths[1], len(families),
                                      ", scatter set to 0" if no_scatter else ""))
    print("  prec     N   whole calibration run        family left out")
    for k in sorted(a):
        print("  {} {:5d}   {:.3f}, worst {:.3f}         {:.3f}, worst {:.3f} ({})".format(
            k[0], k[1], a[k][0], a[k][1], b[k][0], b[k][1], b[k][2]))
    print("  per family, family left out (geomean at N = 100 / 1000):")
    for fam in families:
        s = per_family[fam]
        print("    {:<10} f64 {:.3f} / {:.3f}   f32 {}".format(
            fam, s[("f64", 100)][0], s[("f64", 1000)][0],
            "{:.3f} / {:.3f}".format(s[("f32", 100)][0], s[("f32", 1000)][0])
            if ("f32", 100) in s else "-"))


if __name__ == "__main__":
    main(sys.argv[1:])
