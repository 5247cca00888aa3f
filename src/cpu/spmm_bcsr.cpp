// BCSR SpMM on the CPU: the structure of the BCSR paper's Algorithm 1
// (§III-C) with tiles of columns of B and C in place of x and y. A thread
// owns whole block rows (chunks of about 128 rows, dynamically scheduled);
// within a block row, the driver of spmm_rows.hpp takes the b rows one after
// the other, and row r of the block row collects, over the block row's
// column-major blocks and their block columns c, blk[c·b + r] times the tile
// of row bc·b + c of B, in accumulators kept in registers. The b rows of a
// block row read the same rows of B, which stay in L1 between them. (A first
// version kept b×64 accumulators per block row in memory, loading and storing
// one per multiply-add: 1.4-1.9x slower at n = 8 and 64 on one core here, on
// stencil3d-27pt-n20 and fem-b3-n50.)
//
// The block size is a template parameter for b ∈ {2, 3, 4, 8} (the loop over
// a block's columns unrolls); other sizes take the same code with a runtime b
// (B = 0).
//
// Ragged edges: a last block column reaching past the matrix only reads the
// rows of B that exist (its padding columns are skipped), and a last block
// row reaching past it has only the rows of C that exist. Padding zeros
// inside the matrix are multiplied like entries (the Inf/NaN caveat of
// docs/formats.md).
#include <algorithm>

#include "core/instantiate.hpp"
#include "cpu/common.hpp"
#include "cpu/spmm_rows.hpp"

namespace spx::cpu {

namespace {

/// BCSR as a row source: row i is row i mod b of block row i / b.
template <int Bs, Value T, Index I>
struct BcsrRows {
  const I* block_ptr;
  const I* block_col;
  const T* values;
  std::int64_t rows_, cols, b;

  std::int64_t rows() const { return rows_; }
  std::int64_t out_row(std::int64_t i) const { return i; }
  template <class F>
  void visit(std::int64_t i, F&& f) const {
    const std::int64_t bb = Bs > 0 ? Bs : b;
    const std::int64_t R = i / bb, r = i - R * bb;
    for (std::int64_t k = block_ptr[R]; k < block_ptr[R + 1]; ++k) {
      const T* blk = values + k * bb * bb + r;
      const std::int64_t c0 = std::int64_t{block_col[k]} * bb;
      if (c0 + bb <= cols) {
        for (std::int64_t c = 0; c < bb; ++c)
          f(c0 + c, blk[c * bb]);
      } else {
        for (std::int64_t c = 0; c < cols - c0; ++c)  // the ragged last block column
          f(c0 + c, blk[c * bb]);
      }
    }
  }
};

template <int Bs, Value T, Index I>
void run(T alpha, const Bcsr<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C) {
  const std::int64_t b = A.block_size();
  const BcsrRows<Bs, T, I> rows{
      A.block_ptr().data(), A.block_col().data(), A.values().data(), A.rows(), A.cols(), b};
  // Whole block rows per task: about 128 rows.
  spmm_rows(alpha, rows, static_cast<std::int64_t>(A.values().size()), B, beta, C,
            b * std::max<std::int64_t>(1, kRowsPerTask / b));
}

}  // namespace

template <Value T, Index I>
void spmm_bcsr_block_rows(T alpha, const Bcsr<T, I>& A, DenseView<const T> B, T beta,
                          DenseView<T> C, const ExecContext&) {
  switch (A.block_size()) {
    case 2:
      return run<2>(alpha, A, B, beta, C);
    case 3:
      return run<3>(alpha, A, B, beta, C);
    case 4:
      return run<4>(alpha, A, B, beta, C);
    case 8:
      return run<8>(alpha, A, B, beta, C);
    default:
      return run<0>(alpha, A, B, beta, C);
  }
}

#define SPX_INST(T, I)                                                                          \
  template void spmm_bcsr_block_rows(T, const Bcsr<T, I>&, DenseView<const T>, T, DenseView<T>, \
                                     const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cpu
