// CSR ↔ HYB (ELL part + COO part); Bell and Garland's width from the row lengths (row_lengths.hpp).
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/convert_host.hpp"
#include "core/padded_size.hpp"
#include "core/row_lengths.hpp"

namespace spx {
namespace detail {

template <Index I>
std::int64_t bell_garland_width(const I* row_ptr, std::int64_t rows) {
  return row_lengths(row_ptr, rows).bell_garland_width();
}

template std::int64_t bell_garland_width(const std::int32_t*, std::int64_t);
template std::int64_t bell_garland_width(const std::int64_t*, std::int64_t);

template <Value T, Index I>
struct HostConversion<Hyb<T, I>> {
  static Hyb<T, I> from_csr(const Csr<T, I>& A, const ConvertOptions& options) {
    const std::int64_t rows = A.rows();
    const I* ptr = A.row_ptr().data();
    const I* csr_col = A.col_idx().data();
    const T* csr_val = A.values().data();
    const std::int64_t longest = longest_row(ptr, rows);
    // An override wider than the longest row would only add padding.
    const std::int64_t K = options.hyb_width < 0 ? bell_garland_width(ptr, rows)
                                                 : std::min(options.hyb_width, longest);

    // COO part: the entries beyond the K-th of each row, in row order.
    detail::HostVector<std::int64_t> coo_begin(static_cast<std::size_t>(rows) + 1, 0);
    for (std::int64_t r = 0; r < rows; ++r)
      coo_begin[r + 1] = coo_begin[r] + std::max<std::int64_t>(0, ptr[r + 1] - ptr[r] - K);
    const std::int64_t coo_nnz = coo_begin[rows];

    const std::int64_t stored = padded_mul("HYB", "rows x width", rows, K);
    require_index_fits<I>("HYB", "rows x width", stored);
    require_budget(
        "HYB",
        fmt::format("ELL part of {} rows x width {}, COO part of {} entries", rows, K, coo_nnz),
        stored + coo_nnz, padded_bytes<T, I>(stored, rows) + padded_bytes<T, I>(coo_nnz, coo_nnz),
        A.bytes(), options);

    Array<I> ell_col(static_cast<std::size_t>(stored));
    Array<T> ell_val(static_cast<std::size_t>(stored));
    Array<I> ell_len(static_cast<std::size_t>(rows));
    Array<I> coo_row(static_cast<std::size_t>(coo_nnz));
    Array<I> coo_col(static_cast<std::size_t>(coo_nnz));
    Array<T> coo_val(static_cast<std::size_t>(coo_nnz));
    constexpr std::int64_t kBlock = 256;
#pragma omp parallel for schedule(static) if (A.nnz() > 65536)
    for (std::int64_t b = 0; b < rows; b += kBlock) {
      const std::int64_t n = std::min(kBlock, rows - b);
      fill_ell_group<T, I>(ptr, csr_col, csr_val, ell_col.data() + b, ell_val.data() + b,
                           ell_len.data() + b, rows, n, n, K,
                           [b](std::int64_t r) { return b + r; });
      for (std::int64_t r = b; r < b + n; ++r)
        for (std::int64_t k = ptr[r] + K, d = coo_begin[r]; k < ptr[r + 1]; ++k, ++d) {
          coo_row[d] = static_cast<I>(r);
          coo_col[d] = csr_col[k];
          coo_val[d] = csr_val[k];
        }
    }
    Ell<T, I> ell(A.rows(), A.cols(), static_cast<I>(K), std::move(ell_col), std::move(ell_val),
                  std::move(ell_len), Check::Trusted);
    Coo<T, I> coo(A.rows(), A.cols(), std::move(coo_row), std::move(coo_col), std::move(coo_val),
                  Check::Trusted);
    return Hyb<T, I>(std::move(ell), std::move(coo), Check::Trusted);
  }

  static Csr<T, I> to_csr(const Hyb<T, I>& A) {
    const Ell<T, I>& ell = A.ell();
    const Coo<T, I>& coo = A.coo();
    const I* len = ell.row_len().data();
    const I* coo_row = coo.row_idx().data();
    // Row lengths: ELL part + COO part.
    const auto lengths = [&](I* count) {
      for (std::int64_t r = 0; r < A.rows(); ++r)
        count[r + 1] = len[r];
      for (std::int64_t k = 0; k < coo.nnz(); ++k)
        ++count[coo_row[k] + 1];
    };
    // Each row: its ELL entries, then its COO entries (which lie to the
    // right; the COO part is sorted by row).
    const auto fill = [&](const I* ptr, I* col, T* val) {
      read_ell_group<T, I>(ell.col_idx().data(), ell.values().data(), len, A.rows(), A.rows(), col,
                           val, [&](std::int64_t r) { return std::int64_t{ptr[r]}; });
      std::int64_t prev_row = -1, d = 0;
      for (std::int64_t k = 0; k < coo.nnz(); ++k) {
        if (coo_row[k] != prev_row) {
          prev_row = coo_row[k];
          d = ptr[prev_row] + len[prev_row];
        }
        col[d] = coo.col_idx()[k];
        val[d] = coo.values()[k];
        ++d;
      }
    };
    return csr_from_lengths<T, I>(A.rows(), A.cols(), A.nnz(), lengths, fill);
  }
};

}  // namespace detail

SPX_INSTANTIATE_CONVERSION(Hyb)

}  // namespace spx
