// SELL-pack SpMV and SpMM on the CPU. SpMV: threads take whole slices, as
// for SELL (ellpack.hpp); the C rows of a slice are processed in lockstep
// over the slice's columns with the loop over the rows innermost. A packed
// slice reads its 16-bit offsets and gathers x from x + base (one branch per
// slice, outside the loops); a fallback slice runs SELL's loop on its full
// indices. Padding products are masked out bitwise as in SELL, so an
// infinite x entry at a padding column cannot leak into a row. Results go to
// y[perm[i]]. SpMM: the row driver of spmm_rows.hpp over a row source that
// decodes the columns.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <type_traits>

#include "core/instantiate.hpp"
#include "cpu/ellpack.hpp"
#include "cpu/kernels.hpp"
#include "cpu/spmm_rows.hpp"

namespace spx::cpu {

namespace {

/// acc[r] += Σ_{j < min(width, len[r])} val[j*C + r] * xb[off[j*C + r]] for
/// r in [0, n), xb = x + the slice's base column (ell_lockstep with 16-bit
/// offsets).
template <Value T, Index I>
inline void packed_lockstep(const T* __restrict val, const std::uint16_t* __restrict off,
                            std::int64_t stride, std::int64_t n, std::int64_t width,
                            const I* __restrict len, const T* __restrict xb, T* __restrict acc) {
  using Bits = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  for (std::int64_t j = 0; j < width; ++j) {
    const T* __restrict v = val + j * stride;
    const std::uint16_t* __restrict c = off + j * stride;
    for (std::int64_t r = 0; r < n; ++r) {
      const T p = v[r] * xb[c[r]];
      const auto keep = static_cast<Bits>((j - static_cast<std::int64_t>(len[r])) >> 63);
      acc[r] += std::bit_cast<T>(std::bit_cast<Bits>(p) & keep);
    }
  }
}

/// The row source of SELL-pack for spmm_rows: stored row i, its true entries
/// with their columns decoded.
template <Value T, Index I>
struct PackRows {
  const T* val;
  const std::uint16_t* col16;
  const I* col32;
  const I* len;
  const I* slice_ptr;
  const I* pack_ptr;
  const I* base;
  const I* perm;  ///< nullptr: identity
  std::int64_t rows_, C;

  std::int64_t rows() const { return rows_; }
  std::int64_t out_row(std::int64_t i) const { return perm != nullptr ? perm[i] : i; }
  template <class F>
  void visit(std::int64_t i, F&& f) const {
    const std::int64_t s = i / C, r = i - s * C, l = len[i];
    const T* v = val + slice_ptr[s] + r;
    if (base[s] >= 0) {
      const std::int64_t b = base[s];
      const std::uint16_t* c = col16 + pack_ptr[s] + r;
      for (std::int64_t j = 0; j < l; ++j)
        f(b + c[j * C], v[j * C]);
    } else {
      const I* c = col32 + (std::int64_t{slice_ptr[s]} - pack_ptr[s]) + r;
      for (std::int64_t j = 0; j < l; ++j)
        f(static_cast<std::int64_t>(c[j * C]), v[j * C]);
    }
  }
};

}  // namespace

template <Value T, Index I>
void spmv_sell_pack_rows(T alpha, const SellPack<T, I>& A, const T* x, T beta, T* y,
                         const ExecContext&) {
  const std::int64_t rows = A.rows(), C = A.slice_size(), slices = A.num_slices();
  const T* val = A.values().data();
  const std::uint16_t* col16 = A.col16().data();
  const I* col32 = A.col_idx().data();
  const I* len = A.row_len().data();
  const I* sptr = A.slice_ptr().data();
  const I* pptr = A.pack_ptr().data();
  const I* base = A.slice_base().data();
  const I* perm = A.perm().empty() ? nullptr : A.perm().data();
  const std::int64_t chunk = std::max<std::int64_t>(1, kEllBlock / C);
#pragma omp parallel for schedule(dynamic, chunk) num_threads(threads_for(A.nnz() + rows))
  for (std::int64_t s = 0; s < slices; ++s) {
    const std::int64_t first = s * C, n = std::min(C, rows - first);
    const std::int64_t b = base[s];
    T acc[kEllBlock];
    for (std::int64_t r0 = 0; r0 < n; r0 += kEllBlock) {
      const std::int64_t m = std::min(kEllBlock, n - r0);
      const I* l = len + first + r0;
      std::int64_t width = 0;
      for (std::int64_t r = 0; r < m; ++r)
        width = std::max<std::int64_t>(width, l[r]);
      std::fill_n(acc, m, T{0});
      const T* v = val + sptr[s] + r0;
      if (b >= 0)
        packed_lockstep<T, I>(v, col16 + pptr[s] + r0, C, m, width, l, x + b, acc);
      else
        ell_lockstep<T, I>(v, col32 + (std::int64_t{sptr[s]} - pptr[s]) + r0, C, m, width, l, x,
                           acc);
      for (std::int64_t r = 0; r < m; ++r) {
        const std::int64_t i = first + r0 + r;
        axpby_store(y, perm != nullptr ? std::int64_t{perm[i]} : i, alpha, acc[r], beta);
      }
    }
  }
}

template <Value T, Index I>
void spmm_sell_pack_rows(T alpha, const SellPack<T, I>& A, DenseView<const T> B, T beta,
                         DenseView<T> C, const ExecContext&) {
  const PackRows<T, I> rows{A.values().data(),
                            A.col16().data(),
                            A.col_idx().data(),
                            A.row_len().data(),
                            A.slice_ptr().data(),
                            A.pack_ptr().data(),
                            A.slice_base().data(),
                            A.perm().empty() ? nullptr : A.perm().data(),
                            A.rows(),
                            A.slice_size()};
  spmm_rows(alpha, rows, A.nnz(), B, beta, C);
}

#define SPX_INST(T, I)                                                                             \
  template void spmv_sell_pack_rows(T, const SellPack<T, I>&, const T*, T, T*,                     \
                                    const ExecContext&);                                           \
  template void spmm_sell_pack_rows(T, const SellPack<T, I>&, DenseView<const T>, T, DenseView<T>, \
                                    const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cpu
