#!/usr/bin/env python3
"""Replays the advisor's tuning (docs/advisor.md, "Tuning's budget") on
committed CUDA `spx bench` JSON: the model's predictions as replay.py makes
them (replay(..., collect)), the candidates as spx::tuning_candidates takes
them under two rules, and the tuned total as the bench's emulate_tuning
charges it (each measured format converted once, `RUNS` products of each
candidate, then N products of the one of least measured product time), from
the run's own measurements. The oracle is replay.py's: the least measured
total of any SpX kernel (reduced-precision formats apart). For N = 100 and
1000 it prints geomean / worst of oracle / total for the model alone and
for each rule, with the number of members tuned:
- "before": sessions 14-24, the 3 best within 1.5x, tuned only when what
  measuring all of them adds is within 5% of the pick's predicted total;
- "s25": session 25, taken best first while what they add stays within 2%,
  a candidate past it skipped (a cheaper one after it may still be taken);
- "now": session 27, the same, each kernel measured once (the SELL family's
  ThreadsPerRow with threads_per_row = 1 is its ThreadPerRow kernel).

usage: tune_replay.py [--table INC] FILE.json...
"""
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from calibrate import load, read_scatter, split_args  # noqa: E402
from replay import TABLE, replay  # noqa: E402

RUNS = 6  # bench::kAdvisorTuneProducts: one warm-up and five timed
COUNT, WITHIN = 3, 1.5


SELL_FAMILY = ("sell", "sell_lp", "sell_pack")
LANES = ("thread_per_row", "threads_per_row")


def same_kernel(a, b, dedupe):
    """spx's same_kernel for the suite's CUDA runs (threads_per_row = 1):
    the SELL family's two one-lane SpMV kernels are one."""
    if a["f"] != b["f"]:
        return False
    if a["a"] == b["a"]:
        return True
    return dedupe and a["f"] in SELL_FAMILY and a["a"] in LANES and b["a"] in LANES


def candidates(cands, pick, budget, skip, dedupe=False):
    """The candidates measured (best first, within WITHIN x the pick's
    predicted total, at most COUNT), what measuring them adds counted as
    spx::tuning_candidates counts it. skip: one that would take the cost
    past the budget is passed over (none when it is the pick); else all or
    nothing. Empty when fewer than two."""
    out, made, cost = [], {pick["f"]}, 0.0
    for c in cands:
        if len(out) == COUNT:
            break
        if c["total"] > WITHIN * pick["total"]:
            continue
        if any(same_kernel(o, c, dedupe) for o in out):
            continue
        convert = c["f"] not in made
        add = RUNS * c["pt"] + (c["pc"] if convert else 0.0)
        if skip and cost + add > budget * pick["total"]:
            if c is pick:
                return []
            continue
        out.append(c)
        cost += add
        if convert:
            made.add(c["f"])
    return out if len(out) >= 2 and cost <= budget * pick["total"] else []


def before(cands, pick):
    return candidates(cands, pick, 0.05, skip=False)


def session25(cands, pick):
    return candidates(cands, pick, 0.02, skip=True)


def now(cands, pick):
    return candidates(cands, pick, 0.02, skip=True, dedupe=True)


def tuned_total(measured, pick, n):
    if not measured:
        return pick["mc"] + n * pick["mt"]
    tuning, made = 0.0, set()
    for c in measured:
        if c["f"] not in made:
            made.add(c["f"])
            tuning += c["mc"]
        tuning += RUNS * c["mt"]
    return tuning + n * min(c["mt"] for c in measured)


def main(argv):
    opts, _, paths = split_args(argv, values=("--table",))
    inc = (Path(opts["--table"][-1]) if opts["--table"] else TABLE).read_text()
    rules = {"before": before, "s25": session25, "now": now}
    for path in paths:
        collect = {}
        replay(inc, load(path), read_scatter([]), collect=collect)
        print(path)
        res = {}
        for (m, p, n), (oracle, cands) in collect.items():
            if n < 100 or oracle is None or not cands:
                continue
            for c in cands:
                c["total"] = c["pc"] + n * c["pt"]
            cands.sort(key=lambda c: c["total"])
            pick = cands[0]
            row = res.setdefault((p, n), {"model": [], **{k: [] for k in rules}, "tuned": {}})
            row["model"].append(oracle / (pick["mc"] + n * pick["mt"]))
            for name, rule in rules.items():
                measured = rule(cands, pick)
                row[name].append(oracle / tuned_total(measured, pick, n))
                row["tuned"][name] = row["tuned"].get(name, 0) + (1 if measured else 0)
        for (p, n), row in sorted(res.items()):
            g = lambda v: math.exp(sum(map(math.log, v)) / len(v))  # noqa: E731
            print("  {} N={:5d} matrices {:3d}: model {:.3f}/{:.3f}".format(
                p, n, len(row["model"]), g(row["model"]), min(row["model"])) + "".join(
                " | {} {:.3f}/{:.3f} ({} tuned)".format(k, g(row[k]), min(row[k]), row["tuned"][k])
                for k in rules))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
