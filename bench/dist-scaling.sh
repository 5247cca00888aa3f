#!/usr/bin/env bash
# Strong and weak scaling of the distributed product over P = 1..PMAX ranks
# on the CPU, and the two ways of reading a Matrix Market file. Writes one
# text file (stdout of every run, with the machine's description first).
#
#   bash bench/dist-scaling.sh BUILD_DIR OUT_FILE [PMAX]
#
# One OpenMP thread per rank. Ranks beyond the cores are oversubscribed:
# their times measure sharing, not scaling.
set -euo pipefail
build=${1:?build dir}
out=${2:?output file}
pmax=${3:-4}
cores=$(nproc --all)  # before OMP_NUM_THREADS, which nproc obeys
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tool="$build/spx-dist"
mtx=$(mktemp --suffix=.mtx)
trap 'rm -f "$mtx"' EXIT
{
  echo "# spx-dist scaling, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD)"
  echo "# machine: $cores cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"
  echo "# $(free -g | awk '/Mem:/ {print $2}') GB, load average before: $(cut -d' ' -f1-3 /proc/loadavg);"
  echo "# shared with other engineers' builds; P > $cores is oversubscribed."
  echo "# $(mpirun --version | head -1), OMP_NUM_THREADS=1"
  echo
  echo "## strong scaling: stencil3d n=48 27-point (110592 rows, 2.9M nonzeros), nnz vs METIS partition"
  for p in $(seq 1 "$pmax"); do
    for part in nnz metis; do
      mpirun -np "$p" "$tool" bench --gen stencil3d:n=48,points=27 --partition "$part" --reps 30
      echo
    done
  done
  echo "## strong scaling: random n=100000 degree 10 (all-to-all halos), nnz vs METIS partition"
  for p in $(seq 1 "$pmax"); do
    for part in nnz metis; do
      mpirun -np "$p" "$tool" bench --gen random:n=100000,degree=10 --partition "$part" --reps 30
      echo
    done
  done
  echo "## strong scaling, SpMM with 8 columns: stencil3d n=48 27-point"
  for p in $(seq 1 "$pmax"); do
    mpirun -np "$p" "$tool" bench --gen stencil3d:n=48,points=27 --n 8 --reps 10
    echo
  done
  echo "## weak scaling: stencil3d 27-point, n=40 at P=1 (64000 rows per rank)"
  for p in $(seq 1 "$pmax"); do
    mpirun -np "$p" "$tool" bench --gen stencil3d:n=40,points=27 --weak --reps 30
    echo
  done
  echo "## reading a Matrix Market file: each rank reads its share vs rank 0 reads and distributes"
  "$build/spx" gen stencil3d --n 48 --points 27 -o "$mtx" >/dev/null
  echo "# file: stencil3d n=48 27-point, $(du -m "$mtx" | cut -f1) MB, $(sed -n 2p "$mtx" | head -c 60)"
  for p in $(seq 1 "$pmax"); do
    mpirun -np "$p" "$tool" read "$mtx" --reps 3
    echo
  done
} | tee "$out"
