#!/usr/bin/env bash
# Session 13 (issue 20): DIA's row kernel (DIA, DIA-LP) and SYM_DIA's with
# several rows per thread and diagonals per chunk (experiment knobs
# SPX_DIA_VARIANT="R,C" and SPX_SYMDIA_VARIANT="R,C"), over the large
# stencil and FEM members and their symmetric copies, f64 and f32; each run
# checks every product against the reference.
# Usage: bench/profile/s13-diag-rows.sh OUTDIR
set -uo pipefail
OUT="${1:?OUTDIR}"
mkdir -p "$OUT"
source "$(dirname "$0")/common.sh"
profile_build spx_cli
run() {  # NAME DIA_VARIANT SYMDIA_VARIANT
  SPX_DIA_VARIANT="$2" SPX_SYMDIA_VARIANT="$3" "$B/spx" bench --backend cuda --suite default \
    --precision both --formats dia,hdi,dia_lp,sym_dia --no-baselines --reps 30 \
    --only stencil3d-7pt-n144 --only stencil3d-27pt-n90 --only stencil2d-5pt-n2000 \
    --only fem-b3-n500 --json "$OUT/diag-$1.json" > "$OUT/diag-$1.txt" 2> "$OUT/diag-$1.err"
  echo "$1 rc=$? $(grep -c '"status": "ok"' "$OUT/diag-$1.json" 2>/dev/null)"
}
run base 0 0
run r2c8 2,8 2,2
run r2c4 2,4 2,1
run r4c4 4,4 4,1
run r4c2 4,2 1,4
run r2c2 2,2 0
run base2 0 0
