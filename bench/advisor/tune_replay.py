#!/usr/bin/env python3
"""Replays the advisor's tuning (docs/advisor.md, "Tuning can cost more than
it finds") on committed CUDA `spx bench` JSON: the model's predictions as
replay.py makes them, the tuning candidates as spx::tuning_candidates picks
them, and the tuned plan's total as the bench's emulate_tuning charges it,
from the run's own measurements. For N = 100 and 1000 it prints the
geomean / worst of oracle / pick for the model alone, the tuning rule before
session 14 ("before": the budget of 10% counting every candidate's
conversion, each kernel's, the pick's included) and now ("now": 5%, only what
tuning adds, each format once), with the number of members tuned. An
approximation of the C++: only the measured records are candidates.

usage: tune_replay.py [--table INC] FILE.json...
"""
import collections
import math
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from calibrate import klass, load, split_args  # noqa: E402
from replay import REDUCED_PRECISION, TABLE, rows  # noqa: E402

def predict(inc, d):
    """{(matrix, precision): [candidate dicts]} of a CUDA run under the table `inc`."""
    ref = {(r[0], r[1]): (float(r[2]), int(r[4])) for r in rows(inc, "kReference")}
    rel = [(r[0], r[1], r[2], r[3], float(r[4]), int(r[5])) for r in rows(inc, "kRelative")]
    fixed = {(r[0], r[1], r[2]): float(r[3]) for r in rows(inc, "kFixed")}
    conv = {(r[0], r[1]): float(r[2]) for r in rows(inc, "kConversion")}
    def eref(b, c):
        if (b, c) in ref and ref[(b, c)][1] >= 3: return ref[(b, c)][0]
        v = [x[0] for k, x in ref.items() if k[0] == b]
        return statistics.median(v) if v else 0.5
    def releff(b, f, a, c):
        kern, fmt = [], []
        for bb, ff, aa, cc, r, n in rel:
            if bb != b or ff != f or n < 3: continue
            if aa == a and cc == c: return r
            if aa == a: kern.append(r)
            if cc == c: fmt.append(r)
        if kern: return statistics.median(kern)
        if fmt: return statistics.median(fmt)
        return 0.5
    bw = d["run"]["copy_gbs"] * 1e9
    b = "Backend::Cuda"
    mats = {m["name"]: m for m in d["matrices"] if not m["error"]}
    by = collections.defaultdict(list)
    for r in d["records"]:
        if (r["status"] == "ok" and r["correct"] and not r["baseline"] and r["matrix"] in mats and r.get("op", "spmv") == "spmv"):
            by[(r["matrix"], r["precision"])].append(r)
    out = {}
    for (m, p), recs in by.items():
        c = klass(mats[m]["stats"])
        csr = [r for r in recs if r["format"] == "csr"]
        if not csr: continue
        csr_bytes = csr[0]["format_bytes"]
        ref_moved = csr[0]["bytes_moved"]
        ref_var = ref_moved / (eref(b, c) * bw)
        L = []
        for r in recs:
            if r["format"] in REDUCED_PRECISION: continue
            cs = 0.0 if r["format"] == "csr" else (r["convert_device_s"] if r["convert_device_s"] is not None else r["convert_host_s"])
            if cs is None: continue
            pt = fixed.get((b, r["format"], r["algorithm"]), 8e-6) + r["bytes_moved"] / (eref(b, c) * releff(b, r["format"], r["algorithm"], c) * bw)
            pc = 0.0 if r["format"] == "csr" else 50e-6 + conv.get((b, r["format"]), 15) * (csr_bytes + r["format_bytes"]) / ref_moved * ref_var
            L.append(dict(pt=pt, pc=pc, t=r["time_s"], c=cs, name=r["format"] + "/" + r["algorithm"], auto=r["auto_choice"], fmt=r["format"]))
        out[(m, p)] = L
    return out
def tune_cands(L, count=3, within=1.5, budget=0.1, runs=6, extra_only=False):
    best = L[0]['pT']; out=[]; cost=0; fmts={L[0]['fmt']}
    for x in L:
        if len(out)==count: break
        if x['pT'] > within*best: continue
        out.append(x)
        if extra_only:
            if x['fmt'] not in fmts: cost += x['pc']; fmts.add(x['fmt'])
            cost += runs*x['pt']
        else:
            cost += x['pc'] + runs*x['pt']
    if len(out)<2 or cost>budget*best: return []
    return out

def emulate(L, N, per_format=False, choose='product', **kw):
    c = tune_cands(L, **kw)
    if not c: return L[0]['c']+N*L[0]['t'], False
    tuning=0; seen=set()
    for x in c:
        if not per_format or x['fmt'] not in seen: tuning += x['c']; seen.add(x['fmt'])
        tuning += 6*x['t']
    if choose=='product': b=min(c,key=lambda x:x['t'])
    else: b=min(c,key=lambda x:x['c']+N*x['t'])
    return tuning + N*b['t'], True

def run(files, inc, variants, Ns=(100,1000), verbose=False):
    for f in files:
        d=load(f)
        P=predict(inc,d)
        for prec in ('f64','f32'):
            for N in Ns:
                res={v:[] for v in variants}; pick=[]; ntuned={v:0 for v in variants}
                for (m,p),L in sorted(P.items()):
                    if p!=prec: continue
                    for x in L: x['pT']=x['pc']+N*x['pt']; x['T']=x['c']+N*x['t']
                    orc=min(x['T'] for x in L)
                    L=[x for x in L if not (x['fmt']=='csr' and not x['auto'])]
                    L.sort(key=lambda x:x['pT'])
                    pick.append(orc/L[0]['T'])
                    for v,kw in variants.items():
                        t,tu=emulate(L,N,**kw); res[v].append(orc/t); ntuned[v]+=tu
                        if verbose and tu: print('   ',v,m,N,round(orc/L[0]['T'],3),round(orc/t,3))
                if not pick: continue
                g=lambda a: math.exp(sum(map(math.log,a))/len(a))
                print('%-60s %s N=%4d n=%2d model %.3f/%.3f '%(f.split('/')[-1][:60],prec,N,len(pick),g(pick),min(pick)) + ' '.join('%s %.3f/%.3f(%d)'%(v,g(r),min(r),ntuned[v]) for v,r in res.items()))


VARIANTS = {"before": dict(), "now": dict(per_format=True, extra_only=True, budget=0.05)}


def main(argv):
    opts, _, paths = split_args(argv, values=("--table",))
    table = Path(opts["--table"][-1]) if opts["--table"] else TABLE
    run(paths, table.read_text(), VARIANTS)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
