#!/usr/bin/env bash
# Session 15 on the GPU, after gpu-check built $B: CSR SpMM over the suite's
# smaller members (spmm-suite-rest.txt) at n = 8, 32, 64, 128 with the vector
# groups (Auto's picks against every SpX kernel and cuSPARSE), then Nsight
# Compute on cuSPARSE's CSR SpMV (csrmv_v3, ALG1) for the L2 request metrics
# that session 11 measured on SpX's merge path: R-MAT s21 in f64 and the
# mixed member of 2·10^6 rows in f32.
# Usage: bench/profile/s15-final.sh OUTDIR
set -uo pipefail
OUT="${1:?OUTDIR}"
mkdir -p "$OUT"
source "$(dirname "$0")/common.sh"
profile_build spx_cli
T0=$SECONDS
spmm_rest "$OUT" 8,32,64,128 spmm 100
echo "rest done at $((SECONDS - T0)) s"
NCU="$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n1)"
[[ -n "$NCU" ]] || exit 0
M=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed
M+=,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum
M+=,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
M+=,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,smsp__inst_executed.sum
M+=,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size
M+=,launch__registers_per_thread
for c in "rmat:scale=21,degree=8 f64" "mixed:n=2000000 f32"; do
  set -- $c
  timeout 100 "$NCU" --kernel-name regex:'csrmv_v3|csr_merge|add_carries' --launch-count 6 \
    --metrics "$M" "$B/spx" bench "$1" --backend cuda --formats csr --algorithms merge_path \
    --precision "$2" --reps 1 --warmup 0 --quiet > "$OUT/ncu-${1%%:*}-$2.txt" 2>&1
  echo "ncu $1 $2 rc=$? at $((SECONDS - T0)) s"
done
