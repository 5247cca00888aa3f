// SELL-LP (SELL with reduced-precision values, sell_lp.hpp) on the CPU.
//  - SpMV: SELL's scheme (ellpack.cpp): threads take whole slices; the rows
//    of a slice, in blocks of kEllBlock, are processed in lockstep over the
//    slice's columns up to the block's longest row, the loop over the rows
//    vectorized. Each stored value is widened to T (float → double, or
//    bfloat16 bits shifted into a float: both exact and vectorizable) and
//    multiplied and summed in T. Padding products are masked bitwise, as in
//    ell_lockstep, so an infinite x at a padding column cannot leak in.
//    Results go to y[perm[i]]; y is not read when beta = 0.
//  - SpMM: the row driver of spmm_rows.hpp over the slices, the values
//    widened as they are visited.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <type_traits>

#include "core/instantiate.hpp"
#include "cpu/common.hpp"
#include "cpu/ellpack.hpp"
#include "cpu/kernels.hpp"
#include "cpu/spmm_kernels.hpp"
#include "cpu/spmm_rows.hpp"

namespace spx::cpu {
namespace {

/// acc[r] += Σ_{j < min(width, len[r])} widen(val[j*stride + r]) * x[col[j*stride + r]].
template <Value T, Index I>
inline void lowp_lockstep(const reduced_value_t<T>* __restrict val, const I* __restrict col,
                          std::int64_t stride, std::int64_t n, std::int64_t width,
                          const I* __restrict len, const T* __restrict x, T* __restrict acc) {
  using Bits = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  for (std::int64_t j = 0; j < width; ++j) {
    const reduced_value_t<T>* __restrict v = val + j * stride;
    const I* __restrict c = col + j * stride;
    for (std::int64_t r = 0; r < n; ++r) {
      const T p = lowp::widen<T>(v[r]) * x[c[r]];
      const auto keep = static_cast<Bits>((j - static_cast<std::int64_t>(len[r])) >> 63);
      acc[r] += std::bit_cast<T>(std::bit_cast<Bits>(p) & keep);
    }
  }
}

}  // namespace

template <Value T, Index I>
void spmv_sell_lp_rows(T alpha, const SellLp<T, I>& A, const T* x, T beta, T* y,
                       const ExecContext&) {
  const std::int64_t rows = A.rows(), C = A.slice_size(), slices = A.num_slices();
  const reduced_value_t<T>* val = A.values().data();
  const I* col = A.col_idx().data();
  const I* len = A.row_len().data();
  const I* ptr = A.slice_ptr().data();
  const I* perm = A.perm().empty() ? nullptr : A.perm().data();
  const std::int64_t chunk = std::max<std::int64_t>(1, kEllBlock / C);
#pragma omp parallel for schedule(dynamic, chunk) num_threads(threads_for(A.nnz() + rows))
  for (std::int64_t s = 0; s < slices; ++s) {
    const std::int64_t first = s * C, n = std::min(C, rows - first), off = ptr[s];
    T acc[kEllBlock];
    for (std::int64_t b = 0; b < n; b += kEllBlock) {
      const std::int64_t m = std::min(kEllBlock, n - b);
      const I* l = len + first + b;
      std::int64_t width = 0;
      for (std::int64_t r = 0; r < m; ++r)
        width = std::max<std::int64_t>(width, l[r]);
      std::fill_n(acc, m, T{0});
      lowp_lockstep<T, I>(val + off + b, col + off + b, C, m, width, l, x, acc);
      for (std::int64_t r = 0; r < m; ++r) {
        const std::int64_t i = first + b + r;
        axpby_store(y, perm != nullptr ? std::int64_t{perm[i]} : i, alpha, acc[r], beta);
      }
    }
  }
}

template <Value T, Index I>
void spmm_sell_lp_rows(T alpha, const SellLp<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                       const ExecContext&) {
  spmm_rows(alpha, packed_rows(A), A.nnz(), B, beta, C);
}

#define SPX_INST(T, I)                                                                          \
  template void spmv_sell_lp_rows(T, const SellLp<T, I>&, const T*, T, T*, const ExecContext&); \
  template void spmm_sell_lp_rows(T, const SellLp<T, I>&, DenseView<const T>, T, DenseView<T>,  \
                                  const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cpu
