#!/usr/bin/env python3
"""Pictures from one `spx bench --json` file (schema: docs/benchmarks.md).

    python3 bench/plot.py RUN.json [--out DIR]

writes, next to RUN.json (or into DIR), PNG files named after it:

  <stem>-profile-<precision>.png  performance profile over formats (survey,
                                  Figures 13-14): for each format, the fraction
                                  of matrices on which its best kernel is within
                                  a factor tau of the fastest kernel of any
                                  format; the baseline is one more curve.
  <stem>-roofline.png             GFLOPS against arithmetic intensity (flops per
                                  byte moved) of each matrix's best SpX kernel,
                                  under the copy-bandwidth roof measured in the
                                  same run.
  <stem>-speedup.png              speed-up of SpX's best kernel over the best
                                  baseline (cuSPARSE on CUDA, Eigen on the CPU),
                                  per matrix, with the geometric mean.

An SpMM file (`spx bench --op spmm`) gets its own two pictures instead:

  <stem>-spmm-speedup.png         speed-up of SpX's best kernel over the best
                                  baseline kernel (cuSPARSE on CUDA; dense GEMM
                                  apart), per matrix, one bar per width n of
                                  B and C, with the geometric mean per n.
  <stem>-spmm-bandwidth.png       fraction of the copy bandwidth reached by SpX's
                                  best kernel (bytes moved: A's arrays, B and C
                                  once each) against n, one line per matrix,
                                  with the median, and the baseline's median.
  <stem>-spmm-density.png         only when the file has dense GEMM times (the
                                  `density` suite on CUDA): time of SpX's best
                                  kernel, cuSPARSE's best and cuBLAS GEMM against
                                  the density, one colour per n, and the time
                                  ratio SpX / GEMM with the density where GEMM
                                  overtakes SpX (op_summary gemm_by_n) marked
                                  (Yang et al. 2018, Figure 7).

Needs numpy and matplotlib (pip install numpy matplotlib).
"""

import argparse
import json
import math
import os
import sys
import tempfile
from collections import defaultdict

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

FORMAT_ORDER = ["coo", "csr", "csc", "ell", "sell", "hll", "dia", "hdi", "hyb", "jad", "bcsr",
                "sell_pack", "sell_lp", "sym_csr", "sym_dia", "dia_lp"]


def save(fig, out, title=None, fontsize=9):
    """Writes the figure (with its title, if any) to `out`, closes it, returns `out`.

    The picture goes to a temporary file beside `out`, renamed over it only once
    written whole: a failed write leaves the old picture (as SpX's own writers do).
    """
    if title is not None:
        fig.suptitle(title, fontsize=fontsize)
    fig.tight_layout()
    folder, name = os.path.split(os.path.abspath(out))
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".spx-tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            fig.savefig(f, dpi=120, format=os.path.splitext(name)[1][1:] or "png")
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~current_umask())
        os.replace(tmp, out)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    finally:
        plt.close(fig)
    return out


def current_umask():
    """The process's umask (mkstemp creates files 0600; pictures get the usual mode)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def palette(n):
    """n distinct colours: tab10 first, then the light halves of tab20."""
    base = [plt.cm.tab10(i) for i in range(10)] + [plt.cm.tab20(2 * i + 1) for i in range(10)]
    return [base[i % len(base)] for i in range(n)]


def load(path):
    with open(path) as f:
        doc = json.load(f)
    if doc.get("schema") != "spx-bench/1":
        sys.exit(f"{path}: not an spx bench file (schema {doc.get('schema')!r})")
    return doc


def usable(r):
    """A record that was measured and passed its check."""
    return r["status"] == "ok" and r["correct"] is True and r["time_s"] is not None


def baseline_label(doc):
    return "cuSPARSE" if doc["run"]["backend"] == "cuda" else "Eigen"


def title_of(doc):
    run = doc["run"]
    dev = run["device"]
    ver = f", CUDA {dev['cuda_runtime']}" if dev["cuda_runtime"] else ""
    return (f"{dev['name']} ({run['backend']}{ver}), copy {run['copy_gbs']:.0f} GB/s, "
            f"{run['date'][:10]}, {run['commit'][:10]}")


def best_by(records, key):
    """Fastest usable record per key(record)."""
    best = {}
    for r in records:
        if not usable(r):
            continue
        k = key(r)
        if k not in best or r["time_s"] < best[k]["time_s"]:
            best[k] = r
    return best


def performance_profile(doc, precision, out):
    recs = [r for r in doc["records"] if r["precision"] == precision]
    matrices = sorted({r["matrix"] for r in recs})
    if not matrices:
        return None
    base = baseline_label(doc)
    # Entities: each SpX format (its best kernel) and the best baseline.
    t = defaultdict(dict)  # entity -> matrix -> time
    for r in recs:
        if not usable(r):
            continue
        entity = base if r["baseline"] else r["format"]
        cur = t[entity].get(r["matrix"])
        if cur is None or r["time_s"] < cur:
            t[entity][r["matrix"]] = r["time_s"]
    entities = [f for f in FORMAT_ORDER if f in t] + ([base] if base in t else [])
    best = {m: min((t[e][m] for e in entities if m in t[e]), default=None) for m in matrices}
    ratios = {}
    for e in entities:
        # Matrices a format cannot handle get an infinite ratio (r_X).
        ratios[e] = np.array(sorted(t[e][m] / best[m] if m in t[e] and best[m] else math.inf
                                    for m in matrices))
    fig, axes = plt.subplots(1, 2, figsize=(13, 5))
    for ax, tau_max, label in ((axes[0], 20.0, "full view"), (axes[1], 2.0, "detailed view")):
        taus = np.geomspace(1.0, tau_max, 400) if tau_max > 2 else np.linspace(1.0, tau_max, 400)
        colors = palette(len(entities))
        for i, e in enumerate(entities):
            rho = [(ratios[e] <= tau).mean() for tau in taus]
            style = "--" if e == base else "-"
            ax.plot(taus, rho, style, lw=2 if e == base else 1.5, label=e,
                    color=colors[i] if e != base else "black")
        if tau_max > 2:
            ax.set_xscale("log")
        ax.set_xlim(1.0, tau_max)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("tau (time / fastest time)")
        ax.set_ylabel("fraction of matrices within tau of the best")
        ax.set_title(f"{label}, {len(matrices)} matrices")
        ax.grid(True, which="both", alpha=0.3)
    axes[1].legend(loc="lower right", fontsize=8, ncol=2)
    return save(fig, out, f"Performance profile over formats, {precision}: {title_of(doc)}", 10)


def roofline(doc, out):
    copy = doc["run"]["copy_gbs"]
    groups = sorted({r["group"] for r in doc["records"]})
    colors = dict(zip(groups, palette(len(groups))))
    markers = {"f64": "o", "f32": "^"}
    fig, ax = plt.subplots(figsize=(9, 6.5))
    xs = []
    for precision in ("f64", "f32"):
        recs = [r for r in doc["records"] if r["precision"] == precision and not r["baseline"]]
        best = best_by(recs, lambda r: r["matrix"])
        for m, r in best.items():
            ai = 2.0 * r["nnz"] / r["bytes_moved"]
            xs.append(ai)
            ax.scatter(ai, r["gflops"], marker=markers[precision], color=colors[r["group"]],
                       edgecolor="black", linewidth=0.4, s=36, zorder=3)
    if not xs:
        plt.close(fig)
        return None
    lo, hi = min(xs) / 2, max(xs) * 2
    grid = np.geomspace(lo, hi, 100)
    ax.plot(grid, copy * grid, "k-", lw=1.5, label=f"copy bandwidth roof ({copy:.0f} GB/s)")
    ax.plot(grid, 0.5 * copy * grid, "k:", lw=1, label="50% of the roof")
    for g in groups:
        ax.scatter([], [], color=colors[g], marker="s", label=g)
    for p, mk in markers.items():
        ax.scatter([], [], color="white", edgecolor="black", marker=mk, label=p)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_xlabel("arithmetic intensity [flop / byte moved] (2 nnz / (format + x + y bytes))")
    ax.set_ylabel("GFLOPS")
    ax.set_title(f"Roofline, best SpX kernel per matrix\n{title_of(doc)}", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", ncol=2)
    return save(fig, out)


def speedup(doc, out):
    summary = doc["summary"]
    precisions = [p for p in ("f64", "f32") if any(s["precision"] == p for s in summary)]
    if not precisions:
        return None
    group = {m["name"]: m["group"] for m in doc["matrices"]}
    order = [m["name"] for m in sorted(doc["matrices"], key=lambda m: (m["group"], m["name"]))]
    n = len(order)
    fig, axes = plt.subplots(len(precisions), 1, figsize=(max(8, 0.22 * n + 2), 4.2 * len(precisions)),
                             squeeze=False)
    groups = sorted(set(group.values()))
    colors = dict(zip(groups, palette(len(groups))))
    base = baseline_label(doc)
    for ax, p in zip(axes[:, 0], precisions):
        by = {s["matrix"]: s for s in summary if s["precision"] == p}
        vals = [by[m]["speedup"] if m in by and by[m]["speedup"] else np.nan for m in order]
        # Bars grow from 1 (no speed-up): up when SpX is faster, down when slower.
        ax.bar(range(n), [v - 1.0 for v in vals], bottom=1.0,
               color=[colors[group[m]] for m in order])
        ax.axhline(1.0, color="black", lw=1)
        finite = [v for v in vals if v == v]
        if finite:
            gm = math.exp(sum(math.log(v) for v in finite) / len(finite))
            ax.axhline(gm, color="red", ls="--", lw=1, label=f"geomean {gm:.2f}x ({len(finite)} matrices)")
        ax.set_yscale("log")
        lo, hi = min(finite + [1.0]), max(finite + [1.0])
        ax.set_ylim(lo / 1.15, hi * 1.15)
        label = matplotlib.ticker.FuncFormatter(lambda y, _: f"{y:g}x")
        ax.yaxis.set_major_formatter(label)
        # Label the minor ticks only when the range is narrow enough to read them.
        ax.yaxis.set_minor_formatter(label if hi / lo < 8 else matplotlib.ticker.NullFormatter())
        ax.tick_params(axis="y", which="minor", labelsize=7)
        for g in groups:
            ax.bar([0], [0], bottom=1.0, color=colors[g], label=g)
        ax.set_ylabel(f"speed-up over {base}'s best")
        ax.set_title(f"{p}: SpX's best kernel vs {base}'s best, per matrix", fontsize=10)
        ax.set_xticks(range(n))
        ax.set_xticklabels(order, rotation=90, fontsize=6)
        ax.set_xlim(-0.7, n - 0.3)
        ax.grid(True, axis="y", which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="upper right", ncol=4)
    return save(fig, out, title_of(doc))


def spmm_entries(doc):
    """op_summary entries of an SpMM file, per precision."""
    return {p["precision"]: p["entries"] for p in doc.get("op_summary", {}).get("precisions", [])
            if p.get("entries")}


def spmm_speedup(doc, out):
    by_precision = {p: [e for e in es if e["speedup"]] for p, es in spmm_entries(doc).items()}
    precisions = [p for p in ("f64", "f32") if by_precision.get(p)]
    if not precisions:
        return None
    group = {m["name"]: m["group"] for m in doc["matrices"]}
    order = [m["name"] for m in sorted(doc["matrices"], key=lambda m: (m["group"], m["name"]))]
    widths = sorted({e["n_cols"] for p in precisions for e in by_precision[p]})
    colors = dict(zip(widths, palette(len(widths))))
    base = baseline_label(doc)
    n = len(order)
    fig, axes = plt.subplots(len(precisions), 1, squeeze=False,
                             figsize=(max(9, 0.45 * n * max(1, len(widths)) / 4 + 3),
                                      4.6 * len(precisions)))
    bar = 0.8 / max(1, len(widths))
    for ax, p in zip(axes[:, 0], precisions):
        speed = {(e["matrix"], e["n_cols"]): e["speedup"] for e in by_precision[p]}
        everything = []
        for i, w in enumerate(widths):
            vals = [speed.get((m, w), np.nan) for m in order]
            finite = [v for v in vals if v == v]
            if not finite:
                continue
            everything += finite
            gm = math.exp(sum(math.log(v) for v in finite) / len(finite))
            xs = [k - 0.4 + (i + 0.5) * bar for k in range(n)]
            # Bars grow from 1 (no speed-up): up when SpX is faster, down when slower.
            ax.bar(xs, [v - 1.0 for v in vals], width=bar, bottom=1.0, color=colors[w],
                   label=f"n = {w}: geomean {gm:.2f}x ({len(finite)} matrices)")
            ax.axhline(gm, color=colors[w], ls="--", lw=1)
        ax.axhline(1.0, color="black", lw=1)
        ax.set_yscale("log")
        lo, hi = min(everything + [1.0]), max(everything + [1.0])
        ax.set_ylim(lo / 1.15, hi * 1.15)
        label = matplotlib.ticker.FuncFormatter(lambda y, _: f"{y:g}x")
        ax.yaxis.set_major_formatter(label)
        ax.yaxis.set_minor_formatter(label if hi / lo < 8 else matplotlib.ticker.NullFormatter())
        ax.tick_params(axis="y", which="minor", labelsize=7)
        ax.set_ylabel(f"speed-up over {base}'s best")
        ax.set_title(f"SpMM {p}, B and C n columns wide: SpX's best kernel vs "
                     f"{base}'s best (GEMM apart), per matrix", fontsize=10, pad=26)
        ax.set_xticks(range(n))
        ax.set_xticklabels([f"{m} ({group[m]})" for m in order], rotation=90, fontsize=6)
        ax.set_xlim(-0.6, n - 0.4)
        ax.grid(True, axis="y", which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(widths))
    return save(fig, out, title_of(doc))


def spmm_bandwidth(doc, out):
    entries = spmm_entries(doc)
    precisions = [p for p in ("f64", "f32") if entries.get(p)]
    if not precisions:
        return None
    group = {m["name"]: m["group"] for m in doc["matrices"]}
    groups = sorted(set(group.values()))
    colors = dict(zip(groups, palette(len(groups))))
    base = baseline_label(doc)
    fig, axes = plt.subplots(1, len(precisions), figsize=(8 * len(precisions), 6), squeeze=False)
    for ax, p in zip(axes[0], precisions):
        widths = sorted({e["n_cols"] for e in entries[p]})
        # SpX's best per (matrix, n), from the summary.
        spx = defaultdict(dict)
        for e in entries[p]:
            if e.get("best_bw_fraction") is not None:
                spx[e["matrix"]][e["n_cols"]] = e["best_bw_fraction"]
        # The baseline's best per (matrix, n) (dense GEMM apart), from the records.
        recs = [r for r in doc["records"] if r["precision"] == p and r["baseline"]
                and r["algorithm"] != "cublas_gemm" and r.get("bw_fraction") is not None]
        baseline = best_by(recs, lambda r: (r["matrix"], r["n_cols"]))
        for m in sorted(spx, key=lambda m: (group.get(m, ""), m)):
            ws = [w for w in widths if w in spx[m]]
            ax.plot(ws, [spx[m][w] for w in ws], "-o", ms=3, lw=1, alpha=0.8,
                    color=colors.get(group.get(m), "grey"))
        med = [np.median([spx[m][w] for m in spx if w in spx[m]]) for w in widths]
        ax.plot(widths, med, "k-", lw=2.5, label="SpX best, median over matrices")
        if baseline:
            bmed = [np.median([r["bw_fraction"] for (m, w), r in baseline.items() if w == x])
                    if any(w == x for (_, w) in baseline) else np.nan for x in widths]
            ax.plot(widths, bmed, "k--", lw=2, label=f"{base} best, median over matrices")
        for g in groups:
            ax.plot([], [], "-", color=colors[g], label=g)
        ax.set_xscale("log", base=2)
        ax.set_xticks(widths)
        ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
        top = max([v for m in spx for v in spx[m].values()] +
                  [r["bw_fraction"] for r in baseline.values()])
        ax.set_ylim(0, 1.15 * top)
        ax.set_xlabel("n (columns of B and C)")
        ax.set_ylabel("fraction of copy bandwidth (bytes moved / time / copy GB/s)")
        ax.set_title(f"SpMM {p}: bandwidth of SpX's best kernel per matrix "
                     f"(copy {doc['run']['copy_gbs']:.0f} GB/s)", fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="upper left", ncol=2)
    return save(fig, out, title_of(doc))


def gemm_label(g):
    """One legend line for an entry of op_summary gemm / gemm_by_n."""
    verdict = g.get("verdict")
    if verdict is None and isinstance(g.get("overtakes_density"), (int, float)):
        verdict = "crossover"  # files written before the verdict field existed
    if verdict == "crossover" and isinstance(g.get("overtakes_density"), (int, float)):
        text = f"GEMM faster above {100 * g['overtakes_density']:.3g}%"
    elif verdict == "always":
        text = "GEMM faster at every density"
    else:
        text = "GEMM never faster"
    if g.get("agreement") is not None and g["agreement"] < 1:
        text += f" (fits {100 * g['agreement']:.0f}% of points)"
    return text


def spmm_density(doc, out):
    """Times against density with GEMM (None when the file has no GEMM time)."""
    entries = spmm_entries(doc)
    precisions = [p for p in ("f64", "f32")
                  if any(e.get("gemm_time_s") is not None for e in entries.get(p, []))]
    if not precisions:
        print("no dense GEMM time in this file: no density plot", file=sys.stderr)
        return None
    summaries = {p["precision"]: p for p in doc["op_summary"]["precisions"]}
    base = baseline_label(doc)
    # The density suite has one matrix per density: lines; another suite
    # mixes structures at similar densities: points only.
    connect = doc["config"].get("suite") == "density"
    fig, axes = plt.subplots(len(precisions), 2, figsize=(15, 5.5 * len(precisions)), squeeze=False)
    for row, p in zip(axes, precisions):
        ax_t, ax_r = row
        es = [e for e in entries[p] if e.get("density") is not None]
        widths = sorted({e["n_cols"] for e in es})
        colors = dict(zip(widths, palette(len(widths))))
        crossover = {g["n_cols"]: g for g in summaries[p].get("gemm_by_n", [])}
        ls = "-" if connect else "none"
        for w in widths:
            ew = sorted((e for e in es if e["n_cols"] == w), key=lambda e: e["density"])

            def series(key):
                pts = [(100 * e["density"], 1e3 * e[key]) for e in ew if e.get(key) is not None]
                return [x for x, _ in pts], [y for _, y in pts]

            for key, style, marker in (("best_time_s", "-", "o"), ("baseline_time_s", "--", "s"),
                                       ("gemm_time_s", ":", "^")):
                xs, ys = series(key)
                if xs:
                    ax_t.plot(xs, ys, linestyle=ls if ls == "none" else style, marker=marker, ms=4,
                              lw=1.5, color=colors[w])
            ratio = [(100 * e["density"], e["best_time_s"] / e["gemm_time_s"]) for e in ew
                     if e.get("best_time_s") and e.get("gemm_time_s")]
            label = f"n = {w}"
            if w in crossover:
                label += ": " + gemm_label(crossover[w])
                d = crossover[w].get("overtakes_density")
                if d is not None:
                    for ax in (ax_t, ax_r):
                        ax.axvline(100 * d, color=colors[w], ls="-.", lw=1, alpha=0.8)
            if ratio:
                ax_r.plot([x for x, _ in ratio], [y for _, y in ratio], linestyle=ls, marker="o",
                          ms=4, lw=1.5, color=colors[w], label=label)
            ax_t.plot([], [], "-", color=colors[w], lw=3, label=f"n = {w}")
        for style, marker, what in (("-", "o", "SpX best"), ("--", "s", f"{base} best"),
                                    (":", "^", "cuBLAS GEMM (dense A)")):
            ax_t.plot([], [], linestyle=style, marker=marker, color="black", label=what)
        ax_r.axhline(1.0, color="black", lw=1)
        for ax in (ax_t, ax_r):
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("density [% of rows x cols]")
            ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x:g}"))
            ax.grid(True, which="both", alpha=0.3)
        ax_t.set_ylabel("median time of one product [ms]")
        ax_t.set_title(f"SpMM {p}: time against density (B and C n columns wide)", fontsize=10)
        ax_t.legend(fontsize=7, loc="upper left", ncol=2)
        ax_r.set_ylabel("time of SpX's best / time of GEMM (above 1: GEMM faster)")
        overall = summaries[p].get("gemm")
        ax_r.set_title(f"SpMM {p}: dense GEMM against SpX's best"
                       + (f"; all n: {gemm_label(overall)}" if overall else ""), fontsize=10)
        ax_r.legend(fontsize=7, loc="upper left")
    return save(fig, out, title_of(doc))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json", help="a file written by `spx bench --json`")
    ap.add_argument("--out", help="folder for the PNG files (default: the JSON's folder)")
    args = ap.parse_args()
    doc = load(args.json)
    out_dir = args.out or os.path.dirname(os.path.abspath(args.json))
    os.makedirs(out_dir, exist_ok=True)
    stem = os.path.basename(args.json)
    if stem.endswith(".json"):
        stem = stem[:-5]
    written = []
    if doc.get("op") == "spmm":
        written.append(spmm_speedup(doc, os.path.join(out_dir, f"{stem}-spmm-speedup.png")))
        written.append(spmm_bandwidth(doc, os.path.join(out_dir, f"{stem}-spmm-bandwidth.png")))
        written.append(spmm_density(doc, os.path.join(out_dir, f"{stem}-spmm-density.png")))
        for w in written:
            if w:
                print(w)
        return
    for p in ("f64", "f32"):
        written.append(performance_profile(doc, p, os.path.join(out_dir, f"{stem}-profile-{p}.png")))
    written.append(roofline(doc, os.path.join(out_dir, f"{stem}-roofline.png")))
    written.append(speedup(doc, os.path.join(out_dir, f"{stem}-speedup.png")))
    for w in written:
        if w:
            print(w)


if __name__ == "__main__":
    main()
