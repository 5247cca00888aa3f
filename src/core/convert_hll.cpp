// CSR ↔ HLL (Hacked ELLPACK).
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
Hll<T, I> to_hll(const Csr<T, I>& A, const ConvertOptions& options) {
  detail::check_hll_options(options);
  if (A.space() != Space::Host) return detail::convert_on_backend<Hll<T, I>>(A, options);
  detail::require_host(A.space(), "CSR to HLL");
  const int H = options.hack_size;
  const std::int64_t rows = A.rows();
  const I* ptr = A.row_ptr().data();
  const std::int64_t hacks = (rows + H - 1) / H;
  const auto hack_rows = [&](std::int64_t h) { return std::min<std::int64_t>(H, rows - h * H); };

  // Hack widths (the hack's longest row) and offsets, checked before
  // anything large is allocated.
  std::vector<std::int64_t> width(static_cast<std::size_t>(hacks), 0);
  for (std::int64_t r = 0; r < rows; ++r)
    width[r / H] = std::max<std::int64_t>(width[r / H], ptr[r + 1] - ptr[r]);
  std::int64_t stored = 0;
  for (std::int64_t h = 0; h < hacks; ++h)
    stored = detail::padded_add("HLL", "stored entries", stored,
                                detail::padded_mul("HLL", "hack entries", hack_rows(h), width[h]));
  detail::require_index_fits<I>("HLL", "stored entries", stored);
  detail::require_budget("HLL", fmt::format("{} hacks of H = {} rows", hacks, H), stored,
                         detail::padded_bytes<T, I>(stored, hacks + 1 + rows), A.bytes(), options);

  Array<I> hack_ptr(static_cast<std::size_t>(hacks) + 1);
  hack_ptr[0] = 0;
  for (std::int64_t h = 0; h < hacks; ++h)
    hack_ptr[h + 1] = static_cast<I>(hack_ptr[h] + hack_rows(h) * width[h]);
  Array<I> col(static_cast<std::size_t>(stored));
  Array<T> val(static_cast<std::size_t>(stored));
  Array<I> len(static_cast<std::size_t>(rows));
#pragma omp parallel for schedule(dynamic, 64) if (stored > 65536)
  for (std::int64_t h = 0; h < hacks; ++h) {
    const std::int64_t first = h * H, n = hack_rows(h);
    detail::fill_ell_group<T, I>(ptr, A.col_idx().data(), A.values().data(),
                                 col.data() + hack_ptr[h], val.data() + hack_ptr[h],
                                 len.data() + first, n, n, n, width[h],
                                 [first](std::int64_t r) { return first + r; });
  }
  return Hll<T, I>(A.rows(), A.cols(), H, std::move(hack_ptr), std::move(col), std::move(val),
                   std::move(len), Check::Trusted);
}

template <Value T, Index I>
Csr<T, I> to_csr(const Hll<T, I>& A) {
  detail::require_host(A.space(), "HLL to CSR");
  const std::int64_t rows = A.rows(), H = A.hack_size();
  Array<I> ptr(static_cast<std::size_t>(rows) + 1);
  ptr[0] = 0;
  for (std::int64_t r = 0; r < rows; ++r)
    ptr[r + 1] = ptr[r] + A.row_len()[r];
  Array<I> col(static_cast<std::size_t>(A.nnz()));
  Array<T> val(static_cast<std::size_t>(A.nnz()));
#pragma omp parallel for schedule(dynamic, 64) if (A.stored() > 65536)
  for (std::int64_t h = 0; h < A.num_hacks(); ++h) {
    const std::int64_t first = h * H, n = std::min(H, rows - first), off = A.hack_ptr()[h];
    detail::read_ell_group<T, I>(A.col_idx().data() + off, A.values().data() + off,
                                 A.row_len().data() + first, n, n, col.data(), val.data(),
                                 [&](std::int64_t r) { return std::int64_t{ptr[first + r]}; });
  }
  return Csr<T, I>(A.rows(), A.cols(), std::move(ptr), std::move(col), std::move(val),
                   Check::Trusted);
}

#define SPX_INST(T, I)                                                \
  template Hll<T, I> to_hll(const Csr<T, I>&, const ConvertOptions&); \
  template Csr<T, I> to_csr(const Hll<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx
