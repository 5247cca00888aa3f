#!/usr/bin/env bash
# Session 11's closing GPU call (issue 16): the changed tests, compute-
# sanitizer memcheck and racecheck over the kernels changed this session
# (CSR merge path, the SELL family's predicated rounds, SpMM), and CSR SpMM
# over the default suite below its large members (both precisions) with the
# new Auto rule. Usage: bench/profile/s11-final.sh OUTDIR  (SPX_BUILD_DIR)
set -uo pipefail
OUT="${1:?OUTDIR}"
source "$(dirname "$0")/common.sh"
profile_build spx_cli spx_tests
SAN="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
F="CudaKernels*f64_i32*:CudaKernels*f32_i64*:SpmvKernels/f64_i32.CudaMatchesReference"
F+=":CudaEllpack/f64_i32*:SellPackFormat/f64_i32.Cuda*:SellLpFormat/f64_i32.Device*"
F+=":CudaSpmmPanel/f64_i32*:CudaSpmmMerge/f64_i32*"
for tool in memcheck racecheck; do
  SPX_REQUIRE_GPU=1 SPX_TEST_SMALL=1 timeout 280 "$SAN" --tool $tool --error-exitcode 1 \
    --kernel-name-exclude kns=cusparse --print-limit 20 "$B/tests/spx_tests" --gtest_filter="$F" \
    > "$OUT/$tool.log" 2>&1 &
done
profile_tests "$OUT" '*CudaSpmmPanel*:*SpmmKernels*:CudaKernels*'
spmm_rest "$OUT" 8,32,64,128 spmm
wait
for tool in memcheck racecheck; do
  echo "$tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$tool.log" | tail -n 1)"
  grep -E '^\[  (PASSED|FAILED) ' "$OUT/$tool.log" | head -n 3
done
