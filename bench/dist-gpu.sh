#!/usr/bin/env bash
# The distributed layer on the GPU machine (issues 19 and 21): the MPI tests
# with one rank per GPU (NCCL between distinct GPUs when there are several),
# then weak and strong scaling of spx-dist bench --device over P = 1, 2, 4, ...
# up to the GPUs present, then (phase metis) the strong-scaling cases with a
# METIS partition at P = PMAX. Writes dist-gpu-tests.log, dist-gpu-scaling.txt
# and dist-gpu-metis.txt into OUTDIR.
#
#   bash bench/dist-gpu.sh OUTDIR [PMAX] [PHASES]
#     PMAX: default, the GPUs present; PHASES: default "tests scaling metis"
#     (the build, in SPX_BUILD_DIR, is reused when it is there; SPX_NO_BUILD=1
#     runs the spx-dist and tests/dist/spx_dist_tests already in it).
#   SCALING_P: the P of the scaling phase (default 1 2 4 ... PMAX).
set -uo pipefail
OUT="${1:?OUTDIR}"
B="${SPX_BUILD_DIR:-/tmp/spx-dist-build}"
gpus=$(nvidia-smi -L | wc -l)
pmax=${2:-$gpus}
phases=" ${3:-tests scaling metis} "
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if [[ ${SPX_NO_BUILD:-0} == 1 ]]; then  # binaries built elsewhere (for sm_90) and carried
  bin="$B/spx-dist"
  [[ -x $bin ]] || bin="$B/tests/dist/spx_dist_tests"  # only the tests carried
  nccl="NCCL $(ldd "$bin" | grep -o 'libnccl[^ ]* => [^ ]*' || echo 'not linked') ($(basename "$bin"))"
else
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPX_CUDA=ON -DSPX_MPI=ON > "$B.configure.log" 2>&1 &&
  cmake --build "$B" -j "$(nproc)" --target spx_dist_tests spx-dist > "$B.build.log" 2>&1 || {
  grep -B2 -A10 -E 'error|Error' "$B.configure.log" "$B.build.log" | head -n 60
  exit 1
}
nccl=$(grep -m1 -o 'NCCL found.*' "$B.configure.log" || echo "NCCL not found")
fi
echo "$nccl"
ps=()
for ((p = 1; p <= pmax; p *= 2)); do ps+=("$p"); done
read -r -a sps <<< "${SCALING_P:-${ps[*]}}"
[[ $phases == *" tests "* ]] && {
  echo "# dist tests, $gpus GPU(s), $(date -u +%Y-%m-%dT%H:%MZ), $nccl"
  for np in "${ps[@]}"; do
    echo "## mpirun -np $np (SPX_REQUIRE_GPU=1; one rank per GPU where np <= GPUs)"
    SPX_REQUIRE_GPU=1 timeout 120 mpirun -np "$np" "$B/tests/dist/spx_dist_tests" 2>&1 |
      grep -vE "\\[ +(RUN|OK) +\\]|\\[-+\\]" | tail -n 60
    echo "rc=${PIPESTATUS[0]}"
  done
} > "$OUT/dist-gpu-tests.log" 2>&1 && grep -E '^## |PASSED|FAILED|SKIPPED|rc=' "$OUT/dist-gpu-tests.log"
run() {  # run P ARGS...: one spx-dist bench, bounded (SECONDS_PER_RUN, default 75)
  local p=$1
  shift
  timeout "${SECONDS_PER_RUN:-75}" mpirun -np "$p" "$B/spx-dist" bench --device "$@"
  echo
}
header() {
  echo "# spx-dist bench --device, $(date -u +%Y-%m-%dT%H:%MZ), commit ${SPX_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)}"
  echo "# $gpus x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1), $nccl, $(mpirun --version | head -n1)"
}
[[ $phases == *" scaling "* ]] && {
  header
  echo "## weak scaling: stencil3d 7-point, about 20M nonzeros per GPU"
  for p in "${sps[@]}"; do run "$p" --gen stencil3d:n=142,points=7 --weak --reps 15; done
  echo "## weak scaling: FEM blocks of 3 (27 per row), about 20M nonzeros per GPU"
  for p in "${sps[@]}"; do run "$p" --gen fem:n=500,block=3 --weak --reps 15; done
  echo "## strong scaling: stencil3d 7-point, 160M nonzeros"
  for p in "${sps[@]}"; do run "$p" --gen stencil3d:n=284,points=7 --reps 15; done
  echo "## strong scaling: R-MAT scale 23, edge factor 12 (about 100M nonzeros)"
  for p in "${sps[@]}"; do run "$p" --gen rmat:scale=23,degree=12 --reps 10; done
} > "$OUT/dist-gpu-scaling.txt" 2>&1 && grep -E '^#|^## |slowest|rror' "$OUT/dist-gpu-scaling.txt"
# METIS partitions the whole graph on rank 0 (minutes for the 23M-row stencil).
[[ $phases == *" metis "* ]] && {
  header
  echo "## strong scaling with a METIS partition, P = $pmax"
  SECONDS_PER_RUN=280 run "$pmax" --gen stencil3d:n=284,points=7 --reps 15 --partition metis
  SECONDS_PER_RUN=280 run "$pmax" --gen rmat:scale=23,degree=12 --reps 10 --partition metis
} > "$OUT/dist-gpu-metis.txt" 2>&1 && grep -E '^#|^## |slowest|rror' "$OUT/dist-gpu-metis.txt"
exit 0
