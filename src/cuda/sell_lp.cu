// SELL-LP SpMV on the GPU (sell_lp.hpp): SELL's row kernel (sell.cu,
// ellpack_rows.cuh) over values stored in reduced precision, each widened to
// T in a register before its product (float → double with a conversion;
// bfloat16 → float with a shift of its 16 bits): x, y, the products and the
// sums stay in T. Per stored nonzero the kernel loads sizeof(S) + sizeof(I)
// bytes of the matrix instead of sizeof(T) + sizeof(I): f64/i32 moves 8
// bytes instead of 12, f32/i32 6 instead of 8.
//
//   ThreadPerRow   one thread per stored row;
//   ThreadsPerRow  SELL-P: V lanes per row (sell_lanes(threads_per_row)).
//
// Geometry, the predicated rounds of four entries, the lanes' partial sums
// added in lane order (deterministic) and the output permutation are those
// of rows_kernel with SellLayout: it is SELL's kernel, instantiated with the
// reduced value type (rows_kernel's S). Auto: as SELL's (ThreadsPerRow when
// threads_per_row > 1).
#include <cuda_runtime.h>

#include <cstdint>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/ellpack_kernels.hpp"
#include "cuda/ellpack_rows.cuh"
#include "cuda/launch.hpp"

namespace spx::cuda {
namespace {

/// rows_kernel<V> with the SELL layout of A over its reduced values.
template <int V, Value T, Index I>
void launch_sell_lp(const char* name, T alpha, const SellLp<T, I>& A, const T* x, T beta, T* y,
                    cudaStream_t stream) {
  const ellpack::SellLayout<I> layout{A.slice_ptr().data(),
                                      A.perm().empty() ? nullptr : A.perm().data(),
                                      ellpack::RowDivisor(A.slice_size())};
  ellpack::launch_rows<V>(name, A, layout, x, alpha, beta, y, stream);
}

}  // namespace

template <Value T, Index I>
void spmv_sell_lp_thread(T alpha, const SellLp<T, I>& A, const T* x, T beta, T* y,
                         const ExecContext& ctx) {
  launch_sell_lp<1>("rows_kernel<1> (SELL-LP)", alpha, A, x, beta, y, ctx.stream);
}

template <Value T, Index I>
void spmv_sell_lp_threads(T alpha, const SellLp<T, I>& A, const T* x, T beta, T* y,
                          const ExecContext& ctx) {
  ellpack::with_sell_lanes(A.threads_per_row(), [&](auto lanes) {
    launch_sell_lp<decltype(lanes)::value>("rows_kernel (SELL-LP, SELL-P lanes)", alpha, A, x, beta,
                                           y, ctx.stream);
  });
}

template <Value T, Index I>
Algorithm choose_sell_lp(const SellLp<T, I>& A) {
  return A.threads_per_row() > 1 ? Algorithm::ThreadsPerRow : Algorithm::ThreadPerRow;
}

#define SPX_INST(T, I)                                                                             \
  template void spmv_sell_lp_thread(T, const SellLp<T, I>&, const T*, T, T*, const ExecContext&);  \
  template void spmv_sell_lp_threads(T, const SellLp<T, I>&, const T*, T, T*, const ExecContext&); \
  template Algorithm choose_sell_lp(const SellLp<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
