#!/usr/bin/env bash
# Session 14 on the GPU, after gpu-check built $B: CSR SpMM with row split's
# warps per row (row_split_parts) on the small real matrices it was measured
# on, n = 32, 64, 128, f64 then f32; every format on the large regular and
# symmetric members (DIA and DIA-LP with dia_pairs_kernel) for
# fewer_bytes_summary.py; CSR SpMM over the suite's smaller members
# (spmm-suite-rest.txt) at n = 8, 32, 64, 128 for the Auto rule.
# Usage: bench/profile/s14-final.sh OUTDIR
set -uo pipefail
OUT="${1:?OUTDIR}"
mkdir -p "$OUT"
source "$(dirname "$0")/common.sh"
profile_build spx_cli
S="$B/spx"
T0=$SECONDS
for p in f64 f32; do
  timeout 60 "$S" bench --backend cuda --suite default --op spmm --formats csr --cols 32,64,128 \
    --precision $p --reps 20 --warmup 3 --max-seconds 0.3 --time-budget 40 \
    $(printf -- '--only %s ' bp_1600 bcsstk02 ex2 bcsstk13 fidapex6 usair97 west0989 fs_183_3 \
      cell1 mhd4800a crack) --json "$OUT/parts-$p.json" > "$OUT/parts-$p.txt" 2>&1
  echo "parts $p rc=$? at $((SECONDS - T0)) s"
done
timeout 200 "$S" bench --backend cuda --suite default --precision both --reps 20 --time-budget 170 \
  $(printf -- '--only %s ' stencil3d-7pt-n144 stencil3d-27pt-n90 stencil2d-5pt-n2000 \
    stencil2d-9pt-n1500 fem-b2-n750 fem-b3-n500 fem-b6-n250 banded-n5700000-bands8 \
    stencil3d-7pt-n144-sym stencil3d-27pt-n90-sym fem-b3-n500-sym) \
  --json "$OUT/large.json" > "$OUT/large.txt" 2> "$OUT/large.err"
echo "large rc=$? at $((SECONDS - T0)) s"
spmm_rest "$OUT" 8,32,64,128 spmm 100
echo "rest done at $((SECONDS - T0)) s"
