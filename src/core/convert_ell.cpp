// CSR ↔ ELL.
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/convert_ellpack.hpp"
#include "core/convert_formats.hpp"
#include "core/instantiate.hpp"
#include "core/convert_checks.hpp"
#include "core/padded_size.hpp"

namespace spx {

template <Value T, Index I>
Ell<T, I> to_ell(const Csr<T, I>& A, const ConvertOptions& options) {
  if (A.space() != Space::Host) return detail::convert_on_backend<Ell<T, I>>(A, options);
  detail::require_host(A.space(), "CSR to ELL");
  const std::int64_t rows = A.rows();
  const I* ptr = A.row_ptr().data();
  const std::int64_t width = detail::longest_row(ptr, rows);

  // Refuse before allocating: the padded size must fit the index type and
  // the memory budget.
  const std::int64_t stored = detail::padded_mul("ELL", "rows x width", rows, width);
  detail::require_index_fits<I>("ELL", "rows x width", stored);
  detail::require_budget("ELL", fmt::format("{} rows x width {} (the longest row)", rows, width),
                         stored, detail::padded_bytes<T, I>(stored, rows), A.bytes(), options);

  Array<I> col(static_cast<std::size_t>(stored));
  Array<T> val(static_cast<std::size_t>(stored));
  Array<I> len(static_cast<std::size_t>(rows));
  // Blocks of rows: each thread writes a contiguous run of every column.
  constexpr std::int64_t kBlock = 256;
#pragma omp parallel for schedule(static) if (stored > 65536)
  for (std::int64_t b = 0; b < rows; b += kBlock) {
    const std::int64_t n = std::min(kBlock, rows - b);
    // The group is the whole matrix (stride = rows); this block fills its
    // rows [b, b+n).
    detail::fill_ell_group<T, I>(ptr, A.col_idx().data(), A.values().data(), col.data() + b,
                                 val.data() + b, len.data() + b, rows, n, n, width,
                                 [b](std::int64_t r) { return b + r; });
  }
  return Ell<T, I>(A.rows(), A.cols(), static_cast<I>(width), std::move(col), std::move(val),
                   std::move(len), Check::Trusted);
}

template <Value T, Index I>
Csr<T, I> to_csr(const Ell<T, I>& A) {
  detail::require_host(A.space(), "ELL to CSR");
  const std::int64_t rows = A.rows();
  Array<I> ptr(static_cast<std::size_t>(rows) + 1);
  ptr[0] = 0;
  for (std::int64_t r = 0; r < rows; ++r)
    ptr[r + 1] = ptr[r] + A.row_len()[r];
  Array<I> col(static_cast<std::size_t>(A.nnz()));
  Array<T> val(static_cast<std::size_t>(A.nnz()));
  detail::read_ell_group<T, I>(A.col_idx().data(), A.values().data(), A.row_len().data(), rows,
                               rows, col.data(), val.data(),
                               [&](std::int64_t r) { return std::int64_t{ptr[r]}; });
  return Csr<T, I>(A.rows(), A.cols(), std::move(ptr), std::move(col), std::move(val),
                   Check::Trusted);
}

#define SPX_INST(T, I)                                                \
  template Ell<T, I> to_ell(const Csr<T, I>&, const ConvertOptions&); \
  template Csr<T, I> to_csr(const Ell<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx
