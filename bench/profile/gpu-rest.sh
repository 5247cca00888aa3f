#!/usr/bin/env bash
# The parts of scripts/gpu-check after its tests (the Python package's GPU
# tests and overhead, the benchmark with its advisor report), then the
# distributed runs of bench/dist-gpu.sh, in one call on a machine with one or
# more GPUs. Used when a gpu-check run's tests and sanitizers already passed
# at the same commit and only these are left. Usage: bench/profile/gpu-rest.sh OUTDIR
set -uo pipefail
OUT="${1:?OUTDIR}"
B=/tmp/spx-rest-build
export SPX_REAL_MATRICES="$PWD/shared/matrices/real" NCCL_NVLS_ENABLE=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPX_CUDA=ON -DSPX_BUILD_TESTS=ON > "$B.configure.log" 2>&1 &&
  cmake --build "$B" -j "$(nproc)" --target spx_cli spx_dist_tests spx-dist spx > "$B.build.log" 2>&1 || {
  grep -B2 -A10 -E 'error' "$B.build.log" | head -n 40
  exit 1
}
echo "+ python (CUDA_VISIBLE_DEVICES=0)"
{
  cmake --install "$B" --prefix "$B/install" > /dev/null &&
    python3 -m pip install -q --no-build-isolation ./python \
      --config-settings=cmake.define.SPX_ROOT="$B/install" --config-settings=build-dir="$B/python" &&
    (cd "$B" && CUDA_VISIBLE_DEVICES=0 SPX_REQUIRE_GPU=1 python3 -m pytest -q -p no:cacheprovider -rs "$OLDPWD/python/tests") &&
    (cd "$B" && CUDA_VISIBLE_DEVICES=0 timeout 100 python3 "$OLDPWD/python/bench/overhead_gpu.py")
} > "$OUT/python-gpu.log" 2>&1
echo "python rc=$?"
tail -n 22 "$OUT/python-gpu.log"
echo "+ bench (CUDA_VISIBLE_DEVICES=0)"
CUDA_VISIBLE_DEVICES=0 timeout 150 "$B/spx" bench --backend cuda --time-budget 110 \
  --json "$OUT/bench.json" > "$OUT/bench.txt" 2> "$B.bench.err"
echo "bench rc=$?"
tail -n 3 "$B.bench.err"
grep -A12 -i "advisor" "$OUT/bench.txt" | head -n 30
echo "+ distributed"
SPX_BUILD_DIR="$B" bash bench/dist-gpu.sh "$OUT"
