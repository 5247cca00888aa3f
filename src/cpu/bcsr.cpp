// BCSR SpMV on the CPU: the BCSR paper's Algorithm 1 (§III-C). A thread owns
// whole block rows; it streams the block row's column-major blocks, and for
// each block column c multiplies the block's column by x[c] into b
// accumulators kept in registers, then writes the b entries of y once.
//
// The block size is a template parameter for the common sizes (a switch over
// the compiled sizes), so the loop over a block column has a compile-time trip
// count and the compiler vectorizes it; other sizes take the same code with a
// runtime b (B = 0).
//
// Ragged edges: the blocks of the last block row and column may reach past the
// matrix. Their padding holds zeros, so the accumulators of rows past the end
// are never written to y, and the last block column reads x through a
// zero-padded copy of its valid part: x and y keep their true sizes.
#include <algorithm>

#include "core/instantiate.hpp"
#include "cpu/common.hpp"
#include "cpu/kernels.hpp"

namespace spx::cpu {

namespace {

template <Value T, Index I>
struct BcsrArgs {
  std::int64_t rows, b;
  const I* block_ptr;
  const I* block_col;
  const T* values;
  const T* x;
  const T* x_tail;       ///< the last block column's part of x, zero-padded to b
  std::int64_t tail_bc;  ///< block column that reads x_tail (−1: none)
  T alpha, beta;
  T* y;
};

/// Block rows [R0, R1). B > 0: compile-time block size; B = 0: runtime a.b.
template <int B, Value T, Index I>
void block_rows(const BcsrArgs<T, I>& a, std::int64_t R0, std::int64_t R1) {
  constexpr int kAcc = B > 0 ? B : Bcsr<T, I>::kMaxBlockSize;
  const std::int64_t b = B > 0 ? B : a.b;
  for (std::int64_t R = R0; R < R1; ++R) {
    T acc[kAcc] = {};
    for (std::int64_t k = a.block_ptr[R]; k < a.block_ptr[R + 1]; ++k) {
      const T* blk = a.values + k * b * b;
      const std::int64_t bc = a.block_col[k];
      const T* xb = bc == a.tail_bc ? a.x_tail : a.x + bc * b;
      for (std::int64_t c = 0; c < b; ++c) {
        const T xc = xb[c];
        // `omp simd` keeps GCC from fully unrolling this loop before its
        // vectorizer sees it (the unrolled code vectorizes badly).
#pragma omp simd
        for (std::int64_t r = 0; r < b; ++r)
          acc[r] += blk[c * b + r] * xc;
      }
    }
    const std::int64_t here = std::min(b, a.rows - R * b);  // rows of this block row
    for (std::int64_t r = 0; r < here; ++r)
      axpby_store(a.y, R * b + r, a.alpha, acc[r], a.beta);
  }
}

template <int B, Value T, Index I>
void run(const BcsrArgs<T, I>& a, std::int64_t block_rows_total, int threads) {
  // Chunks of about 256 rows, dynamically scheduled (block rows differ in length).
  const std::int64_t chunk = std::max<std::int64_t>(1, 256 / a.b);
  const std::int64_t chunks = (block_rows_total + chunk - 1) / chunk;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (std::int64_t t = 0; t < chunks; ++t)
    block_rows<B>(a, t * chunk, std::min(block_rows_total, (t + 1) * chunk));
}

}  // namespace

template <Value T, Index I>
void spmv_bcsr_block_rows(T alpha, const Bcsr<T, I>& A, const T* x, T beta, T* y,
                          const ExecContext&) {
  const std::int64_t n = A.cols(), b = A.block_size();
  T x_tail[Bcsr<T, I>::kMaxBlockSize] = {};
  std::int64_t tail_bc = -1;
  if (n % b != 0) {
    tail_bc = n / b;
    std::copy(x + tail_bc * b, x + n, x_tail);
  }
  const BcsrArgs<T, I> a{A.rows(),
                         b,
                         A.block_ptr().data(),
                         A.block_col().data(),
                         A.values().data(),
                         x,
                         x_tail,
                         tail_bc,
                         alpha,
                         beta,
                         y};
  const std::int64_t mb = A.block_rows();
  const int threads = threads_for(static_cast<std::int64_t>(A.values().size()));
  switch (b) {
    case 1:
      return run<1>(a, mb, threads);
    case 2:
      return run<2>(a, mb, threads);
    case 3:
      return run<3>(a, mb, threads);
    case 4:
      return run<4>(a, mb, threads);
    case 5:
      return run<5>(a, mb, threads);
    case 6:
      return run<6>(a, mb, threads);
    case 7:
      return run<7>(a, mb, threads);
    case 8:
      return run<8>(a, mb, threads);
    case 16:
      return run<16>(a, mb, threads);
    case 32:
      return run<32>(a, mb, threads);
    default:
      return run<0>(a, mb, threads);
  }
}

#define SPX_INST(T, I) \
  template void spmv_bcsr_block_rows(T, const Bcsr<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cpu
