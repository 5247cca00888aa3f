// CSR ↔ HYB (ELL part + COO part), and Bell and Garland's width rule.
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/convert_ellpack.hpp"
#include "core/convert_formats.hpp"
#include "core/instantiate.hpp"
#include "core/convert_checks.hpp"
#include "core/padded_size.hpp"

namespace spx {
namespace detail {

template <Index I>
std::int64_t bell_garland_width(const I* row_ptr, std::int64_t rows) {
  if (rows <= 0) return 0;
  const std::int64_t longest = longest_row(row_ptr, rows);
  // count[k] = rows of length k; then walk K down from the longest row,
  // accumulating the rows of length >= K, and stop at the first K that a
  // third of the rows reach.
  std::vector<std::int64_t> count(static_cast<std::size_t>(longest) + 1, 0);
  for (std::int64_t r = 0; r < rows; ++r)
    ++count[row_ptr[r + 1] - row_ptr[r]];
  std::int64_t at_least = 0;
  for (std::int64_t K = longest; K > 0; --K) {
    at_least += count[K];
    if (3 * at_least >= rows) return K;
  }
  return 0;
}

template std::int64_t bell_garland_width(const std::int32_t*, std::int64_t);
template std::int64_t bell_garland_width(const std::int64_t*, std::int64_t);

}  // namespace detail

template <Value T, Index I>
Hyb<T, I> to_hyb(const Csr<T, I>& A, const ConvertOptions& options) {
  detail::check_hyb_options(options);
  if (A.space() != Space::Host) return detail::convert_on_backend<Hyb<T, I>>(A, options);
  detail::require_host(A.space(), "CSR to HYB");
  const std::int64_t rows = A.rows();
  const I* ptr = A.row_ptr().data();
  const I* csr_col = A.col_idx().data();
  const T* csr_val = A.values().data();
  const std::int64_t longest = detail::longest_row(ptr, rows);
  // An override wider than the longest row would only add padding.
  const std::int64_t K = options.hyb_width < 0 ? detail::bell_garland_width(ptr, rows)
                                               : std::min(options.hyb_width, longest);

  // COO part: the entries beyond the K-th of each row, in row order.
  std::vector<std::int64_t> coo_begin(static_cast<std::size_t>(rows) + 1, 0);
  for (std::int64_t r = 0; r < rows; ++r)
    coo_begin[r + 1] = coo_begin[r] + std::max<std::int64_t>(0, ptr[r + 1] - ptr[r] - K);
  const std::int64_t coo_nnz = coo_begin[rows];

  const std::int64_t stored = detail::padded_mul("HYB", "rows x width", rows, K);
  detail::require_index_fits<I>("HYB", "rows x width", stored);
  detail::require_budget(
      "HYB",
      fmt::format("ELL part of {} rows x width {}, COO part of {} entries", rows, K, coo_nnz),
      stored + coo_nnz,
      detail::padded_bytes<T, I>(stored, rows) + detail::padded_bytes<T, I>(coo_nnz, coo_nnz),
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
    detail::fill_ell_group<T, I>(ptr, csr_col, csr_val, ell_col.data() + b, ell_val.data() + b,
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

template <Value T, Index I>
Csr<T, I> to_csr(const Hyb<T, I>& A) {
  detail::require_host(A.space(), "HYB to CSR");
  const std::int64_t rows = A.rows();
  const Ell<T, I>& ell = A.ell();
  const Coo<T, I>& coo = A.coo();
  // Row lengths: ELL part + COO part (the COO part is sorted by row).
  Array<I> ptr(static_cast<std::size_t>(rows) + 1);
  ptr[0] = 0;
  for (std::int64_t r = 0; r < rows; ++r)
    ptr[r + 1] = ell.row_len()[r];
  for (std::int64_t k = 0; k < coo.nnz(); ++k)
    ++ptr[coo.row_idx()[k] + 1];
  for (std::int64_t r = 0; r < rows; ++r)
    ptr[r + 1] += ptr[r];
  Array<I> col(static_cast<std::size_t>(A.nnz()));
  Array<T> val(static_cast<std::size_t>(A.nnz()));
  // Each row: its ELL entries, then its COO entries (which lie to the right).
  detail::read_ell_group<T, I>(ell.col_idx().data(), ell.values().data(), ell.row_len().data(),
                               rows, rows, col.data(), val.data(),
                               [&](std::int64_t r) { return std::int64_t{ptr[r]}; });
  std::int64_t prev_row = -1, d = 0;
  for (std::int64_t k = 0; k < coo.nnz(); ++k) {
    const I r = coo.row_idx()[k];
    if (r != prev_row) {
      prev_row = r;
      d = ptr[r] + ell.row_len()[r];
    }
    col[d] = coo.col_idx()[k];
    val[d] = coo.values()[k];
    ++d;
  }
  return Csr<T, I>(A.rows(), A.cols(), std::move(ptr), std::move(col), std::move(val),
                   Check::Trusted);
}

#define SPX_INST(T, I)                                                \
  template Hyb<T, I> to_hyb(const Csr<T, I>&, const ConvertOptions&); \
  template Csr<T, I> to_csr(const Hyb<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx
