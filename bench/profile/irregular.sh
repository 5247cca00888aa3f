#!/usr/bin/env bash
# Nsight Compute over SpX's CSR kernels and cuSPARSE's on the irregular
# members of the default suite (issue 16). Usage: bench/profile/irregular.sh OUTDIR
set -uo pipefail
OUT="${1:?OUTDIR}"
B="${SPX_BUILD_DIR:-/tmp/spx-prof-build}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
NCU="$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n1)"
echo "ncu: ${NCU:-none}"
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPX_CUDA=ON > "$B.configure.log" 2>&1 &&
  cmake --build "$B" -j "$(nproc)" --target spx_cli > "$B.build.log" 2>&1 || { tail -n 40 "$B.build.log"; exit 1; }
S="$B/spx"
export SPX_REAL_MATRICES="$PWD/shared/matrices/real"
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
