#!/usr/bin/env bash
# CSR SpMM over the default suite (every SpX CSR SpMM kernel and cuSPARSE's)
# at n = 8, 32, 64, 128, f64 then f32, for the Auto rule (issue 16).
# Usage: bench/profile/spmm-suite.sh OUTDIR [extra spx bench arguments]
set -uo pipefail
OUT="${1:?OUTDIR}"
shift
source "$(dirname "$0")/common.sh"
profile_build spx_cli
for p in f64 f32; do
  echo "+ spmm $p"
  "$B/spx" bench --backend cuda --suite default --op spmm --formats csr --cols 8,32,64,128 \
    --precision "$p" --reps 10 --warmup 2 --max-seconds 0.5 "$@" \
    --json "$OUT/spmm-$p.json" > "$OUT/spmm-$p.txt" 2> "$OUT/spmm-$p.err"
  echo "rc=$?"
  tail -n 2 "$OUT/spmm-$p.err"
done
