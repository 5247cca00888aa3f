#!/usr/bin/env bash
# Session 26: the ELLPACK family's entries (values, column indices: read
# once) loaded plainly (spx0), evict-first with __ldcs (spx1) or with
# ld.global.nc.L1::no_allocate (spx2), so that x's lines stay in L1 (ncu on
# random-n250000-d64: SELL's x gathers hit L1 32%, SELL-pack's 46%, ELL's
# 42%). Same machine, same members, binaries built from one tree.
# Usage: bench/profile/s26-stream-ab.sh OUTDIR BINDIR BUDGET
set -uo pipefail
OUT="${1:?OUTDIR}"
BIN="${2:?BINDIR}"
BUDGET="${3:-100}"
mkdir -p "$OUT"
ONLY=(random-n250000 random-n2000000 rmat-s21 chunglu-n2500000 road-n7000000 mixed-n2000000
  stencil3d-7pt-n144 fem-b3-n500 stencil2d-5pt-n2000 random-n100000 rmat-s17 chunglu-n125000
  fem-b3-n110)
ARGS=()
for m in "${ONLY[@]}"; do ARGS+=(--only "$m"); done
for v in 0 1 2; do
  "$BIN/spx$v" bench --backend cuda --suite default "${ARGS[@]}" --formats ell,sell,hll,sell_pack,sell_lp,jad \
    --no-baselines --precision both --reps 10 --warmup 2 --max-seconds 0.05 --time-budget "$BUDGET" \
    --json "$OUT/ab-$v.json" > "$OUT/ab-$v.txt" 2> "$OUT/ab-$v.err"
  echo "spx$v rc=$? $(date +%T)"
done
