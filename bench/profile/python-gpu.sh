#!/usr/bin/env bash
# The Python package's tests on a GPU machine (SPX_REQUIRE_GPU=1), against a
# CUDA build of the library only. Usage: bench/profile/python-gpu.sh OUTDIR
set -uo pipefail
OUT="${1:?OUTDIR}"
B=/tmp/spx-py-build
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPX_CUDA=ON -DSPX_BUILD_TESTS=OFF -DSPX_BUILD_TOOLS=OFF -DSPX_MPI=OFF > "$B.configure.log" 2>&1 &&
  cmake --build "$B" -j "$(nproc)" > "$B.build.log" 2>&1 &&
  cmake --install "$B" --prefix "$B/install" > /dev/null || { tail -n 30 "$B.configure.log" "$B.build.log"; exit 1; }
python3 -m pip install -q --no-build-isolation ./python --config-settings=cmake.define.SPX_ROOT="$B/install" \
  --config-settings=build-dir="$B/python" > "$OUT/python-gpu.log" 2>&1 || { tail -n 30 "$OUT/python-gpu.log"; exit 1; }
(cd "$B" && SPX_REQUIRE_GPU=1 python3 -m pytest -q -p no:cacheprovider -rs "$OLDPWD/python/tests" >> "$OUT/python-gpu.log" 2>&1)
echo "pytest rc=$?"
tail -n 8 "$OUT/python-gpu.log"
