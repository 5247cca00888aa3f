#!/usr/bin/env bash
# SELL-LP against SpX's full-storage kernels on the large regular and random
# members (issue 20): builds spx and spx_tests, runs the SELL-family and CSR
# CUDA tests, then `spx bench` with the formats that decide the comparison
# and fewer_bytes_summary.py over it.
# Usage: bench/profile/sell-lp.sh OUTDIR   (SPX_BUILD_DIR: build folder)
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
FILTER="*Sell*:*Ell*:*Hll*:CudaKernels*:SpmvKernels*:*Csr*Cuda*:*Cuda*Csr*"
SPX_REQUIRE_GPU=1 "$B/tests/spx_tests" --gtest_filter="$FILTER" > "$OUT/tests.log" 2>&1
echo "tests rc=$?"
grep -E '^\[  (FAILED|PASSED|SKIPPED) ' "$OUT/tests.log" | head -n 30
grep -m 20 -E 'Failure' "$OUT/tests.log"
"$B/spx" bench --backend cuda --suite default --precision both --formats csr,ell,sell,hll,dia,hdi,sell_lp \
  --only n144 --only n90 --only n2000 --only n1500 --only n750 --only n500 --only n250 \
  --only random --only banded --max-seconds 0.3 --no-baselines "$@" \
  --json "$OUT/sell-lp.json" > "$OUT/sell-lp.txt" 2> "$OUT/sell-lp.err"
echo "bench rc=$?"
python3 "$(dirname "$0")/fewer_bytes_summary.py" "$OUT/sell-lp.json" --min-nnz 100000 \
  > "$OUT/sell-lp-summary.txt"
grep -A40 '^sell_lp' "$OUT/sell-lp-summary.txt" | grep -E 'large|geomean|n144|n90|n2000|n1500|n750|n500|n250|random|banded' | head -n 40
