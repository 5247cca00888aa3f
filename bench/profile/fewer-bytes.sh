#!/usr/bin/env bash
# Issue 20 on the GPU: the formats that move fewer bytes per nonzero (SELL-pack,
# SYM_CSR, SYM_DIA, SELL-LP, DIA-LP; fewer_bytes_summary.py lists them)
# against SpX's full-storage, full-precision kernels of the same run. Runs
# `spx bench` over the default suite (its symmetric members included) in f64
# and f32 with every format, then prints per format and member the best
# full-storage kernel's time over the format's best (the issue's targets:
# compressed indices >= 1.15 (f64) / 1.25 (f32), symmetric >= 1.4 and reduced
# precision >= 1.4 (f64) on the large members), the bytes per nonzero of both,
# the fraction of the copy bandwidth in the bytes it moves, its device
# conversion in SpMV-equivalents (target <= 10) and, for the reduced-precision
# formats, the measured error over the documented bound (<= 1).
# Usage: bench/profile/fewer-bytes.sh OUTDIR [spx bench arguments...]
# Environment: SPX_BUILD_DIR (default /tmp/spx-fewer-bytes-build; an spx
# binary already there is rebuilt only if the sources changed).
set -uo pipefail
OUT="${1:?OUTDIR}"
shift
mkdir -p "$OUT"
B="${SPX_BUILD_DIR:-/tmp/spx-fewer-bytes-build}"
source "$(dirname "$0")/common.sh"
profile_build spx_cli
"$B/spx" bench --backend cuda --suite default --precision both --json "$OUT/fewer-bytes.json" "$@" \
  > "$OUT/fewer-bytes.txt" 2> "$OUT/fewer-bytes.err"
echo "bench rc=$?"
tail -n 3 "$OUT/fewer-bytes.err"
python3 "$(dirname "$0")/fewer_bytes_summary.py" "$OUT/fewer-bytes.json" --min-nnz 100000 \
  > "$OUT/fewer-bytes-summary.txt"
grep -E '^[a-z_]+:|geomean' "$OUT/fewer-bytes-summary.txt"
