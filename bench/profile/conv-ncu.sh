#!/usr/bin/env bash
# Where a device conversion's time goes (issue 20): the conversion times that
# `spx bench` measures for the DIA family, SELL and SELL-pack on one large
# stencil, its symmetric twin and fem-b6-n250, then every kernel of the same
# runs under Nsight Compute (gpu__time_duration), so the kernels' sum can be
# set against the conversion's wall time (ncu.tar.gz: one CSV per member and
# format; banded-n9000000's CSR run shows the device advice's kernels). Also the device advice time of the whole-format bench on
# banded-n9000000 (the advisor report).
# Usage: bench/profile/conv-ncu.sh OUTDIR SPX  (SPX: a CUDA-built spx binary)
set -uo pipefail
O="${1:?OUTDIR}"
S="${2:?SPX}"
mkdir -p "$O" "$O/ncu"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
R="$PWD/shared/matrices/real"
M="--only stencil3d-7pt-n144 --only fem-b6-n250"
F="csr,dia,dia_lp,sym_dia,sell,sell_pack,sym_csr,sell_lp"
"$S" bench --backend cuda --suite default $M --formats "$F" --precision both --reps 10 \
  --warmup 2 --no-baselines --real-dir "$R" --json "$O/conv.json" > "$O/conv.txt" 2> "$O/conv.err"
echo "conv rc=$?"
python3 bench/profile/fewer_bytes_summary.py "$O/conv.json" > "$O/conv-summary.txt" 2>&1
for mf in stencil3d-7pt-n144:dia stencil3d-7pt-n144:dia_lp stencil3d-7pt-n144:sell_pack \
  fem-b6-n250:dia fem-b6-n250:dia_lp fem-b6-n250:sell_pack stencil3d-7pt-n144-sym:sym_dia \
  banded-n9000000:csr; do
  m="${mf%%:*}" f="${mf##*:}"
  timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum --csv \
    "$S" bench --backend cuda --suite default --only "$m" --formats "$f" --precision f64 \
    --reps 1 --warmup 0 --no-baselines --quiet --real-dir "$R" \
    > "$O/ncu/$m-$f.csv" 2> "$O/ncu/$m-$f.err"
  echo "ncu $m $f rc=$?"
done
tar -C "$O" -czf "$O/ncu.tar.gz" ncu && rm -rf "$O/ncu"
if [ "${SPX_BANDED:-1}" = 1 ]; then
  "$S" bench --backend cuda --suite default --only banded-n9000000 --precision both --reps 10 \
    --warmup 2 --max-seconds 0.1 --real-dir "$R" --json "$O/banded.json" > "$O/banded.txt" \
    2> "$O/banded.err"
  echo "banded rc=$?"
fi
