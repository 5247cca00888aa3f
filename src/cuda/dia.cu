// DIA SpMV on the GPU (survey §4.5): a thread per row streams the stored
// diagonals without indirection; the value of diagonal d for row i sits at
// values[d * rows + i]. The kernel is the shared diagonal row kernel
// (diag_rows.cuh) with the DIA layout: every row walks all diagonals with
// independent loads, skipping the positions outside the matrix, one or
// several rows per thread by value type (DiaShape), float values in pairs
// of adjacent rows (dia_pairs_kernel, takes_pairs). DIA-LP: the same kernel
// over its reduced-precision values (float for f64, bfloat16 for f32), each
// widened to T in a register: about half the bytes per stored value for f64.
#include <cstdint>

#include "core/instantiate.hpp"
#include "cuda/blocked_kernels.hpp"
#include "cuda/diag_rows.cuh"

namespace spx::cuda {

template <Value T, Index I>
void spmv_dia(T alpha, const Dia<T, I>& A, const T* x, T beta, T* y, const ExecContext& ctx) {
  diagonal::launch_dia("dia_kernel", A.rows(), std::int64_t{A.cols()}, A.ndiag(),
                       A.offsets().data(), A.values().data(), x, alpha, beta, y, ctx.stream);
}

template <Value T, Index I>
void spmv_dia_lp(T alpha, const DiaLp<T, I>& A, const T* x, T beta, T* y, const ExecContext& ctx) {
  diagonal::launch_dia("dia_kernel (DIA-LP)", A.rows(), std::int64_t{A.cols()}, A.ndiag(),
                       A.offsets().data(), A.values().data(), x, alpha, beta, y, ctx.stream);
}

#define SPX_INST(T, I)                                                              \
  template void spmv_dia(T, const Dia<T, I>&, const T*, T, T*, const ExecContext&); \
  template void spmv_dia_lp(T, const DiaLp<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
