// BCSR SpMM on the CPU: the structure of the BCSR paper's Algorithm 1
// (§III-C) with a tile of columns of B and C in place of x and y. A thread
// owns whole block rows (chunks of about 256 rows, dynamically scheduled).
// For a block row and a tile of w columns, b×w accumulators (row r of the
// block row at acc[r*Tile]) collect, for every column-major block and every
// block column c, the block's column times the tile of row bc·b + c of B:
// each tile of B's row is loaded once and used by the b rows of the block.
// The b rows of C are then written once.
//
// Row-major B: tiles of kBcsrRowTile columns, unit-stride loads along B's
// rows (the loop over the tile vectorizes). Column-major B: tiles of 8
// columns, strided loads. The block size is a template parameter for
// b ∈ {2, 3, 4, 8} (the loop over the block's rows unrolls); other sizes take
// the same code with a runtime b (B = 0).
//
// Ragged edges: a last block column reaching past the matrix only reads the
// rows of B that exist (its padding columns are skipped), and a last block
// row reaching past it writes only the rows of C that exist. Padding zeros
// inside the matrix are multiplied like entries (the Inf/NaN caveat of
// docs/formats.md).
#include <algorithm>

#include "core/instantiate.hpp"
#include "cpu/common.hpp"
#include "cpu/spmm_rows.hpp"

namespace spx::cpu {

namespace {

/// Columns per tile with row-major B.
constexpr int kBcsrRowTile = 64;

template <Value T, Index I>
struct BcsrSpmm {
  std::int64_t rows, cols, b, n;
  const I* block_ptr;
  const I* block_col;
  const T* values;
  Strided<const T> B;
  Strided<T> C;
  T alpha, beta;
};

/// Block rows [R0, R1). Bs > 0: compile-time block size; Bs = 0: runtime a.b.
template <int Bs, int Tile, bool kUnit, Value T, Index I>
void block_rows(const BcsrSpmm<T, I>& a, std::int64_t R0, std::int64_t R1) {
  constexpr int kRows = Bs > 0 ? Bs : Bcsr<T, I>::kMaxBlockSize;
  const std::int64_t b = Bs > 0 ? Bs : a.b;
  const std::int64_t bs = kUnit ? 1 : a.B.cs;
  T acc[kRows * Tile];
  for (std::int64_t R = R0; R < R1; ++R) {
    const std::int64_t here = std::min(b, a.rows - R * b);  // rows of C in this block row
    for (std::int64_t j0 = 0; j0 < a.n; j0 += Tile) {
      const std::int64_t w = std::min<std::int64_t>(Tile, a.n - j0);
      for (std::int64_t r = 0; r < b; ++r)
        std::fill_n(acc + r * Tile, w, T{0});
      for (std::int64_t k = a.block_ptr[R]; k < a.block_ptr[R + 1]; ++k) {
        const T* blk = a.values + k * b * b;
        const std::int64_t c0 = std::int64_t{a.block_col[k]} * b;
        const std::int64_t valid = std::min(b, a.cols - c0);  // columns inside the matrix
        for (std::int64_t c = 0; c < valid; ++c) {
          const T* brow = a.B.row(c0 + c) + j0 * bs;
          for (std::int64_t r = 0; r < b; ++r) {
            const T v = blk[c * b + r];
            T* t = acc + r * Tile;
#pragma omp simd
            for (std::int64_t j = 0; j < w; ++j)
              t[j] += v * brow[j * bs];
          }
        }
      }
      for (std::int64_t r = 0; r < here; ++r)
        store_tile(a.C, R * b + r, j0, w, a.alpha, acc + r * Tile, a.beta);
    }
  }
}

template <int Bs, Value T, Index I>
void run(const BcsrSpmm<T, I>& a, std::int64_t block_rows_total, int threads) {
  const std::int64_t chunk = std::max<std::int64_t>(1, 256 / a.b);
  const std::int64_t chunks = (block_rows_total + chunk - 1) / chunk;
  const bool unit = a.B.cs == 1;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (std::int64_t t = 0; t < chunks; ++t) {
    const std::int64_t R0 = t * chunk, R1 = std::min(block_rows_total, R0 + chunk);
    if (unit) {
      block_rows<Bs, kBcsrRowTile, true>(a, R0, R1);
    } else {
      block_rows<Bs, kColTile, false>(a, R0, R1);
    }
  }
}

}  // namespace

template <Value T, Index I>
void spmm_bcsr_block_rows(T alpha, const Bcsr<T, I>& A, DenseView<const T> Bv, T beta,
                          DenseView<T> Cv, const ExecContext&) {
  const std::int64_t n = Bv.cols;
  const BcsrSpmm<T, I> a{A.rows(),
                         A.cols(),
                         A.block_size(),
                         n,
                         A.block_ptr().data(),
                         A.block_col().data(),
                         A.values().data(),
                         strided(Bv),
                         strided(Cv),
                         alpha,
                         beta};
  const std::int64_t mb = A.block_rows();
  const int threads = threads_for(static_cast<std::int64_t>(A.values().size()) * n + A.rows() * n);
  switch (A.block_size()) {
    case 2:
      return run<2>(a, mb, threads);
    case 3:
      return run<3>(a, mb, threads);
    case 4:
      return run<4>(a, mb, threads);
    case 8:
      return run<8>(a, mb, threads);
    default:
      return run<0>(a, mb, threads);
  }
}

#define SPX_INST(T, I)                                                                          \
  template void spmm_bcsr_block_rows(T, const Bcsr<T, I>&, DenseView<const T>, T, DenseView<T>, \
                                     const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cpu
