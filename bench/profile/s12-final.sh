#!/usr/bin/env bash
# Session 12's closing GPU call: compute-sanitizer racecheck over gpu-check's
# racecheck filter alone (it ran out of time beside the test shards), then
# CSR SpMM over the default suite below its large members (both precisions)
# with the session's SpMM kernels, for the Auto rule's figures.
# Usage: bench/profile/s12-final.sh OUTDIR  (SPX_BUILD_DIR)
set -uo pipefail
OUT="${1:?OUTDIR}"
source "$(dirname "$0")/common.sh"
profile_build spx_cli spx_tests
SAN="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
F="$(sed -n 's/^  RACECHECK_FILTER="${SPX_SANITIZER_FILTER:-\(.*\)}"$/\1/p' scripts/gpu-check)"
F="${F//\$NO_OOM/-CudaBackend.OutOfMemoryReportsTheSize}"
echo "+ racecheck --gtest_filter='$F'"
SPX_REQUIRE_GPU=1 SPX_TEST_SMALL=1 timeout 300 "$SAN" --tool racecheck --error-exitcode 1 \
  --kernel-name-exclude kns=cusparse --print-limit 20 "$B/tests/spx_tests" --gtest_filter="$F" \
  > "$OUT/racecheck.log" 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' "$OUT/racecheck.log" | tail -n 1)"
grep -E '^\[  (PASSED|FAILED) ' "$OUT/racecheck.log" | head -n 3
spmm_rest "$OUT" 8,32,64,128 spmm
