#!/usr/bin/env bash
# Session 15: CSR SpMM Auto with cuda::panel_beats_groups (the row panel
# rule where row split takes vector groups) on the members it concerns: the
# 27- and 9-point stencils, FEM b = 3 and the 7-point stencil, large and
# small, f32 at n = 32, 64 and f64 at n = 32. Usage: s15-verify.sh OUTDIR
set -uo pipefail
OUT="${1:?OUTDIR}"
mkdir -p "$OUT"
source "$(dirname "$0")/common.sh"
profile_build spx_cli
T0=$SECONDS
M=(stencil3d-27pt-n90 stencil3d-27pt-n34 stencil2d-9pt-n1500 stencil2d-9pt-n330 fem-b3-n500
  fem-b3-n110 stencil3d-7pt-n52)
for c in "f32 32,64" "f64 32"; do
  set -- $c
  timeout 150 "$B/spx" bench --backend cuda --suite default --op spmm --formats csr --cols "$2" \
    --precision "$1" --reps 5 --warmup 1 --max-seconds 0.3 --time-budget 120 \
    $(printf -- '--only %s ' "${M[@]}") --json "$OUT/verify-$1.json" > "$OUT/verify-$1.txt" \
    2> "$OUT/verify-$1.err"
  echo "verify $1 rc=$? at $((SECONDS - T0)) s"
done
