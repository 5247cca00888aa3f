#!/usr/bin/env bash
# Session 26: why SELL-pack (sell_pack_kernel, every slice a fallback) runs
# SELL's own predicated rounds 1.28x faster than SELL (rows_kernel with
# SellLayout) on random-n250000-d64 in f32, and 0.84x in f64 (H200 suite
# runs of sessions 22-25). Nsight Compute on ELL's, SELL's and SELL-pack's
# thread-per-row kernels, both precisions, and the SASS of the f32 kernels.
# Usage: bench/profile/s26-sell-ncu.sh OUTDIR SPX [OBJ...]
#   SPX: the spx binary; OBJ: object files whose SASS to dump (sm_90).
set -uo pipefail
OUT="${1:?OUTDIR}"
SPX="${2:?SPX}"
shift 2
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
NCU="$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n1)"
[[ -n "$NCU" ]] || { echo "no ncu"; exit 1; }
CUOBJ="$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)"
for o in "$@"; do
  "$CUOBJ" -sass "$o" > "$OUT/$(basename "$o" .o).sass" 2>&1
  echo "sass $o rc=$?"
done
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
M+=,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct
M+=,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum
M+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_hit_rate.pct
M+=,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed
M+=,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active
M+=,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size
M+=,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio
M+=,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio
M+=,smsp__average_warp_latency_issue_stalled_drain.ratio
M+=,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
M+=,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio
M+=,smsp__warps_launched.sum,sm__cycles_elapsed.avg.per_second
for p in f32 f64; do
  timeout 120 "$NCU" --clock-control none --kernel-name regex:'rows_kernel|sell_pack_kernel' \
    --launch-count 12 --metrics "$M" "$SPX" bench random:n=250000,degree=64 --backend cuda \
    --formats ell,sell,sell_pack --algorithms thread_per_row --no-baselines --precision "$p" \
    --reps 2 --warmup 0 --quiet > "$OUT/ncu-random-$p.txt" 2>&1
  echo "ncu $p rc=$?"
done
# Timed (no profiler) for reference, same members, both precisions.
"$SPX" bench random:n=250000,degree=64 --backend cuda --formats ell,sell,sell_pack \
  --no-baselines --precision both --reps 20 --warmup 3 > "$OUT/bench-random.txt" 2>&1
echo "bench rc=$?"
