// DIA SpMV on the GPU (survey §4.5): a thread per row streams the stored
// diagonals without indirection; the value of diagonal d for row i sits at
// values[d * rows + i]. The kernel is the shared diagonal row kernel
// (diag_rows.cuh) with the DIA layout: every row walks all diagonals, 8 at a
// time with independent loads, skipping the positions outside the matrix.
// DIA-LP: the same kernel over its reduced-precision values (float for f64,
// bfloat16 for f32), each widened to T in a register: about half the bytes
// per stored value for f64.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "core/instantiate.hpp"
#include "cuda/blocked_kernels.hpp"
#include "cuda/diag_rows.cuh"

namespace spx::cuda {

namespace {
// EXPERIMENT (session 13): SPX_DIA_VARIANT = "R,C" picks dia_rows_kernel<R, C>.
int dia_variant() {
  static const int v = [] {
    const char* e = std::getenv("SPX_DIA_VARIANT");
    if (!e) return 0;
    if (!std::strcmp(e, "1,8")) return 1;
    if (!std::strcmp(e, "2,8")) return 2;
    if (!std::strcmp(e, "2,4")) return 3;
    if (!std::strcmp(e, "4,4")) return 4;
    if (!std::strcmp(e, "4,2")) return 5;
    if (!std::strcmp(e, "2,2")) return 6;
    return 0;
  }();
  return v;
}
template <class S, class T, class I>
bool launch_variant(const char* name, std::int64_t rows, std::int64_t cols, std::int64_t ndiag,
                    const I* o, const S* v, const T* x, T alpha, T beta, T* y, cudaStream_t s) {
  switch (dia_variant()) {
    case 1: diagonal::launch_dia_rows<1, 8>(name, rows, cols, ndiag, o, v, x, alpha, beta, y, s); return true;
    case 2: diagonal::launch_dia_rows<2, 8>(name, rows, cols, ndiag, o, v, x, alpha, beta, y, s); return true;
    case 3: diagonal::launch_dia_rows<2, 4>(name, rows, cols, ndiag, o, v, x, alpha, beta, y, s); return true;
    case 4: diagonal::launch_dia_rows<4, 4>(name, rows, cols, ndiag, o, v, x, alpha, beta, y, s); return true;
    case 5: diagonal::launch_dia_rows<4, 2>(name, rows, cols, ndiag, o, v, x, alpha, beta, y, s); return true;
    case 6: diagonal::launch_dia_rows<2, 2>(name, rows, cols, ndiag, o, v, x, alpha, beta, y, s); return true;
    default: return false;
  }
}
}  // namespace

template <Value T, Index I>
void spmv_dia(T alpha, const Dia<T, I>& A, const T* x, T beta, T* y, const ExecContext& ctx) {
  if (launch_variant("dia_kernel", A.rows(), std::int64_t{A.cols()}, A.ndiag(), A.offsets().data(),
                     A.values().data(), x, alpha, beta, y, ctx.stream))
    return;
  diagonal::launch_rows("dia_kernel", A.rows(), std::int64_t{A.cols()}, A.ndiag(),
                        A.offsets().data(), A.values().data(), x, alpha, beta, y, ctx.stream);
}

template <Value T, Index I>
void spmv_dia_lp(T alpha, const DiaLp<T, I>& A, const T* x, T beta, T* y, const ExecContext& ctx) {
  if (launch_variant("dia_kernel (DIA-LP)", A.rows(), std::int64_t{A.cols()}, A.ndiag(),
                     A.offsets().data(), A.values().data(), x, alpha, beta, y, ctx.stream))
    return;
  diagonal::launch_rows("dia_kernel (DIA-LP)", A.rows(), std::int64_t{A.cols()}, A.ndiag(),
                        A.offsets().data(), A.values().data(), x, alpha, beta, y, ctx.stream);
}

#define SPX_INST(T, I)                                                              \
  template void spmv_dia(T, const Dia<T, I>&, const T*, T, T*, const ExecContext&); \
  template void spmv_dia_lp(T, const DiaLp<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
