#!/usr/bin/env bash
# Session 15: CSR SpMM (every SpX kernel, cuSPARSE) on the suite's 18 large
# members (16-25 M nonzeros) at the widths the vector groups change: f32 at
# n = 32, 64 and f64 at n = 32, against session 11's (f64) and session 8's
# (f32) runs of the same members. Usage: bench/profile/s15-large.sh OUTDIR
set -uo pipefail
OUT="${1:?OUTDIR}"
mkdir -p "$OUT"
source "$(dirname "$0")/common.sh"
profile_build spx_cli
T0=$SECONDS
L=(stencil3d-7pt-n144 stencil3d-27pt-n90 stencil2d-5pt-n2000 stencil2d-9pt-n1500 fem-b2-n750
  fem-b3-n500 fem-b6-n250 banded-n5700000-bands8 random-n2000000-d10 random-n250000-d64
  rmat-s21-d8 chunglu-n2500000-d8 mixed-n2000000 denserows-n2000000-d8-r4 road-n7000000)
run() {  # run PRECISION COLS BUDGET
  timeout $(($3 + 40)) "$B/spx" bench --backend cuda --suite default --op spmm --formats csr \
    --cols "$2" --precision "$1" --reps 5 --warmup 1 --max-seconds 0.3 --time-budget "$3" \
    $(printf -- '--only %s ' "${L[@]}") --json "$OUT/large-$1.json" > "$OUT/large-$1.txt" \
    2> "$OUT/large-$1.err"
  echo "large $1 n=$2 rc=$? at $((SECONDS - T0)) s"
}
run f32 32,64 200
run f64 32 130
