// The inner product of the ELLPACK family on the CPU (ELL, SELL, HLL and the
// ELL part of HYB): a group of rows stored column-major (entry j of row r at
// j*stride + r) is processed in lockstep, one column of the group at a time,
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

}  // namespace spx::cpu
