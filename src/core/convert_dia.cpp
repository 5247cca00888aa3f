// CSR ↔ DIA.
#include <algorithm>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "core/convert_host.hpp"
#include "core/padded.hpp"

namespace spx {
namespace detail {

template <Value T, Index I>
struct HostConversion<Dia<T, I>> {
  static Dia<T, I> from_csr(const Csr<T, I>& A, const ConvertOptions& options) {
    const std::int64_t m = A.rows(), n = A.cols();
    const I* ptr = A.row_ptr().data();
    const I* col = A.col_idx().data();
    const T* val = A.values().data();

    // Occupied diagonals: offset j − i lies in [−(m−1), n−1]. Where a map of
    // that span costs no more than the matrix, flag j − i + m − 1 and number
    // the flags in increasing order (sequential: concurrent writes of a flag
    // would race); otherwise (a few entries in a very wide or tall matrix)
    // sort the offsets of the entries and find each by binary search, so the
    // memory stays proportional to the nonzeros.
    constexpr I kAbsent = -1, kOccupied = -2;
    // m + n − 1 counted without overflow: a 1 × (2⁶³ − 1) matrix is a valid
    // shape, and a span past 2⁶³ − 1 is never mapped.
    const bool fits = m > 0 && n > 0 && n - 1 <= std::numeric_limits<std::int64_t>::max() - m;
    const std::int64_t span = fits ? m + (n - 1) : 0;
    const bool map = fits && span <= 2 * (A.nnz() + m) + (std::int64_t{1} << 16);
    detail::HostVector<I> diag_of(map ? static_cast<std::size_t>(span) : 0, kAbsent);
    detail::HostVector<I> offsets;
    if (map) {
      for (std::int64_t i = 0; i < m; ++i)
        for (I k = ptr[i]; k < ptr[i + 1]; ++k)
          diag_of[col[k] - i + m - 1] = kOccupied;
      for (std::int64_t s = 0; s < span; ++s)
        if (diag_of[s] == kOccupied) {
          diag_of[s] = static_cast<I>(offsets.size());
          offsets.push_back(static_cast<I>(s - (m - 1)));
        }
    } else {
      offsets.resize(static_cast<std::size_t>(A.nnz()));
      for (std::int64_t i = 0; i < m; ++i)
        for (I k = ptr[i]; k < ptr[i + 1]; ++k)
          offsets[k] = static_cast<I>(col[k] - i);
      std::sort(offsets.begin(), offsets.end());
      offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
    }
    const auto diagonal = [&](std::int64_t offset) -> std::int64_t {
      if (map) return diag_of[offset + m - 1];
      return std::lower_bound(offsets.begin(), offsets.end(), static_cast<I>(offset)) -
             offsets.begin();
    };
    const std::int64_t nd = static_cast<std::int64_t>(offsets.size());

    // Refuse before allocating when the padded storage is unreasonable.
    const PaddedSize size = dia_size<T, I>(m, nd);
    check_padded_budget("DIA", fmt::format("{} rows x {} diagonals", m, nd), size, A.nnz(),
                        A.bytes(), options);

    Array<T> values(static_cast<std::size_t>(size.values));
    T* v = values.data();
#pragma omp parallel for schedule(static) if (size.values > kParallelWork)
    for (std::int64_t p = 0; p < size.values; ++p)
      v[p] = T{0};
#pragma omp parallel for schedule(dynamic, 1024) if (A.nnz() > kParallelWork)
    for (std::int64_t i = 0; i < m; ++i)
      for (I k = ptr[i]; k < ptr[i + 1]; ++k)
        v[diagonal(std::int64_t{col[k]} - i) * m + i] = val[k];

    return Dia<T, I>(A.rows(), A.cols(), Array<I>(offsets), std::move(values),
                     csr_explicit_zeros(A), Check::Trusted);
  }

  static Csr<T, I> to_csr(const Dia<T, I>& A) {
    const Diagonals<I> D = dia_layout<I>(A.rows(), A.cols(), A.offsets().data(), A.ndiag());
    return padded_to_csr(A, [&](std::int64_t i, auto&& f) { D.for_each_in_row(i, f); });
  }
};

}  // namespace detail

SPX_INSTANTIATE_CONVERSION(Dia)

}  // namespace spx
