// DIA SpMV on the CPU: a thread per block of rows. For each block, the
// diagonals are streamed one after the other into a block of accumulators,
// so the inner loop is a unit-stride multiply-add the compiler vectorizes,
// and y is written once. DIA-LP (dia_lp.hpp) runs the same loop over its
// reduced-precision values, each widened to T (float → double, or bfloat16
// bits shifted into a float: exact and vectorizable) before its product.
#include <algorithm>
#include <type_traits>

#include "core/instantiate.hpp"
#include "cpu/common.hpp"
#include "cpu/kernels.hpp"
#include "spx/formats/dia_lp.hpp"

namespace spx::cpu {

namespace {
/// Rows per block: the accumulators stay in L1.
constexpr std::int64_t kRowBlock = 512;

/// The DIA loop over the values `val` of stored type S (T, or DIA-LP's
/// reduced type widened to T).
template <class S, Value T, Index I>
void dia_rows(T alpha, std::int64_t m, std::int64_t n, std::int64_t nd, const I* off, const S* val,
              const T* x, T beta, T* y) {
  const std::int64_t blocks = (m + kRowBlock - 1) / kRowBlock;
  const int threads = threads_for(m * std::max<std::int64_t>(nd, 1));

#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t blk = 0; blk < blocks; ++blk) {
    const std::int64_t r0 = blk * kRowBlock, r1 = std::min(m, r0 + kRowBlock);
    T acc[kRowBlock];
    std::fill(acc, acc + (r1 - r0), T{0});
    for (std::int64_t d = 0; d < nd; ++d) {
      // Rows of this block whose column i + o lies inside the matrix.
      const std::int64_t o = off[d];
      const std::int64_t lo = std::max(r0, -o), hi = std::min(r1, n - o);
      const S* vd = val + d * m;
      for (std::int64_t i = lo; i < hi; ++i) {
        if constexpr (std::is_same_v<S, T>)
          acc[i - r0] += vd[i] * x[i + o];
        else
          acc[i - r0] += lowp::widen<T>(vd[i]) * x[i + o];
      }
    }
    for (std::int64_t i = r0; i < r1; ++i)
      axpby_store(y, i, alpha, acc[i - r0], beta);
  }
}

}  // namespace

template <Value T, Index I>
void spmv_dia_rows(T alpha, const Dia<T, I>& A, const T* x, T beta, T* y, const ExecContext&) {
  dia_rows<T>(alpha, A.rows(), A.cols(), A.ndiag(), A.offsets().data(), A.values().data(), x, beta,
              y);
}

template <Value T, Index I>
void spmv_dia_lp_rows(T alpha, const DiaLp<T, I>& A, const T* x, T beta, T* y, const ExecContext&) {
  dia_rows<reduced_value_t<T>>(alpha, A.rows(), A.cols(), A.ndiag(), A.offsets().data(),
                               A.values().data(), x, beta, y);
}

#define SPX_INST(T, I)                                                                   \
  template void spmv_dia_rows(T, const Dia<T, I>&, const T*, T, T*, const ExecContext&); \
  template void spmv_dia_lp_rows(T, const DiaLp<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cpu
