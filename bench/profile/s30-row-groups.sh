#!/usr/bin/env bash
# Session 30: builds bench/profile/s30-row-groups.cu against a CUDA build of
# libspx (gpu-check's, $SPX_BUILD_DIR, default out/gb) and runs it over its
# default members in both precisions, stopping at the time limit.
# Usage: bench/profile/s30-row-groups.sh OUTDIR [ROUNDS] [SECONDS]
set -uo pipefail
OUT="${1:?OUTDIR}"
ROUNDS="${2:-15}"
SECONDS_LIMIT="${3:-240}"
BUILD="${SPX_BUILD_DIR:-out/gb}"
mkdir -p "$OUT"
nvcc -O3 -arch=sm_90 -std=c++20 --expt-relaxed-constexpr -Iinclude -Isrc -Xcompiler -fopenmp \
  bench/profile/s30-row-groups.cu "$BUILD/libspx.a" -lcublas -lcusparse -lfmt -lz -lgomp \
  -o "$OUT/row-groups" 2> "$OUT/row-groups-build.err" || { tail -5 "$OUT/row-groups-build.err"; exit 1; }
timeout "$SECONDS_LIMIT" "$OUT/row-groups" "$ROUNDS" > "$OUT/row-groups.txt" 2> "$OUT/row-groups.err"
echo "row-groups rc=$? $(date +%T)"
rm -f "$OUT/row-groups"
