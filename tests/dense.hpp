// Dense B and C for the SpMM tests: a logical row-major matrix stored with
// a layout and a padded leading dimension, the padding filled with a value
// that shows whether a kernel read it (NaN in B) or wrote it (a sentinel in C).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

#include "reference.hpp"
#include "spx/core/array.hpp"
#include "spx/core/view.hpp"

namespace spx::test {

/// How B and C are stored: layouts and the padding added to the minimum ld.
struct Storage {
  Layout b_layout, c_layout;
  std::int64_t b_pad, c_pad;
};

inline std::string_view layout_name(Layout l) {
  return l == Layout::RowMajor ? "row" : "col";
}

/// A logical row-major rows×cols matrix stored with `layout` and `ld`; the
/// padding holds `fill`.
template <class T>
struct Stored {
  std::vector<T> data;
  std::int64_t rows, cols, ld;
  Layout layout;

  Stored(const std::vector<T>& logical, std::int64_t r, std::int64_t c, Layout l, std::int64_t pad,
         T fill)
      : rows(r), cols(c), ld((l == Layout::RowMajor ? c : r) + pad), layout(l) {
    const std::int64_t outer = l == Layout::RowMajor ? r : c;
    data.assign(static_cast<std::size_t>(std::max<std::int64_t>(1, outer * ld)), fill);
    for (std::int64_t i = 0; i < r; ++i)
      for (std::int64_t j = 0; j < c; ++j)
        data[index(i, j)] = logical[static_cast<std::size_t>(i * c + j)];
  }
  std::size_t index(std::int64_t i, std::int64_t j) const {
    return static_cast<std::size_t>(layout == Layout::RowMajor ? i * ld + j : i + j * ld);
  }
  /// The logical row-major matrix held by `stored` (a copy of data after a run).
  std::vector<T> logical(const std::vector<T>& stored) const {
    std::vector<T> out(static_cast<std::size_t>(rows * cols));
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j)
        out[static_cast<std::size_t>(i * cols + j)] = stored[index(i, j)];
    return out;
  }
  /// Entries of `stored` outside the matrix that differ bitwise from `fill`.
  std::int64_t padding_changed(const std::vector<T>& stored, T fill) const {
    const std::int64_t outer = layout == Layout::RowMajor ? rows : cols;
    const std::int64_t inner = layout == Layout::RowMajor ? cols : rows;
    std::int64_t changed = 0;
    const auto differs = [&](std::size_t e) {
      return std::memcmp(&stored[e], &fill, sizeof(T)) != 0;
    };
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = inner; i < ld; ++i)
        changed += differs(static_cast<std::size_t>(o * ld + i));
    for (auto e = static_cast<std::size_t>(outer * ld); e < stored.size(); ++e)
      changed += differs(e);
    return changed;
  }
  /// A view of this matrix's shape at `p` (data, or a copy of it in `space`).
  template <class P>
  DenseView<P> view(P* p, Space space) const {
    return DenseView<P>{p, rows, cols, ld, layout, space};
  }
};

/// One SpMM check: C = alpha·A·B + beta·C0 (logical m × n, row-major) with C
/// stored as `st` says in `space` (poisoned with NaN when beta = 0, its
/// padding holding a sentinel), computed by `run(C view)` (B is the caller's):
/// the padding must keep the sentinel and the logical C match the reference
/// of `product` within its bound. Returns whether both hold (reported with
/// `what`).
/// `value_roundoff`: the unit roundoff of the format's stored values (0:
/// full precision; see reference.hpp's matches_over_grid).
template <Value T, class Run>
bool spmm_matches(const Product& product, T alpha, T beta, const std::vector<T>& C0,
                  const Storage& st, Space space, const std::string& what, Run&& run,
                  double value_roundoff = 0) {
  const T nan = std::numeric_limits<T>::quiet_NaN(), sentinel = T{-777};
  const Stored<T> Cs(beta == T{0} ? std::vector<T>(C0.size(), nan) : C0, product.rows, product.cols,
                     st.c_layout, st.c_pad, sentinel);
  Array<T> dC(Cs.data, space);
  run(Cs.view(dC.data(), space));
  const std::vector<T> stored = dC.to_vector();
  const std::int64_t bad_pad = Cs.padding_changed(stored, sentinel);
  EXPECT_EQ(bad_pad, 0) << what << ": padding of C was written";
  return expect_matches(Cs.logical(stored), expected<T>(product, alpha, beta, C0, value_roundoff),
                        what) == 0 &&
         bad_pad == 0;
}

}  // namespace spx::test
