// HDI SpMV on the GPU (survey §4.5, hacked DIA): a thread per row, the rows
// of a hack on consecutive threads, so with the default hack of 32 rows a warp
// owns exactly one hack (larger hacks span several warps, smaller ones share
// a warp). The kernel is the shared diagonal row kernel (diag_rows.cuh) with
// the HDI layout: each thread finds its hack h = row / H, reads the hack's
// diagonal range hack_ptr[h] .. hack_ptr[h+1] (the same for every thread of
// the hack: broadcast), and streams the hack's diagonals as the DIA kernel
// does: local diagonal d of local row r sits at values[H·hack_ptr[h] +
// d·hack_rows(h) + r], so the threads of a hack read consecutive values
// (coalesced) and consecutive x entries.
#include <cstdint>

#include "core/instantiate.hpp"
#include "cuda/blocked_kernels.hpp"
#include "cuda/diag_rows.cuh"

namespace spx::cuda {

template <Value T, Index I>
void spmv_hdi(T alpha, const Hdi<T, I>& A, const T* x, T beta, T* y, const ExecContext& ctx) {
  diagonal::launch_rows("hdi_kernel", A.rows(), std::int64_t{A.cols()},
                        diagonal::HdiLayout<I>{std::int64_t{A.hack_size()}, A.hack_ptr().data()},
                        A.offsets().data(), A.values().data(), x, alpha, beta, y, ctx.stream);
}

#define SPX_INST(T, I) \
  template void spmv_hdi(T, const Hdi<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
