#!/usr/bin/env bash
# CSR SpMV over the whole default suite (every SpX CSR kernel and cuSPARSE's
# CSR algorithms, both precisions), after the CUDA CSR kernel tests.
# Usage: bench/profile/csr-suite.sh OUTDIR [extra spx bench arguments]
set -uo pipefail
OUT="${1:?OUTDIR}"
shift
B="${SPX_BUILD_DIR:-/tmp/spx-prof-build}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPX_CUDA=ON > "$B.configure.log" 2>&1 &&
  cmake --build "$B" -j "$(nproc)" --target spx_cli spx_tests > "$B.build.log" 2>&1 || {
  grep -B2 -A10 -E 'error' "$B.build.log" | head -n 60
  exit 1
}
export SPX_REAL_MATRICES="$PWD/shared/matrices/real"
echo "+ tests: ${SPX_TEST_FILTER:=CudaKernels*:SpmvKernels*}"
SPX_REQUIRE_GPU=1 "$B/tests/spx_tests" --gtest_filter="$SPX_TEST_FILTER" > "$OUT/tests.log" 2>&1
echo "tests rc=$?"
grep -E '^\[  (FAILED|PASSED|SKIPPED) ' "$OUT/tests.log" | head -n 30
grep -m 20 -E 'Failure|error' "$OUT/tests.log"
echo "+ bench"
"$B/spx" bench --backend cuda --suite default --formats csr --precision both "$@" \
  --json "$OUT/csr.json" > "$OUT/csr.txt" 2> "$OUT/csr.err"
echo "bench rc=$?"
tail -n 3 "$OUT/csr.err"
