// The row-oriented CPU SpMM driver shared by the formats whose entries can be
// listed row by row (ELL, SELL, HLL, the ELL part of HYB, DIA, HDI, JAD; and
// BCSR, whose row source is in spmm_bcsr.cpp), and the row sources that list
// them.
//
// A row source describes a matrix as `rows()` stored rows: `out_row(i)` is
// the row of C that stored row i goes to (SELL and JAD store rows permuted),
// and `visit(i, f)` calls f(column, value) for each of its entries. The
// driver does the dense part: threads take blocks of kRowsPerTask stored rows
// (or the caller's count; dynamically scheduled: rows differ in length), and each block is
// processed in tiles of columns of B and C. For a tile of w columns and a stored row i, the w
// accumulators t[0..w) collect value·B(column, tile) over the row's entries, and C(out_row(i),
// tile) = alpha·t + beta·C(out_row(i), tile) is written once (C is not read when beta = 0).
//
// Row-major B: a tile is kRowTile<T> = 128 bytes of a row of B (16 doubles,
// 32 floats), a compile-time width, so that the compiler can keep the
// accumulators in vector registers; the loop over the tile vectorizes with
// unit-stride loads of B;
// what is left takes a half tile (also compile-time) when it is wide enough,
// then the same loop with a runtime width.
// Column-major B: a tile is kColTile = 8 columns, read with the stride ldb (an
// entry's 8 values lie in 8 columns); the entries of the block's rows are
// re-read for every tile from cache. C may have either layout in both cases.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "cpu/common.hpp"
#include "cpu/ellpack.hpp"
#include "cpu/spmm_kernels.hpp"
#include "spx/formats/lowp.hpp"

namespace spx::cpu {

/// Columns per tile with row-major B: 128 bytes of T.
template <class T>
inline constexpr int kRowTile = static_cast<int>(128 / sizeof(T));
/// Columns per tile with column-major B.
inline constexpr int kColTile = 8;
/// Stored rows a thread takes at a time.
inline constexpr std::int64_t kRowsPerTask = 128;

namespace rows_detail {

/// Stored rows [i0, i1), columns [j0, j0 + width) with width = W (W > 0) or
/// w (W = 0, w <= Cap). kUnit: B is row-major (unit stride along a row).
template <int W, int Cap, bool kUnit, Value T, class Rows>
inline void tile(const Rows& A, std::int64_t i0, std::int64_t i1, const Strided<const T>& B,
                 std::int64_t j0, std::int64_t w, T alpha, T beta, const Strided<T>& C) {
  const std::int64_t width = W > 0 ? W : w;
  const std::int64_t bs = kUnit ? 1 : B.cs;
  for (std::int64_t i = i0; i < i1; ++i) {
    T t[Cap];
    for (int j = 0; j < Cap; ++j)
      t[j] = T{0};
    A.visit(i, [&](std::int64_t c, T v) {
      const T* b = B.row(c) + j0 * bs;
#pragma omp simd
      for (std::int64_t j = 0; j < width; ++j)
        t[j] += v * b[j * bs];
    });
    store_tile(C, A.out_row(i), j0, width, alpha, t, beta);
  }
}

/// Every column of B and C for stored rows [i0, i1), in tiles of Tile.
template <int Tile, bool kUnit, Value T, class Rows>
inline void all_tiles(const Rows& A, std::int64_t i0, std::int64_t i1, const Strided<const T>& B,
                      std::int64_t n, T alpha, T beta, const Strided<T>& C) {
  std::int64_t j0 = 0;
  for (; j0 + Tile <= n; j0 += Tile)
    tile<Tile, Tile, kUnit>(A, i0, i1, B, j0, Tile, alpha, beta, C);
  // A half tile in registers too (n = 8 doubles, 16 floats), then the rest.
  constexpr int kHalf = Tile / 2;
  if (kHalf >= 4 && j0 + kHalf <= n) {
    tile<kHalf, kHalf, kUnit>(A, i0, i1, B, j0, kHalf, alpha, beta, C);
    j0 += kHalf;
  }
  if (j0 < n) tile<0, Tile, kUnit>(A, i0, i1, B, j0, n - j0, alpha, beta, C);
}

}  // namespace rows_detail

/// C = alpha*A*B + beta*C for a row source A with `stored` stored entries
/// (padding included: the work estimate that sets the thread count), handing
/// out `per_task` stored rows at a time.
template <Value T, class Rows>
void spmm_rows(T alpha, const Rows& A, std::int64_t stored, DenseView<const T> Bv, T beta,
               DenseView<T> Cv, std::int64_t per_task = kRowsPerTask) {
  const std::int64_t rows = A.rows(), n = Bv.cols;
  const Strided<const T> B = strided(Bv);
  const Strided<T> C = strided(Cv);
  const std::int64_t tasks = (rows + per_task - 1) / per_task;
  const bool unit = Bv.layout == Layout::RowMajor;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_for(stored* n + rows * n))
  for (std::int64_t task = 0; task < tasks; ++task) {
    const std::int64_t i0 = task * per_task, i1 = std::min(rows, i0 + per_task);
    if (unit) {
      rows_detail::all_tiles<kRowTile<T>, true>(A, i0, i1, B, n, alpha, beta, C);
    } else {
      rows_detail::all_tiles<kColTile, false>(A, i0, i1, B, n, alpha, beta, C);
    }
  }
}

// ---- row sources (the ELLPACK family's, PackedRows, is in ellpack.hpp) ----

/// JAD: entry d of stored row i at jd_ptr[d] + i while diagonal d reaches it.
template <Value T, Index I>
struct JadRows {
  const T* val;
  const I* col;
  const I* jd;
  const I* perm;
  std::int64_t rows_, diagonals;

  std::int64_t rows() const { return rows_; }
  std::int64_t out_row(std::int64_t i) const { return perm[i]; }
  template <class F>
  void visit(std::int64_t i, F&& f) const {
    for (std::int64_t d = 0; d < diagonals; ++d) {
      const std::int64_t start = jd[d];
      if (std::int64_t{jd[d + 1]} - start <= i) break;  // diagonals only get shorter
      f(static_cast<std::int64_t>(col[start + i]), val[start + i]);
    }
  }
};

/// DIA and HDI: row i holds value vals(i, d) at column i + offsets[d] for the
/// diagonals of its hack (DIA: one hack of all rows), where that column lies
/// inside the matrix. Padding zeros on a diagonal are multiplied like entries
/// (the Inf/NaN caveat of docs/formats.md). S is the stored value type: T, or
/// DIA-LP's reduced type, widened to T as each entry is visited.
template <Value T, Index I, class S = T>
struct DiagonalRows {
  const S* val;
  const I* off;
  const I* hack_ptr;  ///< nullptr: DIA (one hack, ndiag diagonals)
  std::int64_t rows_, cols, hack, ndiag;

  std::int64_t rows() const { return rows_; }
  std::int64_t out_row(std::int64_t i) const { return i; }
  template <class F>
  void visit(std::int64_t i, F&& f) const {
    std::int64_t d0 = 0, d1 = ndiag, r = i, hr = rows_;
    const S* v = val;
    if (hack_ptr != nullptr) {
      const std::int64_t h = i / hack;
      d0 = hack_ptr[h];
      d1 = hack_ptr[h + 1];
      r = i - h * hack;
      hr = std::min(hack, rows_ - h * hack);
      v = val + hack * d0;
    }
    for (std::int64_t d = d0; d < d1; ++d) {
      const std::int64_t c = i + off[d];
      if (c < 0 || c >= cols) continue;
      if constexpr (std::is_same_v<S, T>)
        f(c, v[(d - d0) * hr + r]);
      else
        f(c, lowp::widen<T>(v[(d - d0) * hr + r]));
    }
  }
};

}  // namespace spx::cpu
