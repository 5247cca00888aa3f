#!/usr/bin/env python3
"""Issue 20's figures from a `spx bench` JSON: for each of the formats that move
fewer bytes per nonzero (sell_pack, sym_csr, sym_dia, sell_lp, dia_lp), per member and
precision, the best full-storage, full-precision SpX kernel's time over the
format's best (speed-up), its bytes per nonzero against that kernel's, the
fraction of the copy bandwidth in the bytes it actually moves, its device
conversion in SpMV-equivalents, and for sell_lp and dia_lp (reduced-precision
values) the measured error against
the documented bound (error_ratio <= 1).

Usage: fewer_bytes_summary.py BENCH.json [--min-nnz N]
"""
import argparse
import gzip
import json
import math

NEW = ("sell_pack", "sym_csr", "sym_dia", "sell_lp", "dia_lp")
REDUCED = ("sell_lp", "dia_lp")  # values in reduced precision: their error is reported


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json")
    ap.add_argument("--min-nnz", type=int, default=0, help="only members with at least this many nonzeros")
    a = ap.parse_args()
    recs = json.load((gzip.open if a.json.endswith(".gz") else open)(a.json, "rt"))["records"]
    best, new = {}, {}
    for r in recs:
        if r.get("op") != "spmv" or r.get("status") != "ok" or r.get("baseline"):
            continue
        if r["nnz"] < a.min_nnz:
            continue
        key = (r["precision"], r["group"], r["matrix"])
        table = new.setdefault(r["format"], {}) if r["format"] in NEW else best
        if not r.get("correct"):
            print(f"not correct: {r['format']}/{r['algorithm']} on {r['matrix']} {r['precision']}")
            continue
        if key not in table or r["time_s"] < table[key]["time_s"]:
            table[key] = r
    for fmt in NEW:
        rows = new.get(fmt, {})
        if not rows:
            print(f"{fmt}: no measured records")
            continue
        print(f"\n{fmt}: against the best full-storage SpX kernel of the same run")
        print(f"{'prec':4} {'group':10} {'matrix':26} {'best full-storage':22} {'speed-up':>8} "
              f"{'B/nnz':>6} {'(full)':>6} {'BW %':>5} {'conv':>6} {'err/bound':>9}")
        for prec in ("f64", "f32"):
            ratios = []
            for key in sorted(k for k in rows if k[0] == prec):
                p, b = rows[key], best.get(key)
                if b is None:
                    continue
                s = b["time_s"] / p["time_s"]
                ratios.append(s)
                conv = p.get("convert_device_spmv")
                err = p.get("error_ratio") if fmt in REDUCED else None
                print(f"{prec:4} {key[1][:10]:10} {key[2][:26]:26} {(b['format'] + '/' + b['algorithm'])[:22]:22} "
                      f"{s:8.3f} {p['bytes_per_nnz']:6.2f} {b['bytes_per_nnz']:6.2f} "
                      f"{100 * p['bw_fraction']:5.1f} {'-' if conv is None else f'{conv:.1f}':>6} "
                      f"{'-' if err is None else f'{err:.3f}':>9}")
            if ratios:
                g = math.exp(sum(map(math.log, ratios)) / len(ratios))
                print(f"{prec}: geomean {g:.3f}, min {min(ratios):.3f}, max {max(ratios):.3f} over {len(ratios)}")


if __name__ == "__main__":
    main()
