#!/usr/bin/env bash
# Session 12: the narrow SpMM kernels (n <= 16) with ColumnB's addressing:
# their tests, memcheck over the merge-based tests, and CSR SpMM at n = 8 over
# the default suite below its large members (both precisions).
# Usage: bench/profile/s12-narrow.sh OUTDIR  (SPX_BUILD_DIR)
set -uo pipefail
OUT="${1:?OUTDIR}"
source "$(dirname "$0")/common.sh"
profile_build spx_cli spx_tests
profile_tests "$OUT" 'CudaSpmm*:SpmmKernels/f32_i32.*:SpmmKernels/f64_i64.*'
SAN="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
SPX_REQUIRE_GPU=1 SPX_TEST_SMALL=1 timeout 120 "$SAN" --tool memcheck --error-exitcode 1 \
  --print-limit 20 "$B/tests/spx_tests" --gtest_filter='CudaSpmmMerge/*' > "$OUT/memcheck.log" 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -n 1)"
grep -E '^\[  (PASSED|FAILED) ' "$OUT/memcheck.log" | head -n 3
spmm_rest "$OUT" 8 spmm8 60
