#!/bin/sh
# Writes a small seed corpus for fuzz_matrix_market into tests/fuzz/corpus/
# (git-ignored): one file per field/symmetry/format combination, plus the
# first lines of a few real matrices when ../shared/matrices/real exists.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/corpus}
mkdir -p "$out"
seed() { printf '%b' "$2" > "$out/$1"; }
seed coord-real-general '%%MatrixMarket matrix coordinate real general\n% comment\n3 4 4\n1 1 1.5\n3 4 -2e-3\n2 1 +7\n3 3 1e300\n'
seed coord-integer-general '%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 -5\n2 2 3\n'
seed coord-pattern-general '%%MatrixMarket matrix coordinate pattern general\n2 3 2\n1 3\n2 1\n'
seed coord-real-symmetric '%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 2\n3 1 5\n3 2 -1\n'
seed coord-real-skew '%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 4\n3 2 -1.5\n'
seed coord-pattern-symmetric '%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 1\n2 1\n'
seed coord-integer-skew '%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 3\n'
seed array-real-general '%%MatrixMarket matrix array real general\n2 3\n1\n0\n0\n4.5\n-2\n0\n'
seed array-integer-general '%%MatrixMarket matrix array integer general\n1 2\n3\n-4\n'
seed array-real-symmetric '%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n0\n4\n5\n6\n'
seed array-real-skew '%%MatrixMarket matrix array real skew-symmetric\n3 3\n7\n0\n-8\n'
seed crlf-comments '%%MatrixMarket MATRIX Coordinate REAL General\r\n%\r\n\r\n\t2 2 2  \r\n\n1\t1   0.5\r\n%\n   \n2 2 .25'
seed values '%%MatrixMarket matrix coordinate real general\n1 6 6\n1 1 0.1\n1 2 4.9406564584124654e-324\n1 3 1e-400\n1 4 nan\n1 5 -inf\n1 6 -0\n'
seed coord-symmetric-upper '%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 2\n1 3 5\n2 3 -1\n'
seed coord-symmetric-both '%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n2 1 4\n1 2 4\n3 1 1\n1 3 2\n'
seed coord-skew-both '%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 3\n2 1 4\n1 2 -4\n2 3 1\n'
seed cr-only '%%MatrixMarket matrix coordinate real general\r2 2 1\r1 1 1\r'
seed complex '%%MatrixMarket matrix coordinate complex hermitian\n2 2 1\n2 1 1 2\n'
# gzip seeds: the harness reads inputs with the gzip magic bytes from a file.
if command -v gzip > /dev/null; then
  gzip -c -n "$out/coord-real-symmetric" > "$out/gz-coord-real-symmetric"
  gzip -c -n "$out/array-real-general" > "$out/gz-array-real-general"
fi
real=$here/../../../shared/matrices/real
if [ -d "$real" ]; then
  for m in bcsstk02 gr_30_30 dwt_607 west0989; do
    [ -f "$real/$m.mtx" ] && head -c 3000 "$real/$m.mtx" > "$out/real-$m"
  done
fi
echo "seed corpus in $out: $(ls "$out" | wc -l) files"
