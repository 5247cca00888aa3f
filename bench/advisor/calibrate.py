#!/usr/bin/env python3
"""Calibrates the advisor's cost model (docs/advisor.md) from `spx bench` JSON.

For every ok, correct, non-baseline SpMV record: efficiency = bw_fraction
(bytes_moved / time / copy bandwidth). Per (backend, format, algorithm,
class) the median efficiency; per (backend, format, algorithm) the 10th
percentile of the times of members smaller than the cache as the fixed cost
of a call; per (backend, format) the conversion's efficiency =
(CSR bytes + format bytes) / (seconds x copy bandwidth), median, device
conversion on CUDA, host conversion on the CPU. Classes as
src/core/advisor.cpp: skewed (longest row > 8 x mean + 64), regular
(row-length std <= 0.5 x mean), irregular (the rest).

usage: calibrate.py FILE.json... > table.txt (C++ initialisers on stdout)
"""
import json
import statistics
import sys
from collections import defaultdict


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


eff = defaultdict(list)
t0 = defaultdict(list)
conv = defaultdict(list)
sources = []
rows = []
for path in sys.argv[1:]:
    d = json.load(open(path))
    if d.get("op", "spmv") != "spmv":
        continue
    sources.append(path)
    bw = d["run"]["copy_gbs"] * 1e9
    cache = d["run"]["device"]["cache_bytes"]
    mats = {m["name"]: m for m in d["matrices"] if not m["error"]}
    csr_bytes = {}
    for r in d["records"]:
        if r["format"] == "csr" and r["format_bytes"]:
            csr_bytes[(r["matrix"], r["precision"])] = r["format_bytes"]
    for r in d["records"]:
        if r["status"] != "ok" or r["baseline"] or not r["correct"] or r["matrix"] not in mats:
            continue
        m = mats[r["matrix"]]
        b, f, a = r["backend"], r["format"], r["algorithm"]
        c = klass(m["stats"])
        rows.append((b, f, a, c, r["bytes_moved"], r["time_s"], bw))
        if r["bytes_moved"] < cache:
            t0[(b, f, a)].append(r["time_s"])
        s = r["convert_device_s"] if b == "cuda" else r["convert_host_s"]
        key = (r["matrix"], r["precision"])
        if f != "csr" and s and s > 0 and key in csr_bytes:
            conv[(b, f)].append((csr_bytes[key] + r["format_bytes"]) / (s * bw))

# efficiency from the members whose time is well above the fixed cost:
# bytes_moved / ((time - t0) x bandwidth)
for b, f, a, c, moved, t, bw in rows:
    fixed = q(t0[(b, f, a)], 0.1) if t0[(b, f, a)] else 0.0
    if t >= 5 * fixed:
        eff[(b, f, a, c)].append(moved / ((t - fixed) * bw))

print("// from:", ", ".join(sources))
print("// efficiency: {backend, format, algorithm, class, median bw_fraction, records}")
for k in sorted(eff):
    v = eff[k]
    print('{{Backend::{}, "{}", "{}", "{}", {:.3f}, {}}},'.format(
        "Cuda" if k[0] == "cuda" else "Cpu", k[1], k[2], k[3], statistics.median(v), len(v)))
print("// fixed cost: {backend, format, algorithm, 10th percentile of small members' time}")
for k in sorted(t0):
    print('{{Backend::{}, "{}", "{}", {:.3g}}},'.format(
        "Cuda" if k[0] == "cuda" else "Cpu", k[1], k[2], q(t0[k], 0.1)))
print("// conversion: {backend, format, median efficiency, records}")
for k in sorted(conv):
    print('{{Backend::{}, "{}", {:.4f}, {}}},'.format(
        "Cuda" if k[0] == "cuda" else "Cpu", k[1], statistics.median(conv[k]), len(conv[k])))
