#!/usr/bin/env bash
# Session 18: CSR split (nonzero split) against merge path and cuSPARSE on the
# irregular members, after the CUDA kernel tests. Two runs (a, b) with CSR
# Auto, merge path, split and binned and the baselines, both precisions.
#   s18-split.sh OUTDIR
set -uo pipefail
OUT="${1:?OUTDIR}"
mkdir -p "$OUT"
source "$(dirname "$0")/common.sh"
profile_build spx_cli spx_tests
T0=$SECONDS
SPX_REQUIRE_GPU=1 timeout 150 "$B/tests/spx_tests" --gtest_filter='CudaKernels*:*Csr*:*Merge*' \
  > "$OUT/tests.log" 2>&1
echo "tests rc=$? at $((SECONDS - T0)) s"
grep -E '^\[  (FAILED|PASSED|SKIPPED) ' "$OUT/tests.log" | head -n 20
IRR=(--only rmat --only chunglu --only mixed --only denserows --only random-n)
for run in a b; do
  timeout 100 "$B/spx" bench --backend cuda --suite default "${IRR[@]}" \
    --formats csr --algorithms auto,merge_path,split,binned --precision both --reps 20 --warmup 3 \
    --max-seconds 0.3 --json "$OUT/irregular-$run.json" > "$OUT/irregular-$run.txt" 2> "$OUT/irregular-$run.err"
  echo "irregular $run rc=$? at $((SECONDS - T0)) s"
done
gzip -f "$OUT"/*.json "$OUT"/*.log 2>/dev/null
