# Sourced by the GPU profile scripts of this folder (run from the repository
# root). B: the build folder (SPX_BUILD_DIR, default /tmp/spx-prof-build,
# unless the script set B before sourcing).
#   profile_build TARGET...  prints the GPU, configures a CUDA release build in
#                            $B and builds the targets (exits on failure),
#                            then points SPX_REAL_MATRICES at shared/;
#   profile_tests OUT FILTER runs spx_tests with SPX_REQUIRE_GPU=1 into
#                            OUT/tests.log and prints its verdict lines.
B="${B:-${SPX_BUILD_DIR:-/tmp/spx-prof-build}}"

profile_build() {
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPX_CUDA=ON > "$B.configure.log" 2>&1 &&
    cmake --build "$B" -j "$(nproc)" --target "$@" > "$B.build.log" 2>&1 || {
    grep -B2 -A10 -E 'error' "$B.build.log" | head -n 60
    exit 1
  }
  export SPX_REAL_MATRICES="$PWD/shared/matrices/real"
}

profile_tests() {
  SPX_REQUIRE_GPU=1 "$B/tests/spx_tests" --gtest_filter="$2" > "$1/tests.log" 2>&1
  echo "tests rc=$?"
  grep -E '^\[  (FAILED|PASSED|SKIPPED) ' "$1/tests.log" | head -n 30
  grep -m 20 -E 'Failure' "$1/tests.log"
}

# spmm_rest OUT COLS NAME [BUDGET]: CSR SpMM (SpX's kernels and cuSPARSE's)
# at the widths COLS over the default suite's members listed in
# spmm-suite-rest.txt (those below the large ones), f64 then f32, into
# OUT/NAME-<precision>-rest.{json,txt,err}; BUDGET seconds each (default 100).
spmm_rest() {
  local p
  for p in f64 f32; do
    "$B/spx" bench --backend cuda --suite default --op spmm --formats csr --cols "$2" \
      --precision "$p" --reps 10 --warmup 2 --max-seconds 0.3 --time-budget "${4:-100}" \
      $(sed 's/^/--only /' "$(dirname "${BASH_SOURCE[0]}")/spmm-suite-rest.txt") \
      --json "$1/$3-$p-rest.json" > "$1/$3-$p-rest.txt" 2> "$1/$3-$p-rest.err"
    echo "$3 $p rc=$?"
  done
}
