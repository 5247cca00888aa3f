// SYM_DIA SpMV and SpMM on the CPU: y = alpha·(L + D + Lᵀ)·x + beta·y from the
// diagonals of offset <= 0 alone, a thread per block of rows as for DIA, no
// scatter: row i reads the lower diagonal d at row i (column i + o) and its
// mirror, the same diagonal at row i − o (column i − o). For each block, the
// diagonals are streamed one after the other into a block of accumulators,
// twice (the stored part, then the mirrored part) for the strictly lower ones,
// so both inner loops are unit-stride multiply-adds the compiler vectorizes,
// and y is written once. Deterministic.
//
// SpMM: the row driver of spmm_rows.hpp over a row source listing row i's
// stored diagonals, then the mirrored ones.
#include <algorithm>

#include "core/instantiate.hpp"
#include "cpu/common.hpp"
#include "cpu/kernels.hpp"
#include "cpu/spmm_rows.hpp"

namespace spx::cpu {

namespace {
/// Rows per block: the accumulators stay in L1.
constexpr std::int64_t kRowBlock = 512;

/// SYM_DIA rows for the SpMM driver: row i holds L_d[i] at column i + o_d
/// (o_d <= 0, inside the matrix) and, for o_d < 0, L_d[i − o_d] at column
/// i − o_d (when inside). Padding zeros are multiplied like entries, as DIA's.
template <Value T, Index I>
struct SymDiagonalRows {
  const T* val;
  const I* off;
  std::int64_t n, ndiag;

  std::int64_t rows() const { return n; }
  std::int64_t out_row(std::int64_t i) const { return i; }
  template <class F>
  void visit(std::int64_t i, F&& f) const {
    for (std::int64_t d = 0; d < ndiag; ++d) {
      const std::int64_t c = i + off[d];
      if (c >= 0) f(c, val[d * n + i]);
    }
    for (std::int64_t d = ndiag - 1; d >= 0; --d) {
      const std::int64_t c = i - off[d];
      if (off[d] < 0 && c < n) f(c, val[d * n + c]);
    }
  }
};
}  // namespace

template <Value T, Index I>
void spmv_sym_dia_rows(T alpha, const SymDia<T, I>& A, const T* x, T beta, T* y,
                       const ExecContext&) {
  const std::int64_t n = A.rows(), nd = A.ndiag();
  const I* off = A.offsets().data();
  const T* val = A.values().data();
  const std::int64_t blocks = (n + kRowBlock - 1) / kRowBlock;
  const int threads = threads_for(2 * n * std::max<std::int64_t>(nd, 1));

#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t blk = 0; blk < blocks; ++blk) {
    const std::int64_t r0 = blk * kRowBlock, r1 = std::min(n, r0 + kRowBlock);
    T acc[kRowBlock];
    std::fill(acc, acc + (r1 - r0), T{0});
    for (std::int64_t d = 0; d < nd; ++d) {
      const std::int64_t o = off[d];  // <= 0
      const T* vd = val + d * n;
      // Stored part: rows whose column i + o lies inside the matrix.
      for (std::int64_t i = std::max(r0, -o); i < r1; ++i)
        acc[i - r0] += vd[i] * x[i + o];
      if (o == 0) continue;
      // Mirrored part: A(i, i − o) = L_d[i − o], rows with i − o < n.
      const std::int64_t hi = std::min(r1, n + o);
      for (std::int64_t i = r0; i < hi; ++i)
        acc[i - r0] += vd[i - o] * x[i - o];
    }
    for (std::int64_t i = r0; i < r1; ++i)
      axpby_store(y, i, alpha, acc[i - r0], beta);
  }
}

template <Value T, Index I>
void spmm_sym_dia_rows(T alpha, const SymDia<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                       const ExecContext&) {
  const SymDiagonalRows<T, I> rows{A.values().data(), A.offsets().data(), A.rows(), A.ndiag()};
  spmm_rows(alpha, rows, 2 * static_cast<std::int64_t>(A.values().size()), B, beta, C);
}

#define SPX_INST(T, I)                                                                          \
  template void spmv_sym_dia_rows(T, const SymDia<T, I>&, const T*, T, T*, const ExecContext&); \
  template void spmm_sym_dia_rows(T, const SymDia<T, I>&, DenseView<const T>, T, DenseView<T>,  \
                                  const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cpu
