#!/usr/bin/env bash
# Session 15: Nsight Compute on cuSPARSE's CSR SpMV (csrmv_v3, ALG1) and
# SpX's merge path side by side, R-MAT s21 in f64 and mixed-n2000000 in f32,
# with the L2 request metrics session 11 measured on SpX alone (s15-final.sh's
# ncu runs profiled only SpX's kernels: --launch-count ran out before
# cuSPARSE's). Usage: bench/profile/s15-ncu.sh OUTDIR
set -uo pipefail
OUT="${1:?OUTDIR}"
mkdir -p "$OUT"
source "$(dirname "$0")/common.sh"
profile_build spx_cli
NCU="$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n1)"
[[ -n "$NCU" ]] || { echo "no ncu"; exit 1; }
M=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed
M+=,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum
M+=,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
M+=,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,smsp__inst_executed.sum
M+=,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed
M+=,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size
M+=,launch__registers_per_thread
for c in "rmat:scale=21,degree=8 f64" "mixed:n=2000000 f32"; do
  set -- $c
  for k in csrmv_v3 csr_merge_kernel; do
    timeout 100 "$NCU" --kernel-name regex:"$k" --launch-count 2 --metrics "$M" "$B/spx" bench \
      "$1" --backend cuda --formats csr --algorithms merge_path --precision "$2" --reps 1 \
      --warmup 0 --quiet > "$OUT/ncu-${1%%:*}-$2-$k.txt" 2>&1
    echo "ncu $1 $2 $k rc=$?"
  done
done
