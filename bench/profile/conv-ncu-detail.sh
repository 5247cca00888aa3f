#!/usr/bin/env bash
# Nsight Compute's sections (speed of light, occupancy, launch, warp states,
# memory) for the device conversion and device advice kernels of one large
# stencil and its symmetric twin (issues 17 and 20): why a pass over 20 M
# entries takes 0.25-2.8 ms where reading them takes 25 us.
# Usage: bench/profile/conv-ncu-detail.sh OUTDIR SPX  (SPX: a CUDA-built spx binary)
set -uo pipefail
O="${1:?OUTDIR}"
S="${2:?SPX}"
mkdir -p "$O"
K="mark_diagonals|dia_fill|column_counts|hack_search|symmetry_kernel|fill_groups|pack_fill|sym_counts|sym_fill"
timeout 400 ncu --clock-control none -k "regex:$K" -c "${SPX_NCU_COUNT:-200}" \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
  --section MemoryWorkloadAnalysis \
  "$S" bench --backend cuda --suite default --only "${SPX_NCU_MEMBER:-stencil3d-7pt-n144}" \
  --formats dia,sell_pack,sym_dia --precision f64 --reps 1 --warmup 0 --no-baselines --quiet \
  --real-dir "$PWD/shared/matrices/real" > "$O/ncu-detail.txt" 2> "$O/ncu-detail.err"
echo "ncu rc=$?"
gzip -f "$O/ncu-detail.txt"
