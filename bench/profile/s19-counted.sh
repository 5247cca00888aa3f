#!/usr/bin/env bash
# Session 19: nonzero split with counted byte marks on matrices without empty
# rows. The CUDA CSR kernel tests with memcheck and racecheck beside them,
# then CSR Auto, merge path, nonzero split and binned against cuSPARSE on the
# irregular members (two runs, both precisions), and nonzero split against
# the V-lane kernels on the large regular members (one run). Racecheck skips
# cuSPARSE's own kernels, as gpu-check does (the run at 15dcd27 did not, and
# reported hazards in csrmv_v3_kernel and coomv_kernel only). A device call
# returns at most 8 files: tar OUTDIR before the call ends.
#   s19-counted.sh OUTDIR
set -uo pipefail
T0=$SECONDS
OUT="${1:?OUTDIR}"
mkdir -p "$OUT"
source "$(dirname "$0")/common.sh"
profile_build spx_cli spx_tests
echo "built at $((SECONDS - T0)) s"
FILTER='CudaKernels*:*Csr*:*Merge*:CudaBackend.AutoRule*'
SAN='CudaKernels/f64_i32.*:CudaKernels/f32_i64.*'
SPX_TEST_SMALL=1 SPX_REQUIRE_GPU=1 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 \
  "$B/tests/spx_tests" --gtest_filter="$SAN" > "$OUT/memcheck.log" 2>&1 &
MEM=$!
SPX_TEST_SMALL=1 SPX_REQUIRE_GPU=1 timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 \
  --kernel-name-exclude kns=cusparse \
  "$B/tests/spx_tests" --gtest_filter="CudaKernels/f64_i32.*" > "$OUT/racecheck.log" 2>&1 &
RACE=$!
SPX_REQUIRE_GPU=1 timeout 150 "$B/tests/spx_tests" --gtest_filter="$FILTER" > "$OUT/tests.log" 2>&1
echo "tests rc=$? at $((SECONDS - T0)) s"
grep -E '^\[  (FAILED|PASSED|SKIPPED) ' "$OUT/tests.log" | head -n 20
wait $MEM; echo "memcheck rc=$? at $((SECONDS - T0)) s"
wait $RACE; echo "racecheck rc=$? at $((SECONDS - T0)) s"
grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED) ' "$OUT/memcheck.log" "$OUT/racecheck.log"
IRR=(--only rmat --only chunglu --only mixed --only denserows --only random-n)
for run in a b; do
  timeout 100 "$B/spx" bench --backend cuda --suite default "${IRR[@]}" \
    --formats csr --algorithms auto,merge_path,nonzero_split,binned --precision both --reps 20 \
    --warmup 3 --max-seconds 0.3 --json "$OUT/irregular-$run.json" > "$OUT/irregular-$run.txt" \
    2> "$OUT/irregular-$run.err"
  echo "irregular $run rc=$? at $((SECONDS - T0)) s"
done
REG=(--only fem-b2-n750 --only fem-b3-n500 --only fem-b6-n250 --only stencil2d-5pt-n2000
  --only stencil2d-9pt-n1500 --only stencil3d-7pt-n144 --only stencil3d-27pt-n90
  --only banded-n5700000)
timeout 100 "$B/spx" bench --backend cuda --suite default "${REG[@]}" \
  --formats csr --algorithms auto,scalar,adaptive,merge_path,nonzero_split --precision both \
  --reps 20 --warmup 3 --max-seconds 0.3 --json "$OUT/regular.json" > "$OUT/regular.txt" \
  2> "$OUT/regular.err"
echo "regular rc=$? at $((SECONDS - T0)) s"
gzip -f "$OUT"/*.json "$OUT"/*.log 2>/dev/null
