// The ELLPACK family on the CPU (ELL, SELL, HLL and the ELL part of HYB): its
// layout as groups of rows (PackedRows, also the family's row source for the
// SpMM driver of spmm_rows.hpp), and its SpMV inner product: a group of rows stored column-major
// (entry j of row r at j*stride + r) is processed in lockstep, one column of the group at a time,
// with the loop over the rows innermost. That loop reads values and column
// indices contiguously and is what the compiler vectorizes: on the default
// x86-64 target (SSE2) g++ 12 vectorizes it with 16-byte vectors (2 doubles or
// 4 floats per instruction, x gathered element by element) for f64/i32,
// f32/i32 and f64/i64; f32/i64 stays scalar (g++ 12 does not vectorize a
// float gather through 64-bit indices, even for CSR). Built with
// -march=native on AVX2/AVX-512 it uses 32/64-byte vectors.
//
// Slice and hack sizes: the vector loop runs over the rows of a group, so any
// C (or H) works; a multiple of the SIMD width (2/4 lanes on SSE2, 4/8 on
// AVX2, 8/16 on AVX-512 for f64/f32) leaves no scalar remainder. The default
// C = H = 32 (one GPU warp) is a multiple of every one of them.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <type_traits>

#include "cpu/common.hpp"
#include "spx/formats/ell.hpp"
#include "spx/formats/hll.hpp"
#include "spx/formats/sell.hpp"
#include "spx/formats/sell_lp.hpp"

namespace spx::cpu {

/// Rows processed together (the accumulators live on the stack).
inline constexpr std::int64_t kEllBlock = 256;

/// acc[r] += Σ_{j < min(width, len[r])} val[j*stride + r] * x[col[j*stride + r]]
/// for r in [0, n). Padding products (j >= len[r]) are masked out bitwise
/// instead of relying on their zero value, so 0·inf = NaN from an infinite x
/// entry at a padding column cannot leak into a row that does not use it.
/// (The mask is computed with a shift, not a `?:` on floating point values:
/// g++ does not if-convert the latter under -ftrapping-math.)
template <Value T, Index I>
inline void ell_lockstep(const T* __restrict val, const I* __restrict col, std::int64_t stride,
                         std::int64_t n, std::int64_t width, const I* __restrict len,
                         const T* __restrict x, T* __restrict acc) {
  using Bits = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  for (std::int64_t j = 0; j < width; ++j) {
    const T* __restrict v = val + j * stride;
    const I* __restrict c = col + j * stride;
    for (std::int64_t r = 0; r < n; ++r) {
      const T p = v[r] * x[c[r]];
      // All ones when j < len[r] (the shift of a negative number), else 0.
      const auto keep = static_cast<Bits>((j - static_cast<std::int64_t>(len[r])) >> 63);
      acc[r] += std::bit_cast<T>(std::bit_cast<Bits>(p) & keep);
    }
  }
}

/// y[row_of(r)] = alpha * (row r of the group)·x + beta * y[row_of(r)] for
/// the n rows of one column-major group, in blocks of kEllBlock rows; each
/// block stops at its own longest row. Does not read y when beta = 0.
template <Value T, Index I, class RowOf>
inline void ell_group_spmv(T alpha, const T* val, const I* col, std::int64_t stride, std::int64_t n,
                           const I* len, const T* x, T beta, T* y, RowOf row_of) {
  T acc[kEllBlock];
  for (std::int64_t b = 0; b < n; b += kEllBlock) {
    const std::int64_t m = std::min(kEllBlock, n - b);
    std::int64_t width = 0;
    for (std::int64_t r = 0; r < m; ++r)
      width = std::max<std::int64_t>(width, len[b + r]);
    std::fill_n(acc, m, T{0});
    ell_lockstep<T, I>(val + b, col + b, stride, m, width, len + b, x, acc);
    for (std::int64_t r = 0; r < m; ++r)
      axpby_store(y, row_of(b + r), alpha, acc[r], beta);
  }
}

/// The ELLPACK family (ELL, SELL, HLL, HYB's ELL part): stored rows in groups
/// of G consecutive rows, each group column-major from group_ptr[g] (nullptr:
/// a single group at 0), entry j of the group's row r at
/// group_ptr[g] + j*stride + r, where stride = G for SELL (full slices) and
/// the group's row count for ELL and HLL (full_stride = false). Only the
/// row_len[i] true entries of a row are visited: padding is never read.
///
/// S is the stored value type: T, or SELL-LP's reduced type, widened to T as
/// each entry is visited.
template <Value T, Index I, class S = T>
struct PackedRows {
  const S* val;
  const I* col;
  const I* len;
  const I* group_ptr;
  const I* perm;  ///< nullptr: identity
  std::int64_t rows_, group;
  bool full_stride;

  std::int64_t rows() const { return rows_; }
  std::int64_t out_row(std::int64_t i) const { return perm != nullptr ? perm[i] : i; }
  template <class F>
  void visit(std::int64_t i, F&& f) const {
    const std::int64_t g = i / group, first = g * group;
    const std::int64_t stride = full_stride ? group : std::min(group, rows_ - first);
    const std::int64_t base = (group_ptr != nullptr ? std::int64_t{group_ptr[g]} : 0) + i - first;
    const std::int64_t l = len[i];
    for (std::int64_t j = 0; j < l; ++j) {
      const S v = val[base + j * stride];
      if constexpr (std::is_same_v<S, T>)
        f(static_cast<std::int64_t>(col[base + j * stride]), v);
      else
        f(static_cast<std::int64_t>(col[base + j * stride]), lowp::widen<T>(v));
    }
  }
};

/// ELL: one group of all rows.
template <Value T, Index I>
PackedRows<T, I> packed_rows(const Ell<T, I>& A) {
  return {A.values().data(),
          A.col_idx().data(),
          A.row_len().data(),
          nullptr,
          nullptr,
          A.rows(),
          std::max<std::int64_t>(1, A.rows()),
          false};
}
/// SELL: slices of C rows, full stride C, rows permuted when built with σ > 1.
template <Value T, Index I>
PackedRows<T, I> packed_rows(const Sell<T, I>& A) {
  return {A.values().data(),
          A.col_idx().data(),
          A.row_len().data(),
          A.slice_ptr().data(),
          A.perm().empty() ? nullptr : A.perm().data(),
          A.rows(),
          A.slice_size(),
          true};
}
/// SELL-LP: SELL's slices over its reduced-precision values.
template <Value T, Index I>
PackedRows<T, I, reduced_value_t<T>> packed_rows(const SellLp<T, I>& A) {
  return {A.values().data(),
          A.col_idx().data(),
          A.row_len().data(),
          A.slice_ptr().data(),
          A.perm().empty() ? nullptr : A.perm().data(),
          A.rows(),
          A.slice_size(),
          true};
}
/// HLL: hacks of H rows, each with the stride of its own row count.
template <Value T, Index I>
PackedRows<T, I> packed_rows(const Hll<T, I>& A) {
  return {A.values().data(), A.col_idx().data(), A.row_len().data(), A.hack_ptr().data(),
          nullptr,           A.rows(),           A.hack_size(),      false};
}

/// SpMV over the `groups` groups of A (SELL slices, HLL hacks): threads take
/// whole groups, in chunks of about kEllBlock rows (dynamically scheduled:
/// groups differ in width); `nnz` (the true entries) sets the thread count.
/// kPermuted: the results go to y[perm[i]] when A has a permutation (SELL),
/// else to y[i].
template <bool kPermuted, Value T, Index I>
void spmv_groups(T alpha, const PackedRows<T, I>& A, std::int64_t groups, std::int64_t nnz,
                 const T* x, T beta, T* y) {
  const std::int64_t rows = A.rows_, G = A.group;
  // Chunks of about kEllBlock rows keep the scheduling overhead small.
  const std::int64_t chunk = std::max<std::int64_t>(1, kEllBlock / G);
#pragma omp parallel for schedule(dynamic, chunk) num_threads(threads_for(nnz + rows))
  for (std::int64_t g = 0; g < groups; ++g) {
    const std::int64_t first = g * G, n = std::min(G, rows - first), off = A.group_ptr[g];
    const T* val = A.val + off;
    const I* col = A.col + off;
    const std::int64_t stride = A.full_stride ? G : n;
    if constexpr (kPermuted) {
      const I* perm = A.perm;
      ell_group_spmv<T, I>(alpha, val, col, stride, n, A.len + first, x, beta, y,
                           [first, perm](std::int64_t r) -> std::int64_t {
                             return perm != nullptr ? perm[first + r] : first + r;
                           });
    } else {
      ell_group_spmv<T, I>(alpha, val, col, stride, n, A.len + first, x, beta, y,
                           [first](std::int64_t r) { return first + r; });
    }
  }
}

}  // namespace spx::cpu
