#!/usr/bin/env python3
"""Replays the advisor's model (src/core/advisor_table.inc, the formulas of
docs/advisor.md) on committed `spx bench` JSON, without the matrices: the
footprints are the records' format_bytes (equal to the advisor's predicted
footprints, tests/test_plan.cpp), the class comes from the recorded
statistics, BCSR's blocks from its bytes and block size. For N = 1, 10, 100,
1000 it prints the geometric mean and the
worst of oracle / pick as the bench's advisor report does, and the same for
CSR with Auto. On the files the table was calibrated from, this is an
in-sample estimate, not a measurement.

The CPU compute model's scatter term reads each matrix's scatter from the
run's statistics, or for runs that predate it from --stats CSV (columns
matrix and scatter, bench/profile/locality-stats.cpp). A compute row's cost
of a call is its own fitted one (kCompute's fifth constant), kFixed's for a
table that predates it; a kernel on one thread (calibrate.py's serial) adds
the sixth per entry (0 for a table that predates it). --table INC replays
another table than src/core/advisor_table.inc (bench/advisor/lofo.py).
The CPU rows' costs per row, entry and scattered entry are multiplied by the
run's compute scale (advisor.compute_scale in its JSON, 1 for runs before
session 26) or by --compute-scale K.
The bytes model's look-ups are the model's: a precision's own row of
kReference and kRelative before the pooled one ("any"; a table that
predates the column has pooled rows only), and a fixed cost of a call from
at least MIN_RECORDS records, else the stand-in format's (FIXED_STAND_IN),
else the default (a table whose kFixed predates the count trusts every row).

usage: replay.py [--stats CSV]... [--table INC] [--compute-scale K] FILE.json...
"""
import collections
import math
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from calibrate import (FIXED_STAND_IN, MIN_RECORDS, entries, klass, load, read_scatter,  # noqa: E402
                       scatter_of, serial, split_args)  # (as fitted)

REDUCED_PRECISION = {"sell_lp", "dia_lp"}  # formats whose values are stored in reduced precision
TABLE = Path(__file__).resolve().parents[2] / "src" / "core" / "advisor_table.inc"


def rows(inc, name):
    if name + "[] = {" not in inc:
        return []  # a table an older advisor_table.inc does not have
    body = inc.split(name + "[] = {")[1].split("};")[0]
    out = []
    for line in body.strip().splitlines():
        line = line.strip().rstrip(",")
        if line.startswith("{"):
            out.append([p.strip().strip('"') for p in line.strip("{}").split(",")])
    return out


def replay(inc, d, side, groups=None, collect=None, compute_scale=None):
    """{(precision, N): [(oracle / pick, matrix, pick)]} and the same for CSR
    with Auto, [oracle / CSR-Auto], of one run (loaded JSON) under the table
    `inc`; only the matrices of `groups` when given. With `collect` (a dict),
    collect[(matrix, precision, N)] = (oracle total, [the candidates the
    model ranks: dicts of format f, algorithm a, predicted product pt and
    conversion pc, measured product mt and conversion mc])
    (tune_replay.py)."""
    # Rows per precision ("f32", "f64") and pooled ("any"); a table before
    # the precision column has pooled rows only, one before kFixed's record
    # count trusts every fixed cost.
    ref = {(r[0], r[1], r[2] if len(r) >= 6 else "any"): (float(r[-3]), int(r[-1]))
           for r in rows(inc, "kReference")}
    rel = [(r[0], r[1], r[2], r[3], r[4] if len(r) >= 7 else "any", float(r[-2]), int(r[-1]))
           for r in rows(inc, "kRelative")]
    fixed = {(r[0], r[1], r[2]): (float(r[3]), int(r[4]) if len(r) >= 5 else MIN_RECORDS)
             for r in rows(inc, "kFixed")}
    conv = {(r[0], r[1]): float(r[2]) for r in rows(inc, "kConversion")}
    # (bytes factor, row_s, entry_s, scatter_s, fixed_s, serial_s): a table
    # before the scatter term has scatter_s 0, one before the fitted cost of a
    # call fixed_s None (kFixed's then), one before the serial term serial_s 0
    compute = {(r[0], r[1], r[2]): tuple(map(float, r[3:9])) if len(r) >= 11 else
               tuple(map(float, r[3:8])) + (0.0,) if len(r) >= 10 else
               tuple(map(float, r[3:7])) + (None, 0.0) if len(r) >= 9 else
               tuple(map(float, r[3:6])) + (0.0, None, 0.0) for r in rows(inc, "kCompute")}
    # The machine's compute scale (advisor_compute_scale): the run's, recorded
    # in its advisor report since session 26 (1 before), or the caller's; it
    # multiplies the costs per row, entry and scattered entry.
    k = compute_scale if compute_scale is not None else \
        (d.get("advisor") or {}).get("compute_scale", 1.0)
    compute = {key: (c[0], c[1] * k, c[2] * k, c[3] * k, c[4], c[5])
               for key, c in compute.items()}
    # The conversion's reference: CSR's compute row (the CPU has one CSR kernel).
    ref_compute = {k[0]: v for k, v in compute.items() if k[1] == "csr"}

    def eref(b, c, p):
        """reference_efficiency: the class's row of the precision, else its
        pooled row, else the median of the pooled rows."""
        for key in ((b, c, p), (b, c, "any")):
            if key in ref and ref[key][1] >= MIN_RECORDS:
                return ref[key][0]
        v = [x[0] for k, x in ref.items() if k[0] == b and k[2] == "any"]
        return statistics.median(v) if v else 0.5

    def stand_in(b, f, a, c):
        """calibrated_algorithm (src/core/advisor_model.cpp): CUDA CSR's
        nonzero split borrows merge path's rows until it has its own, its
        relative efficiency on the non-regular classes only (c None: the
        fixed cost)."""
        if b == "Backend::Cuda" and f == "csr" and a == "nonzero_split" and c != "regular" and \
                not any(r[0] == b and r[1] == f and r[2] == a and r[5] >= 3 for r in rel):
            return "merge_path"
        return a

    def fixed_s(b, f, a):
        """product_fixed_s: the kernel's row with MIN_RECORDS, else its stand-in
        format's (FIXED_STAND_IN), else 8 us (CUDA) or 2 us (CPU)."""
        a = stand_in(b, f, a, None)
        for ff in (f, FIXED_STAND_IN.get(f)):
            if (b, ff, a) in fixed and fixed[(b, ff, a)][1] >= MIN_RECORDS:
                return fixed[(b, ff, a)][0]
        return 8e-6 if cuda else 2e-6

    def releff(b, f, a, c, p):
        """product_efficiency's relative part: the (kernel, class) row of the
        precision, else its pooled row, else the medians of the pooled rows."""
        a = stand_in(b, f, a, c)
        kern, fmt, pooled = [], [], None
        for bb, ff, aa, cc, pp, r, n in rel:
            if bb != b or ff != f or n < MIN_RECORDS:
                continue
            if aa == a and cc == c and pp == p:
                return r
            if pp != "any":
                continue
            if aa == a and cc == c:
                pooled = r
            if aa == a:
                kern.append(r)
            if cc == c:
                fmt.append(r)
        if pooled is not None:
            return pooled
        if kern:
            return statistics.median(kern)
        if fmt:
            return statistics.median(fmt)
        return 0.5

    bw = d["run"]["copy_gbs"] * 1e9
    cuda = d["run"]["backend"] == "cuda"
    b = "Backend::Cuda" if cuda else "Backend::Cpu"
    mats = {m["name"]: m for m in d["matrices"]
            if not m["error"] and (groups is None or m["group"] in groups)}
    by = collections.defaultdict(list)
    for r in d["records"]:
        if (r["status"] == "ok" and r["correct"] and not r["baseline"]
                and r["matrix"] in mats and r.get("op", "spmv") == "spmv"):
            by[(r["matrix"], r["precision"])].append(r)
    csr_res = collections.defaultdict(list)
    worst_of = {}
    for (m, p), recs in by.items():
        c = klass(mats[m]["stats"])
        csr = [r for r in recs if r["format"] == "csr"]
        if not csr:
            continue
        csr_bytes = csr[0]["format_bytes"]
        auto = [r for r in csr if r["auto_choice"]]
        # The reference's product less its fixed cost: CSR's compute row where
        # the backend has one, else its bytes at e_ref (docs/advisor.md).
        ref_moved = csr[0]["bytes_moved"]
        sc = scatter_of(mats[m], side) if b in ref_compute else 0.0
        if b in ref_compute:
            k, row_s, entry_s, scatter_s = ref_compute[b][:4]
            ref_var = k * ref_moved / bw + row_s * csr[0]["rows"] + \
                (entry_s + scatter_s * sc) * csr[0]["nnz"]
        else:
            ref_var = ref_moved / (eref(b, c, p) * bw)
        for n in (1, 10, 100, 1000):
            best, pick = None, None
            for r in recs:
                if r["format"] == "csr":
                    cs = 0.0
                else:
                    cs = r["convert_device_s"] if r["convert_device_s"] is not None \
                        else r["convert_host_s"]
                if cs is None:
                    continue
                total = cs + n * r["time_s"]
                e = eref(b, c, p)
                pt = fixed_s(b, r["format"], r["algorithm"])
                cc = compute.get((b, r["format"], r["algorithm"]))
                if cc:
                    if cc[4] is not None:
                        pt = cc[4]
                    pt += cc[0] * r["bytes_moved"] / bw + cc[1] * r["rows"] + \
                        (cc[2] + cc[3] * sc + cc[5] * serial(r, mats[m])) * entries(r, mats[m])
                else:
                    pt += r["bytes_moved"] / (e * releff(b, r["format"], r["algorithm"], c, p) * bw)
                pc = 0.0 if r["format"] == "csr" else (50e-6 if cuda else 20e-6) + \
                    conv.get((b, r["format"]), 15 if cuda else 5) * \
                    (csr_bytes + r["format_bytes"]) / ref_moved * ref_var
                if r["format"] in REDUCED_PRECISION:
                    # Never picked unless the caller allows it (the bench does not),
                    # and not an oracle either (as the bench's advisor report).
                    continue
                if best is None or total < best:
                    best = total
                if cuda and r["format"] == "csr" and not r["auto_choice"]:
                    continue  # CUDA: CSR is offered with its Auto kernel only (docs/advisor.md)
                if collect is not None:
                    collect.setdefault((m, p, n), [None, []])[1].append(
                        dict(f=r["format"], a=r["algorithm"], pt=pt, pc=pc, mt=r["time_s"], mc=cs))
                if pick is None or pc + n * pt < pick[0]:
                    pick = (pc + n * pt, total, r["format"] + "/" + r["algorithm"])
            worst_of.setdefault((p, n), []).append((best / pick[1], m, pick[2]))
            if collect is not None and (m, p, n) in collect:
                collect[(m, p, n)][0] = best
            if auto:
                csr_res[(p, n)].append(best / (n * auto[0]["time_s"]))
    return worst_of, csr_res


def main(argv):
    opts, _, paths = split_args(argv, values=("--stats", "--table", "--compute-scale"))
    table = Path(opts["--table"][-1]) if opts["--table"] else TABLE
    inc, side = table.read_text(), read_scatter(opts["--stats"])
    scale = float(opts["--compute-scale"][-1]) if opts["--compute-scale"] else None
    for path in paths:
        worst_of, csr_res = replay(inc, load(path), side, compute_scale=scale)
        res = {k: [x[0] for x in v] for k, v in worst_of.items()}
        print(path)
        for k in sorted(res):
            v, w = res[k], csr_res[k]
            gm = math.exp(sum(map(math.log, v)) / len(v))
            gw = math.exp(sum(map(math.log, w)) / len(w)) if w else float("nan")
            print("  {} N={:5d} matrices {:3d}: oracle/pick geomean {:.3f} worst {:.3f}"
                  " | CSR-Auto geomean {:.3f} worst {:.3f}".format(
                      k[0], k[1], len(v), gm, min(v), gw, min(w) if w else float("nan")))
            ratio, m, f = min(worst_of[k])
            print("           worst: {} (pick {})".format(m, f))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
