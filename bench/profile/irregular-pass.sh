#!/usr/bin/env bash
# One pass over the irregular members for issue 16: build (spx, spx_tests),
# the CUDA CSR tests, the CSR kernels and cuSPARSE's on the irregular members
# of the default suite (both precisions), then Nsight Compute metrics of SpX's
# merge path and cuSPARSE's csrmv_v3 on R-MAT s21 (f64).
# Usage: bench/profile/irregular-pass.sh OUTDIR   (SPX_BUILD_DIR: build folder)
set -uo pipefail
OUT="${1:?OUTDIR}"
shift
source "$(dirname "$0")/common.sh"
profile_build spx_cli spx_tests
echo "+ tests: ${SPX_TEST_FILTER:=CudaKernels*:SpmvKernels*:*Csr*Cuda*:*Cuda*Csr*}"
profile_tests "$OUT" "$SPX_TEST_FILTER"
echo "+ bench"
"$B/spx" bench --backend cuda --suite default --formats csr --precision both \
  --only rmat --only chunglu --only mixed --only denserows --max-seconds 0.3 "$@" \
  --json "$OUT/irregular.json" > "$OUT/irregular.txt" 2> "$OUT/irregular.err"
echo "bench rc=$?"
tail -n 3 "$OUT/irregular.err"
NCU="$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n1)"
[[ -n "$NCU" && -z "${SPX_NO_NCU:-}" ]] || exit 0
METRICS=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
METRICS+=,l1tex__throughput.avg.pct_of_peak_sustained_active
METRICS+=,breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed
METRICS+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum
METRICS+=,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
METRICS+=,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
METRICS+=,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,lts__t_sectors_op_read.sum
METRICS+=,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum
METRICS+=,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active
METRICS+=,sm__warps_active.avg.pct_of_peak_sustained_active
METRICS+=,'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
echo "+ ncu"
timeout 150 "$NCU" --kernel-name regex:'csr_merge|csrmv_v3|carries' --launch-count 8 \
  --metrics "$METRICS" "$B/spx" bench "rmat:scale=21,degree=8" --backend cuda --formats csr \
  --algorithms merge_path --precision f64 --reps 1 --warmup 0 --quiet \
  > "$OUT/ncu-rmat-s21.txt" 2>&1
echo "ncu rc=$?"
