#!/usr/bin/env bash
# SELL-LP against SpX's full-storage kernels on the large regular and random
# members (issue 20): builds spx and spx_tests, runs the SELL-family and CSR
# CUDA tests, then `spx bench` with the formats that decide the comparison
# and fewer_bytes_summary.py over it.
# Usage: bench/profile/sell-lp.sh OUTDIR   (SPX_BUILD_DIR: build folder)
set -uo pipefail
OUT="${1:?OUTDIR}"
shift
source "$(dirname "$0")/common.sh"
profile_build spx_cli spx_tests
FILTER="*Sell*:*Ell*:*Hll*:CudaKernels*:SpmvKernels*:*Csr*Cuda*:*Cuda*Csr*"
profile_tests "$OUT" "$FILTER"
"$B/spx" bench --backend cuda --suite default --precision both --formats csr,ell,sell,hll,dia,hdi,sell_lp \
  --only n144 --only n90 --only n2000 --only n1500 --only n750 --only n500 --only n250 \
  --only random --only banded --max-seconds 0.3 --no-baselines "$@" \
  --json "$OUT/sell-lp.json" > "$OUT/sell-lp.txt" 2> "$OUT/sell-lp.err"
echo "bench rc=$?"
python3 "$(dirname "$0")/fewer_bytes_summary.py" "$OUT/sell-lp.json" --min-nnz 100000 \
  > "$OUT/sell-lp-summary.txt"
grep -A40 '^sell_lp' "$OUT/sell-lp-summary.txt" | grep -E 'large|geomean|n144|n90|n2000|n1500|n750|n500|n250|random|banded' | head -n 40
