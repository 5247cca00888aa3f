#!/usr/bin/env bash
# Session 13 on the GPU, after gpu-check built $B: (1) the diagonal formats'
# kernels as committed (DiaShape, SymShape) over the large stencil and FEM
# members and their symmetric copies, f64 and f32, with the full-storage
# kernels of the same run (dia, hdi, csr); (2) CSR SpMM with the new Auto
# rule (kPanelShortRatio, kPanelFewWarpsRatio) on the members whose pick it
# changes and their neighbours, n = 32, 64, 128, f64 then f32.
# Usage: bench/profile/s13-final.sh OUTDIR
set -uo pipefail
OUT="${1:?OUTDIR}"
mkdir -p "$OUT"
source "$(dirname "$0")/common.sh"
profile_build spx_cli
"$B/spx" bench --backend cuda --suite default --precision both \
  --formats dia,hdi,dia_lp,sym_dia,csr --no-baselines --reps 30 \
  --only stencil3d-7pt-n144 --only stencil3d-27pt-n90 --only stencil2d-5pt-n2000 \
  --only fem-b3-n500 --json "$OUT/diag-final.json" > "$OUT/diag-final.txt" 2> "$OUT/diag-final.err"
echo "diag rc=$?"
for p in f64 f32; do
  "$B/spx" bench --backend cuda --suite default --op spmm --formats csr --cols 32,64,128 \
    --precision "$p" --reps 10 --warmup 2 --max-seconds 0.3 --time-budget 60 \
    --only stencil2d-5pt-n450 --only luxembourg --only stencil3d-27pt-n34 --only crack \
    --only banded-n285000 --only fem-b3-n110 --only stencil2d-9pt-n330 --only road-n350000 \
    --json "$OUT/spmm-rule-$p.json" > "$OUT/spmm-rule-$p.txt" 2> "$OUT/spmm-rule-$p.err"
  echo "spmm $p rc=$?"
done
