// HLL (Hacked ELLPACK, survey §4.4, PSBLAS's HLL) SpMV on the GPU: the shared
// ELLPACK row kernel (ellpack_rows.cuh) with the HLL layout, entry j of row i
// at hack_ptr[h] + j*rows_h + (i - h*H) for hack h = i / H, where rows_h = H
// except in a last, partial hack. Hack offsets are read as 64-bit integers,
// so stacked hacks past 2^31 entries work with 64-bit indices. One or two
// threads per row; no permutation. Auto: the ELL rule on the mean row length
// (choose_ellpack_threads in ell.cu).
#include <cuda_runtime.h>

#include <cstdint>

#include "core/instantiate.hpp"
#include "cuda/ellpack_kernels.hpp"
#include "cuda/ellpack_rows.cuh"

namespace spx::cuda {

template <int V, Value T, Index I>
void spmv_hll_rows(T alpha, const Hll<T, I>& A, const T* x, T beta, T* y, const ExecContext& ctx) {
  static_assert(V == 1 || V == 2);
  const ellpack::HllLayout<I> layout{A.hack_ptr().data(), ellpack::RowDivisor(A.hack_size()),
                                     A.rows()};
  ellpack::launch_rows<V>(V == 1 ? "hll_rows_kernel<1>" : "hll_rows_kernel<2>", A, layout, x, alpha,
                          beta, y, ctx.stream);
}

#define SPX_INST(T, I)                                                                      \
  template void spmv_hll_rows<1>(T, const Hll<T, I>&, const T*, T, T*, const ExecContext&); \
  template void spmv_hll_rows<2>(T, const Hll<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
