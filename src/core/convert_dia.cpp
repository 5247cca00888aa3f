// CSR ↔ DIA, and the memory-budget check shared by the padded formats.
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/checked.hpp"
#include "core/convert_formats.hpp"
#include "core/instantiate.hpp"
#include "core/convert_checks.hpp"
#include "core/padded.hpp"

namespace spx {
namespace detail {

void check_padded_budget(std::string_view format, std::string_view what, const PaddedSize& size,
                         std::int64_t nnz, std::size_t csr_bytes, const ConvertOptions& options) {
  const double limit = padded_budget(options, csr_bytes);
  if (static_cast<double>(size.bytes) <= limit) return;
  throw Unsupported(fmt::format(
      "{}: {} = {} stored values for {} entries would take {} bytes ({:.1f}x the CSR's {} "
      "bytes), above the limit of {:.0f} bytes = max(ConvertOptions::max_bytes_floor = {}, "
      "max_expansion = {} x CSR bytes)",
      format, what, size.values, nnz, size.bytes,
      csr_bytes > 0 ? static_cast<double>(size.bytes) / static_cast<double>(csr_bytes) : 0.0,
      csr_bytes, limit, options.max_bytes_floor, options.max_expansion));
}

}  // namespace detail

template <Value T, Index I>
Dia<T, I> to_dia(const Csr<T, I>& A, const ConvertOptions& options) {
  if (A.space() != Space::Host) return detail::convert_on_backend<Dia<T, I>>(A, options);
  detail::require_host(A.space(), "CSR to DIA");
  const std::int64_t m = A.rows(), n = A.cols();
  const I* ptr = A.row_ptr().data();
  const I* col = A.col_idx().data();
  const T* val = A.values().data();

  // Occupied diagonals: offset j − i lies in [−(m−1), n−1], flagged at
  // j − i + m − 1, then numbered in increasing order. (Sequential: concurrent
  // writes of a flag would race.)
  constexpr I kAbsent = -1, kOccupied = -2;
  const std::int64_t span = m > 0 && n > 0 ? m + n - 1 : 0;
  std::vector<I> diag_of(static_cast<std::size_t>(span), kAbsent);
  for (std::int64_t i = 0; i < m; ++i)
    for (I k = ptr[i]; k < ptr[i + 1]; ++k)
      diag_of[col[k] - i + m - 1] = kOccupied;
  std::vector<I> offsets;
  for (std::int64_t s = 0; s < span; ++s)
    if (diag_of[s] == kOccupied) {
      diag_of[s] = static_cast<I>(offsets.size());
      offsets.push_back(static_cast<I>(s - (m - 1)));
    }
  const std::int64_t nd = static_cast<std::int64_t>(offsets.size());

  // Refuse before allocating when the padded storage is unreasonable.
  const detail::PaddedSize size = detail::dia_size<T, I>(m, nd);
  detail::check_padded_budget("DIA", fmt::format("{} rows x {} diagonals", m, nd), size, A.nnz(),
                              A.bytes(), options);

  Array<T> values(static_cast<std::size_t>(size.values));
  T* v = values.data();
#pragma omp parallel for schedule(static) if (size.values > detail::kParallelWork)
  for (std::int64_t p = 0; p < size.values; ++p)
    v[p] = T{0};
#pragma omp parallel for schedule(dynamic, 1024) if (A.nnz() > detail::kParallelWork)
  for (std::int64_t i = 0; i < m; ++i)
    for (I k = ptr[i]; k < ptr[i + 1]; ++k)
      v[static_cast<std::int64_t>(diag_of[col[k] - i + m - 1]) * m + i] = val[k];

  return Dia<T, I>(A.rows(), A.cols(), Array<I>(offsets), std::move(values),
                   detail::csr_explicit_zeros(A), Check::Trusted);
}

template <Value T, Index I>
Csr<T, I> to_csr(const Dia<T, I>& A) {
  detail::require_host(A.space(), "DIA to CSR");
  const std::int64_t m = A.rows(), n = A.cols(), nd = A.ndiag();
  const I* off = A.offsets().data();
  const T* v = A.values().data();
  const ExplicitZeros<I>& z = A.explicit_zeros();
  const I* zc = z.cols.data();

  // Visits row i's entries in column order: the nonzero values on its
  // diagonals, and the explicit zeros (matched by column).
  const auto for_each_entry = [&](std::int64_t i, auto&& emit) {
    auto [zp, ze] = detail::zeros_of_row(z, i);
    for (std::int64_t d = 0; d < nd; ++d) {
      const std::int64_t j = i + off[d];
      if (j < 0 || j >= n) continue;
      const T x = v[d * m + i];
      while (zp < ze && zc[zp] < j)
        ++zp;
      const bool listed = zp < ze && zc[zp] == j;
      if (x != T{0} || listed) emit(j, x);
    }
  };

  return detail::csr_from_rows<T, I>(A.rows(), A.cols(), "DIA",
                                     static_cast<std::int64_t>(A.values().size()), for_each_entry);
}

#define SPX_INST(T, I)                                                \
  template Dia<T, I> to_dia(const Csr<T, I>&, const ConvertOptions&); \
  template Csr<T, I> to_csr(const Dia<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx
