#!/usr/bin/env bash
# CSR SpMV over the whole default suite (every SpX CSR kernel and cuSPARSE's
# CSR algorithms, both precisions), after the CUDA CSR kernel tests.
# Usage: bench/profile/csr-suite.sh OUTDIR [extra spx bench arguments]
set -uo pipefail
OUT="${1:?OUTDIR}"
shift
source "$(dirname "$0")/common.sh"
profile_build spx_cli spx_tests
echo "+ tests: ${SPX_TEST_FILTER:=CudaKernels*:SpmvKernels*}"
profile_tests "$OUT" "$SPX_TEST_FILTER"
echo "+ bench"
"$B/spx" bench --backend cuda --suite default --formats csr --precision both "$@" \
  --json "$OUT/csr.json" > "$OUT/csr.txt" 2> "$OUT/csr.err"
echo "bench rc=$?"
tail -n 3 "$OUT/csr.err"
