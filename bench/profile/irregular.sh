#!/usr/bin/env bash
# Nsight Compute over SpX's CSR kernels and cuSPARSE's on the irregular
# members of the default suite (issue 16). Usage: bench/profile/irregular.sh OUTDIR
set -uo pipefail
OUT="${1:?OUTDIR}"
source "$(dirname "$0")/common.sh"
profile_build spx_cli
NCU="$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n1)"
echo "ncu: ${NCU:-none}"
S="$B/spx"
MEMBERS=(--only rmat --only chunglu --only mixed --only denserows)
echo "+ timing, CSR and COO kernels and baselines"
"$S" bench --backend cuda --suite default "${MEMBERS[@]}" --formats csr,coo --precision both \
  --json "$OUT/times.json" > "$OUT/times.txt" 2> "$OUT/times.err"
tail -n 5 "$OUT/times.err"
SECTIONS=(--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats
  --section LaunchStats --section Occupancy --section SchedulerStats)
for spec in "rmat:scale=21,degree=8" "mixed:n=2000000"; do
  name="${spec%%:*}"
  echo "+ ncu on $spec"
  timeout 200 "$NCU" --kernel-name regex:'csr|carries|merge|coo|segment' "${SECTIONS[@]}" \
    --launch-count 40 "$S" bench "$spec" --backend cuda --formats csr,coo --precision f64 \
    --reps 1 --warmup 0 --quiet > "$OUT/ncu-$name.txt" 2>&1
  echo "rc=$?"
  grep -E '^  [a-zA-Z_].*\(|Duration|DRAM Throughput|L2 Hit Rate|L1/TEX Hit|Memory Throughput|Achieved Occupancy|Registers Per|Grid Size|Block Size' "$OUT/ncu-$name.txt" | head -n 400 > "$OUT/ncu-$name-summary.txt"
done
