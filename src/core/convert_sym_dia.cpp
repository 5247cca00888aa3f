// CSR ↔ SYM_DIA (the diagonals of offset <= 0 of a symmetric matrix).
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/convert_host.hpp"
#include "core/padded.hpp"

namespace spx {
namespace detail {

template <Value T, Index I>
struct HostConversion<SymDia<T, I>> {
  static SymDia<T, I> from_csr(const Csr<T, I>& A, const ConvertOptions& options) {
    const std::int64_t diagonal = check_symmetric(A, "SYM_DIA");
    const std::int64_t n = A.rows();
    const I* ptr = A.row_ptr().data();
    const I* col = A.col_idx().data();
    const T* val = A.values().data();

    // Occupied lower diagonals: offset j − i in [−(n−1), 0], flagged at
    // j − i + n − 1 and numbered in increasing order (the map costs n
    // entries, no more than the row pointers).
    constexpr I kAbsent = -1, kOccupied = -2;
    HostVector<I> diag_of(static_cast<std::size_t>(n), kAbsent);
    HostVector<I> offsets;
    std::int64_t stored = 0;
    for (std::int64_t i = 0; i < n; ++i)
      for (I k = ptr[i]; k < ptr[i + 1] && col[k] <= i; ++k) {
        diag_of[col[k] - i + n - 1] = kOccupied;
        ++stored;
      }
    for (std::int64_t s = 0; s < n; ++s)
      if (diag_of[s] == kOccupied) {
        diag_of[s] = static_cast<I>(offsets.size());
        offsets.push_back(static_cast<I>(s - (n - 1)));
      }
    const std::int64_t nd = static_cast<std::int64_t>(offsets.size());

    // Refuse before allocating when the padded storage is unreasonable (the
    // budget of DIA, against the full CSR's bytes).
    const PaddedSize size = dia_size<T, I>(n, nd);
    check_padded_budget("SYM_DIA", fmt::format("{} rows x {} diagonals", n, nd), size, stored,
                        A.bytes(), options);

    Array<T> values(static_cast<std::size_t>(size.values));
    T* v = values.data();
#pragma omp parallel for schedule(static) if (size.values > kParallelWork)
    for (std::int64_t p = 0; p < size.values; ++p)
      v[p] = T{0};
    std::vector<I> zr, zc;  // explicit zeros of the lower triangle, by (row, column)
    for (std::int64_t i = 0; i < n; ++i)
      for (I k = ptr[i]; k < ptr[i + 1] && col[k] <= i; ++k) {
        v[std::int64_t{diag_of[col[k] - i + n - 1]} * n + i] = val[k];
        if (val[k] == T{0}) {
          zr.push_back(static_cast<I>(i));
          zc.push_back(col[k]);
        }
      }
    return SymDia<T, I>(A.rows(), Array<I>(offsets), std::move(values),
                        ExplicitZeros<I>{Array<I>(zr), Array<I>(zc)}, Known{.nnz = A.nnz()},
                        diagonal);
  }

  static Csr<T, I> to_csr(const SymDia<T, I>& A) {
    const std::int64_t n = A.rows(), nd = A.ndiag();
    require_index_fits<I>("CSR", "nnz", A.nnz());
    const I* off = A.offsets().data();
    const T* v = A.values().data();
    const ExplicitZeros<I>& z = A.explicit_zeros();
    const I* zr = z.rows.data();
    const I* zc = z.cols.data();
    const std::size_t nz = z.size();
    // (r, c), c <= r, is an entry when its value is nonzero or it is listed
    // as an explicit zero (binary search over the (row, column)-sorted list).
    const auto entry = [&](std::int64_t r, std::int64_t c, std::int64_t pos) {
      if (v[pos] != T{0}) return true;
      if (nz == 0) return false;
      const I* first = std::lower_bound(zr, zr + nz, static_cast<I>(r));
      const I* last = std::upper_bound(first, zr + nz, static_cast<I>(r));
      const I* hit = std::lower_bound(zc + (first - zr), zc + (last - zr), static_cast<I>(c));
      return hit != zc + (last - zr) && *hit == c;
    };
    // Row i of the full matrix: the stored diagonals (columns i + o <= i, in
    // increasing order of o), then the mirrors (i, i − o) of the strictly
    // lower diagonals in decreasing order of o (increasing columns).
    return csr_from_rows<T, I>(A.rows(), A.cols(), "SYM_DIA",
                               static_cast<std::int64_t>(A.values().size()),
                               [&](std::int64_t i, auto&& emit) {
                                 for (std::int64_t d = 0; d < nd; ++d) {
                                   const std::int64_t j = i + off[d];
                                   if (j >= 0 && entry(i, j, d * n + i)) emit(j, v[d * n + i]);
                                 }
                                 for (std::int64_t d = nd - 1; d >= 0; --d) {
                                   if (off[d] == 0) continue;
                                   const std::int64_t j = i - off[d];
                                   if (j < n && entry(j, i, d * n + j)) emit(j, v[d * n + j]);
                                 }
                               });
  }
};

}  // namespace detail

SPX_INSTANTIATE_CONVERSION(SymDia)

}  // namespace spx
