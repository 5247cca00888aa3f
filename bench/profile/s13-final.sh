#!/usr/bin/env bash
# Session 13 on the GPU, after gpu-check built $B (the commands of the two
# calls that followed it, as run): CSR SpMM with the new Auto rule
# (kPanelShortRatio, kPanelFewWarpsRatio) on the members whose pick it
# changes and those it must leave alone, n = 32, 64, 128, f64 then f32; then
# the diagonal formats' kernels as committed (DiaShape, SymShape) on the
# large symmetric members and two large stencils, f64 and f32.
# Usage: bench/profile/s13-final.sh OUTDIR
set -uo pipefail
OUT="${1:?OUTDIR}"
mkdir -p "$OUT"
source "$(dirname "$0")/common.sh"
profile_build spx_cli
S="$B/spx"
spmm() {  # NAME MEMBER...
  local name=$1 p
  shift
  for p in f64 f32; do
    timeout 50 "$S" bench --backend cuda --suite default --op spmm --formats csr --cols 32,64,128 \
      --precision $p --reps 10 --warmup 2 --max-seconds 0.3 --time-budget 35 \
      $(printf -- '--only %s ' "$@") --json "$OUT/$name-$p.json" > "$OUT/$name-$p.txt" 2>&1
    echo "$name $p rc=$?"
  done
}
spmm spmm-rule stencil2d-5pt-n450 luxembourg stencil3d-27pt-n34 crack
spmm spmm-rule2 banded-n285000 road-n350000 fem-b3-n110 stencil2d-9pt-n330 mhd4800a cell1
timeout 60 "$S" bench --backend cuda --suite default --precision both \
  --formats dia,hdi,dia_lp,sym_dia --no-baselines --reps 20 --time-budget 45 \
  --only stencil3d-7pt-n144-sym --only stencil3d-27pt-n90-sym --only fem-b3-n500-sym \
  --json "$OUT/diag-sym.json" > "$OUT/diag-sym.txt" 2>&1
echo "diag-sym rc=$?"
timeout 40 "$S" bench --backend cuda --suite default --precision both --formats dia,hdi,dia_lp \
  --no-baselines --reps 20 --time-budget 30 --only stencil3d-7pt-n144 \
  --only stencil2d-5pt-n2000 --json "$OUT/diag-large.json" > "$OUT/diag-large.txt" 2>&1
echo "diag-large rc=$?"
