#!/usr/bin/env python3
"""Calibrates the advisor's cost model (docs/advisor.md) from `spx bench` JSON.

From the correct, non-baseline SpMV records of every file given, each
compared with CSR's Auto kernel on the same matrix and precision (the
reference):
- fixed seconds per call per (backend, format, algorithm): the 10th
  percentile of its times on the members that fit the cache (L2 / last-level
  cache), with their count; from fewer than MIN_RECORDS (3) members the model
  takes the stand-in format's instead (FIXED_STAND_IN: SYM_DIA's is DIA's),
  else its default, and so do the efficiencies below (fixed_cost);
- reference per (backend, class): its efficiency, the median of bytes_moved
  / ((time - fixed) x copy bandwidth) over the members whose time is at
  least 5 x the fixed cost (launch latency is not low efficiency);
- relative efficiency per (backend, format, algorithm, class), over the same
  bandwidth-bound members: the median of ((reference time - its fixed) /
  (time - fixed)) x (bytes_moved / reference bytes_moved);
- conversion per (backend, format): the median of (conversion seconds /
  reference time) x (reference bytes_moved / (CSR bytes + format bytes)),
  device conversions on CUDA, host conversions on the CPU: the survey's
  conversion cost in SpMV-equivalents, per byte. The reference time is the
  measured one on CUDA; on the CPU, whose CSR has a compute row (below), the
  model's reference product less its fixed cost, the unit the advisor
  multiplies c by;
- compute costs per CPU (format, algorithm), from all its records (no
  reference needed): time = fixed + b x bytes_moved / copy bandwidth
  + rows x row_s + entries x entry_s (entries: the nonzeros; BCSR's blocks),
  fixed, b, row_s, entry_s >= 0, least squares of log(predicted / measured). Where
  bytes_moved is (nearly) a linear function of rows and entries (CSR, COO,
  CSC, SYM_CSR, JAD) the f64 records cannot tell the bytes from the counts;
  for every kernel (those and any other), when dropping one side costs at
  most 0.5% of the error, the kernel's loop decides: kernels vectorized across rows (ROW_VECTORIZED: the ELLPACK
  family, JAD, DIA, HDI, SYM_DIA, BCSR; their per-entry work scales with the
  value width) keep the bytes and rows, the scalar ones (CSR's merge path,
  COO, CSC, SYM_CSR: a gather per entry whatever the width) the rows and
  entries. CUDA keeps the bytes model alone (no compute rows).
  A fourth term, scatter_s x entries x scatter, prices the locality of the
  columns (scatter: MatrixStats::scatter, the fraction of nonzeros on a line
  of x new to the row and its previous row; from the run's matrix stats, or
  for runs that predate it from a CSV given with --stats, columns matrix and
  scatter, bench/profile/locality-stats.cpp); it is fitted with the others
  and kept whichever side the rule above keeps. The fixed seconds per call of
  a compute row are a fifth constant fitted with them (not kFixed's 10th
  percentile, which is the time of the kernel's smaller members, variable
  work included: 2.9 us for DIA where bcsstk02 took 1.7 in all); kFixed
  stays for the bytes model (CUDA, the fallback) and the reference's
  efficiency.
  A sixth, serial_s x entries x serial, is the cost per entry of a product
  on one thread: serial is 1 where the kernel's own count of work
  (thread_work, as threads_for sees it; detail::cpu_thread_work in
  src/core/advisor_model.cpp) is below two grains of 4096, where threads_for
  (src/cpu/common.hpp) gives one thread; fitted with the others and kept on
  either side of the rule above. The conversions' reference leaves it out.
The reference and relative efficiencies have a row pooled over both
precisions (precision "any") and, with --per-precision, one per precision
("f32", "f64") where it has MIN_RECORDS records and the other precision has
records too; the model prefers a precision's own row (its reference and the
kernel's relative efficiency from the same-precision records).
Classes as src/core/advisor.cpp: skewed (longest row > 8 x mean + 64),
regular (row-length std <= 0.5 x mean), irregular (the rest).

usage: calibrate.py [--stats CSV]... [--per-precision] FILE.json... > src/core/advisor_table.inc
(the files of every backend together; each file's backend is its run's.)
"""
import gzip
import csv
import itertools
import json
import math
import statistics
import sys
from collections import defaultdict
from pathlib import Path

# CPU kernels whose inner loop runs across rows (or a block's rows) and
# vectorizes: their per-entry work scales with the value width (src/cpu/*.cpp).
ROW_VECTORIZED = {"ell", "sell", "sell_pack", "sell_lp", "hll", "hyb", "jad", "dia", "dia_lp",
                  "hdi", "sym_dia", "bcsr"}
# A reference, relative-efficiency or fixed-cost row needs at least this many
# records to be used (kMinRecords in src/core/advisor_model.cpp); a
# per-precision row is emitted only when it has them, the pooled row always.
MIN_RECORDS = 3
# The format whose kernel a format runs (its fixed cost of a call stands in
# for the format's until it has MIN_RECORDS of its own; fixed_stand_in in
# src/core/advisor_model.cpp): SYM_DIA and DIA-LP run DIA's scheme, SELL-LP
# and SELL-pack SELL's.
FIXED_STAND_IN = {"sym_dia": "dia", "dia_lp": "dia", "sell_lp": "sell", "sell_pack": "sell"}
# A compute row needs at least this many records (up to six constants are
# fitted, usually four or five: one side of the bytes/entries rule).
MIN_COMPUTE_RECORDS = 6
# Dropping the bytes (or the entries) is taken when it costs at most this
# fraction of the fit's rms log error.
TIE = 0.005


def klass(st):
    mean, mx, sd = st["row_mean"], st["row_max"], st["row_std"]
    if mx > 8 * mean + 64:
        return "skewed"
    if sd <= 0.5 * mean:
        return "regular"
    return "irregular"


def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))]


def backend(b):
    return "Backend::Cuda" if b == "cuda" else "Backend::Cpu"


# The matrix, precision and kernel of advisor_compute_scale's probe
# (src/core/advisor.cpp: stencil2d:n=200,points=5 in f64).
PROBE = ("stencil2d-5pt-n200", "f64", "csr", "cpu_merge", "i32")


def entries(r, m):
    """The entries a kernel walks: the nonzeros; BCSR's blocks (from its bytes:
    blocks x (b^2 values + 1 index) + (block rows + 1) pointers)."""
    if r["format"] != "bcsr":
        return r["nnz"]
    b = m["bcsr_block_size"]
    si = 8 if r["index"] == "i64" else 4
    sv = 8 if r["precision"] == "f64" else 4
    return (r["format_bytes"] - ((r["rows"] + b - 1) // b + 1) * si) / (b * b * sv + si)


# threads_for's grain (src/cpu/common.hpp): a kernel whose work is below two
# grains runs on one thread.
GRAIN = 4096


def thread_work(r, m):
    """The units of work a CPU SpMV passes to threads_for (src/cpu/*.cpp), as
    detail::cpu_thread_work (src/core/advisor_model.cpp) counts them from the
    rows, nonzeros and stored values: COO, CSC nonzeros; DIA rows x diagonals;
    SYM_DIA 2 x rows x its diagonals; BCSR its stored values (blocks x b^2);
    HDI stored values + rows; SYM_CSR stored entries + rows; CSR, the ELLPACK
    family, JAD nonzeros + rows. The stored counts come from the record's
    format_bytes."""
    f, rows, nnz = r["format"], r["rows"], r["nnz"]
    si = 8 if r["index"] == "i64" else 4
    sv = 8 if r["precision"] == "f64" else 4
    fb = r["format_bytes"]
    if f in ("coo", "csc"):
        return nnz
    if f in ("dia", "dia_lp"):
        return rows * max(m["stats"]["diagonals"], 1)
    if f == "sym_dia":
        return 2 * rows * max(round(fb / (rows * sv + si)), 1)
    if f == "bcsr":
        b = m["bcsr_block_size"]
        return round(entries(r, m)) * b * b
    if f == "hdi":
        h = 32  # ConvertOptions::hack_size
        return round((fb - ((rows + h - 1) // h + 1) * si) / (sv + si / h)) + rows
    if f == "sym_csr":
        return round((fb - (rows + 1) * si) / (si + sv)) + rows
    return nnz + rows


def serial(r, m):
    """1 where the CPU kernel of record r runs on one thread (threads_for
    gives one thread below two grains of work), else 0."""
    return 1 if thread_work(r, m) < 2 * GRAIN else 0


def read_scatter(paths):
    """{matrix: scatter} from CSVs with columns matrix and scatter."""
    out = {}
    for path in paths:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                out[row["matrix"]] = float(row["scatter"])
    return out


def scatter_of(m, side):
    """A matrix's scatter: its recorded statistic, else the side CSV's."""
    v = m["stats"].get("scatter")
    if v is None:
        v = side.get(m["name"])
    if v is None:
        sys.exit("no scatter for matrix {} (run's stats or --stats CSV)".format(m["name"]))
    return v


def split_args(argv, values=("--stats",), flags=()):
    """({option: [its values]} for the options in `values` (each may repeat),
    {flag: present} for those in `flags`, the other arguments) of a command
    line."""
    opts, on, files, it = {v: [] for v in values}, {f: False for f in flags}, [], iter(argv)
    for a in it:
        if a in opts:
            opts[a].append(next(it))
        elif a in on:
            on[a] = True
        else:
            files.append(a)
    return opts, on, files


def _solve(a, y):
    """Least squares of a (list of rows) x = y by the normal equations (<= 3 unknowns)."""
    n = len(a[0])
    m = [[sum(r[i] * r[j] for r in a) for j in range(n)] + [sum(r[i] * v for r, v in zip(a, y))]
         for i in range(n)]
    for c in range(n):
        p = max(range(c, n), key=lambda k: abs(m[k][c]))
        if abs(m[p][c]) < 1e-300:
            return None
        m[c], m[p] = m[p], m[c]
        for k in range(n):
            if k != c:
                f = m[k][c] / m[c][c]
                m[k] = [u - f * w for u, w in zip(m[k], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def _nnls(a, y):
    """Non-negative least squares for a few unknowns: the best unconstrained
    solution over the subsets of the unknowns that comes out non-negative."""
    n, best = len(a[0]), None
    for k in range(1, n + 1):
        for sub in itertools.combinations(range(n), k):
            x = _solve([[r[i] for i in sub] for r in a], y)
            if x is None or min(x) < 0:
                continue
            full = [0.0] * n
            for i, v in zip(sub, x):
                full[i] = v
            cost = sum((sum(r[i] * full[i] for i in range(n)) - v) ** 2 for r, v in zip(a, y))
            if best is None or cost < best[0]:
                best = (cost, full)
    return best[1] if best else [0.0] * n


def fit_log(t, t0, g):
    """p >= 0 minimizing sum log((t0 + g.p) / t)^2 (Gauss-Newton, each step a
    non-negative least squares); returns p and the rms log error."""
    n = len(g[0])
    # each column in units of its median share of the time (over the records
    # where it is not 0: the serial entries are 0 on most records)
    scale = [statistics.median([r[j] / tt for r, tt in zip(g, t) if r[j]] or [1.0])
             for j in range(n)]
    gs = [[r[j] / scale[j] for j in range(n)] for r in g]

    def predict(p):
        return [a + sum(pj * rj for pj, rj in zip(p, r)) for a, r in zip(t0, gs)]

    def cost(p):
        return sum(math.log(max(v, 1e-30) / tt) ** 2 for v, tt in zip(predict(p), t))

    p = _nnls([[rj / tt for rj in r] for r, tt in zip(gs, t)], [(tt - a) / tt for tt, a in zip(t, t0)])
    c = cost(p)
    for _ in range(200):
        pred = predict(p)
        jac = [[rj / v for rj in r] for r, v in zip(gs, pred)]
        res = [math.log(v / tt) for v, tt in zip(pred, t)]
        q = _nnls(jac, [sum(jj * pj for jj, pj in zip(j, p)) - e for j, e in zip(jac, res)])
        step = 1.0
        while step > 1e-4:
            cand = [pi + step * (qi - pi) for pi, qi in zip(p, q)]
            cc = cost(cand)
            if cc <= c:
                break
            step /= 2
        if cc > c or c - cc <= 1e-12 * c:
            p, c = (cand, cc) if cc <= c else (p, c)
            break
        p, c = cand, cc
    return [pi / si for pi, si in zip(p, scale)], math.sqrt(c / len(t))


def fit_compute(fmt, recs):
    """[bytes factor, seconds per row, seconds per entry, seconds per
    scattered entry, seconds per serial entry, fixed seconds per call, rms] of
    one CPU kernel from (time, bytes_moved / bandwidth, rows, entries, entries
    x scatter, entries x serial)."""
    t = [r[0] for r in recs]
    t0 = [0.0] * len(recs)
    g = [list(r[1:]) + [1.0] for r in recs]
    full, err = fit_log(t, t0, g)
    # bytes + rows, or rows + entries; the scattered entries and the fixed
    # cost on either side
    keep = (0, 1, 3, 4, 5) if fmt in ROW_VECTORIZED else (1, 2, 3, 4, 5)
    part, perr = fit_log(t, t0, [[r[i] for i in keep] for r in g])
    if perr <= err * (1 + TIE):
        full, err = [0.0] * 6, perr
        for i, v in zip(keep, part):
            full[i] = v
    return full + [err]


def load(path):
    """A `spx bench` JSON file (.json or .json.gz)."""
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
        return json.load(f)


def fixed_cost(fixed, b, f, a):
    """The fixed cost of a call the model gives kernel (b, f, a)
    (product_fixed_s): its own row's when it has MIN_RECORDS, else its
    FIXED_STAND_IN format's, else 8 us (CUDA) or 2 us (CPU). `fixed`:
    {(b, f, a): (seconds, records)}."""
    for ff in (f, FIXED_STAND_IN.get(f)):
        v = fixed.get((b, ff, a))
        if v and v[1] >= MIN_RECORDS:
            return v[0]
    return 8e-6 if b == "cuda" else 2e-6


def per_precision_row(wanted, records, pooled):
    """Whether a precision's own row is emitted: when asked for
    (--per-precision), with MIN_RECORDS records, and fewer than the pooled
    row's (else the other precision has none and the two rows are equal)."""
    return wanted and MIN_RECORDS <= records < pooled


def table(runs, side, per_precision=False):
    """advisor_table.inc's text from [(path, loaded JSON)], the side CSVs'
    {matrix: scatter} for runs that predate the statistic; with
    `per_precision`, the per-precision rows of kReference and kRelative
    (per_precision_row) besides the pooled ones."""
    ref_eff = defaultdict(list)   # CSR Auto: absolute efficiency
    rel = defaultdict(list)       # every kernel against CSR Auto
    conv = defaultdict(list)      # conversions in CSR Auto products per byte
    fixed_times = defaultdict(list)
    compute = defaultdict(list)   # CPU kernels: (time, bytes_moved / bandwidth, rows, entries)
    conversions = []              # (backend, format, seconds, reference record, record, bandwidth)
    probes = []                   # the compute-scale probe's records: (path, record, bandwidth, scatter)
    pairs = []
    sources = []
    refs = []
    for path, d in runs:
        if d.get("op", "spmv") != "spmv":
            continue
        sources.append(path)
        sources.append("  ({} backend, {})".format(d["run"]["backend"], d["run"]["device"]["name"]))
        bw = d["run"]["copy_gbs"] * 1e9
        cache = d["run"]["device"]["cache_bytes"]
        mats = {m["name"]: m for m in d["matrices"] if not m["error"]}
        good = [r for r in d["records"]
                if r["status"] == "ok" and not r["baseline"] and r["correct"]
                and r["matrix"] in mats and r.get("op", "spmv") == "spmv"]
        for r in good:
            if (r["backend"], r["matrix"], r["precision"], r["format"], r["algorithm"],
                    r["index"]) == ("cpu",) + PROBE:
                probes.append((path, r, bw, scatter_of(mats[r["matrix"]], side)))
            if r["backend"] == "cpu":
                e = entries(r, mats[r["matrix"]])
                compute[(r["backend"], r["format"], r["algorithm"])].append(
                    (r["time_s"], r["bytes_moved"] / bw, r["rows"], e,
                     e * scatter_of(mats[r["matrix"]], side), e * serial(r, mats[r["matrix"]])))
        ref = {}
        for r in good:
            if r["format"] == "csr" and r["auto_choice"]:
                ref[(r["matrix"], r["precision"])] = r
        for r in good:
            key = (r["matrix"], r["precision"])
            if key not in ref:
                continue
            c = ref[key]
            b, f, a = r["backend"], r["format"], r["algorithm"]
            k = klass(mats[r["matrix"]]["stats"])
            if r["bytes_moved"] < cache:
                fixed_times[(b, f, a)].append(r["time_s"])
            if r is c:
                refs.append((b, k, r["precision"], r["bytes_moved"], r["time_s"], bw))
            pairs.append((b, f, a, k, r, c))
            s = r["convert_device_s"] if b == "cuda" else r["convert_host_s"]
            if f != "csr" and s and s > 0:
                conversions.append((b, f, s, dict(c, scatter=scatter_of(mats[r["matrix"]], side))
                                    if b == "cpu" else c, r, bw))
    fixed = {key: (q(v, 0.1), len(v)) for key, v in fixed_times.items()}
    costs = {key: fit_compute(key[1], v)
             for key, v in compute.items() if len(v) >= MIN_COMPUTE_RECORDS}
    # Conversions in reference products: the measured reference, or, where the
    # backend's CSR has a compute row (the CPU), the model's reference product
    # less its fixed cost, the unit the advisor applies c in.
    ref_compute = {key[0]: v for key, v in costs.items() if key[1] == "csr"}
    # The compute-scale probe's ratio on this machine (advisor_compute_scale's
    # unit): CSR's measured over predicted variable time on the probe matrix,
    # geometric mean over the runs that hold it; 1 without one.
    probe_q = []
    for path, r, bw, sc in probes:
        if "cpu" in ref_compute:
            kb, row_s, entry_s, scatter_s, _, fixed_s = ref_compute["cpu"][:6]
            # The compute part alone, as compute_scale_of: the bytes term
            # (none in the committed table) is not the machine's compute.
            compute_s = row_s * r["rows"] + (entry_s + scatter_s * sc) * r["nnz"]
            bytes_s = kb * r["bytes_moved"] / bw
            probe_q.append((path, (r["time_s"] - fixed_s - bytes_s) / compute_s))
    probe_ref = math.exp(sum(math.log(v) for _, v in probe_q) / len(probe_q)) if probe_q else 1.0
    for b, f, s, c, r, bw in conversions:
        t_ref = c["time_s"]
        if b in ref_compute:
            k, row_s, entry_s, scatter_s = ref_compute[b][:4]
            t_ref = k * c["bytes_moved"] / bw + row_s * c["rows"] + \
                (entry_s + scatter_s * c["scatter"]) * c["nnz"]
        conv[(b, f)].append(s / t_ref * c["bytes_moved"] / (c["format_bytes"] + r["format_bytes"]))
    ref_fixed = {}
    for b, f, a, k, r, c in pairs:
        if r is c:
            ref_fixed[b] = min(ref_fixed.get(b, 1.0), fixed_cost(fixed, b, "csr", c["algorithm"]))
    # Each efficiency pooled over both precisions ("any") and per precision.
    for b, k, p, moved, t, bw in refs:
        t0 = ref_fixed.get(b, 0.0)
        if t >= 5 * t0:
            for key in ((b, k, "any"), (b, k, p)):
                ref_eff[key].append(moved / ((t - t0) * bw))
    # Relative efficiency where the reference is bandwidth-bound.
    for b, f, a, k, r, c in pairs:
        t0c = fixed_cost(fixed, b, "csr", c["algorithm"])
        t0r = fixed_cost(fixed, b, f, a)
        if c["time_s"] < 5 * t0c:
            continue
        variable = max(r["time_s"] - t0r, 0.2 * r["time_s"])
        for key in ((b, f, a, k, "any"), (b, f, a, k, r["precision"])):
            rel[key].append((c["time_s"] - t0c) / variable * r["bytes_moved"] / c["bytes_moved"])

    out = ["// The advisor's calibrated constants. Generated by bench/advisor/calibrate.py",
           "// (docs/advisor.md, \"Calibration\") from:"]
    out += ["//   " + s for s in sources]
    out.append("// Included once, by src/core/advisor_model.cpp, inside its anonymous namespace.")
    out.append("// One row per line, as generated:")
    out.append("// clang-format off")
    out.append("")
    out.append("// Precision \"any\": pooled over the f32 and f64 records; \"f32\", \"f64\": that")
    out.append("// precision's own row, preferred where found (calibrate.py --per-precision: " +
               ("emitted" if per_precision else "not emitted") + ").")
    out.append("")

    def emit(key, v, pooled):
        return key[-1] == "any" or per_precision_row(per_precision, len(v), len(pooled))

    out.append("// CSR with its Auto kernel: {backend, class, precision, efficiency (fraction")
    out.append("// of the copy bandwidth), fixed seconds per call, records}")
    out.append("constexpr RefRow kReference[] = {")
    for key in sorted(ref_eff):
        if emit(key, ref_eff[key], ref_eff[key[:2] + ("any",)]):
            out.append('    {{{}, "{}", "{}", {:.3f}, {:.3g}, {}}},'.format(
                backend(key[0]), key[1], key[2], statistics.median(ref_eff[key]),
                ref_fixed[key[0]], len(ref_eff[key])))
    out.append("};")
    out.append("")
    out.append("// {backend, format, algorithm, 10th percentile of the cache-resident times,")
    out.append("// records} (a row with fewer than " + str(MIN_RECORDS) +
               " records is not used: the stand-in")
    out.append("// format's row, else the default; product_fixed_s)")
    out.append("constexpr FixedRow kFixed[] = {")
    for key in sorted(fixed):
        out.append('    {{{}, "{}", "{}", {:.3g}, {}}},'.format(
            backend(key[0]), key[1], key[2], fixed[key][0], fixed[key][1]))
    out.append("};")
    out.append("")
    out.append("// {backend, format, algorithm, class, precision, median efficiency relative to")
    out.append("// CSR Auto (bytes moved per second over CSR Auto's on the same matrix and")
    out.append("// precision), records}")
    out.append("constexpr EffRow kRelative[] = {")
    for key in sorted(rel):
        if emit(key, rel[key], rel[key[:4] + ("any",)]):
            out.append('    {{{}, "{}", "{}", "{}", "{}", {:.3f}, {}}},'.format(
                backend(key[0]), key[1], key[2], key[3], key[4], statistics.median(rel[key]),
                len(rel[key])))
    out.append("};")
    out.append("")
    out.append("// {backend, format, median conversion seconds per byte (CSR + format) in CSR")
    out.append("// Auto product-seconds per byte moved (CUDA: the measured product; CPU: the")
    out.append("// compute model's, less its fixed cost), records}")
    out.append("constexpr ConvRow kConversion[] = {")
    for key in sorted(conv):
        out.append('    {{{}, "{}", {:.3f}, {}}},'.format(
            backend(key[0]), key[1], statistics.median(conv[key]), len(conv[key])))
    out.append("};")
    out.append("")
    out.append("// CPU kernels (compute model): {backend, format, algorithm, bytes factor")
    out.append("// (seconds per byte moved x copy bandwidth), seconds per row, seconds per")
    out.append("// entry (nonzero; BCSR: block), seconds per entry x scatter, fixed seconds per")
    out.append("// call, seconds per entry on one thread (threads_for's serial path), records,")
    out.append("// rms log error of the fit}")
    out.append("constexpr ComputeRow kCompute[] = {")
    for key in sorted(costs):
        c = costs[key]
        out.append('    {{{}, "{}", "{}", {:.3f}, {:.3g}, {:.3g}, {:.3g}, {:.3g}, {:.3g}, {}, {:.3f}}},'
                   .format(backend(key[0]), key[1], key[2], c[0], c[1], c[2], c[3], c[5], c[4],
                           len(compute[key]), c[6]))
    out.append("};")
    out.append("")
    out.append("// The compute-scale probe's ratio on the calibration machine (docs/advisor.md,")
    out.append("// \"The machine's compute scale\"): CSR's merge path on {} in".format(PROBE[0]))
    out.append("// {}, (measured - call - bytes term) / predicted compute time with the rows".format(PROBE[1]))
    out.append("// above,")
    out.append("// the geometric mean over the runs: {}.".format(
        "; ".join("{:.3f} ({})".format(v, Path(p).name) for p, v in probe_q) or "none, 1"))
    out.append("constexpr double kComputeProbeReference = {:.3f};".format(probe_ref))
    out.append("// clang-format on")
    return "\n".join(out)


def main(argv):
    opts, on, paths = split_args(argv, flags=("--per-precision",))
    print(table([(p, load(p)) for p in paths], read_scatter(opts["--stats"]),
                on["--per-precision"]))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
