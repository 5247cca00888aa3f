// CSR ↔ SYM_CSR (lower triangle and diagonal of a symmetric matrix).
#include <algorithm>
#include <vector>

#include "core/convert_host.hpp"
#include "core/padded_size.hpp"

namespace spx {
namespace detail {

/// Throws Unsupported (throw_not_symmetric) at the first entry whose mirror
/// is missing or differs that a row-major scan meets. One pass: row i's entries
/// above the diagonal, met in increasing i, must meet the lower entries of
/// their column's row in increasing column order, which a cursor per row
/// follows; a lower entry the cursor has not consumed by the time its own
/// row comes has no mirror.
template <Value T, Index I>
std::int64_t check_symmetric(const Csr<T, I>& A, std::string_view format) {
  check_sym_square(A.rows(), A.cols(), format);
  const std::int64_t n = A.rows();
  const I* ptr = A.row_ptr().data();
  const I* col = A.col_idx().data();
  const T* val = A.values().data();
  HostVector<std::int64_t> cursor(ptr, ptr + n);
  std::int64_t diagonal = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t end = ptr[i + 1];
    std::int64_t k = cursor[i];
    if (k < end && col[k] < i) throw_not_symmetric<T>(i, col[k], val[k], nullptr, format);
    if (k < end && col[k] == i) {
      ++diagonal;
      ++k;
    }
    for (; k < end; ++k) {  // (i, j) above the diagonal: (j, i) must come next in row j
      const std::int64_t j = col[k];
      std::int64_t& c = cursor[j];
      if (c < ptr[j + 1] && col[c] < i)  // (j, col[c]) had no mirror in its row, met earlier
        throw_not_symmetric<T>(j, col[c], val[c], nullptr, format);
      if (c >= ptr[j + 1] || col[c] != i) throw_not_symmetric<T>(i, j, val[k], nullptr, format);
      if (!sym_equal(val[k], val[c])) throw_not_symmetric<T>(i, j, val[k], &val[c], format);
      ++c;
    }
  }
  return diagonal;
}

template <Value T, Index I>
struct HostConversion<SymCsr<T, I>> {
  static SymCsr<T, I> from_csr(const Csr<T, I>& A, const ConvertOptions&) {
    check_symmetric(A);
    const std::int64_t n = A.rows();
    const I* ptr = A.row_ptr().data();
    const I* col = A.col_idx().data();
    const T* val = A.values().data();
    // Row i keeps its columns <= i: a prefix of the sorted row.
    Array<I> low_ptr(static_cast<std::size_t>(n) + 1);
    low_ptr[0] = 0;
    for (std::int64_t i = 0; i < n; ++i)
      low_ptr[i + 1] = static_cast<I>(
          low_ptr[i] +
          (std::upper_bound(col + ptr[i], col + ptr[i + 1], static_cast<I>(i)) - (col + ptr[i])));
    const std::int64_t stored = n == 0 ? 0 : low_ptr[n];
    Array<I> low_col(static_cast<std::size_t>(stored));
    Array<T> low_val(static_cast<std::size_t>(stored));
#pragma omp parallel for schedule(static) if (A.nnz() > 65536)
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t len = std::int64_t{low_ptr[i + 1]} - low_ptr[i];
      std::copy_n(col + ptr[i], len, low_col.data() + low_ptr[i]);
      std::copy_n(val + ptr[i], len, low_val.data() + low_ptr[i]);
    }
    return SymCsr<T, I>(A.rows(), std::move(low_ptr), std::move(low_col), std::move(low_val),
                        Known{A.nnz(), true});
  }

  static Csr<T, I> to_csr(const SymCsr<T, I>& A) {
    const std::int64_t n = A.rows();
    require_index_fits<I>("CSR", "nnz", A.nnz());
    const I* lp = A.row_ptr().data();
    const I* lc = A.col_idx().data();
    const T* lv = A.values().data();
    // Row i of the full matrix: its stored entries (columns <= i), then the
    // mirrors (i, j) of the strictly lower entries (j, i) of the rows j > i,
    // which a pass over the rows in order emits in increasing j.
    HostVector<std::int64_t> upper(static_cast<std::size_t>(n), 0);
    for (std::int64_t k = 0; k < A.stored(); ++k)
      ++upper[lc[k]];
    for (std::int64_t i = 0; i < n; ++i)
      if (lp[i + 1] > lp[i] && lc[lp[i + 1] - 1] == i) --upper[i];  // the diagonal has no mirror
    const auto lengths = [&](I* count) {
      for (std::int64_t i = 0; i < n; ++i)
        count[i + 1] = static_cast<I>(std::int64_t{lp[i + 1]} - lp[i] + upper[i]);
    };
    const auto fill = [&](const I* ptr, I* col, T* val) {
      HostVector<std::int64_t> next(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t len = std::int64_t{lp[i + 1]} - lp[i];
        std::copy_n(lc + lp[i], len, col + ptr[i]);
        std::copy_n(lv + lp[i], len, val + ptr[i]);
        next[i] = ptr[i] + len;
      }
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t k = lp[j]; k < lp[j + 1] && lc[k] < j; ++k) {
          const std::int64_t at = next[lc[k]]++;
          col[at] = static_cast<I>(j);
          val[at] = lv[k];
        }
    };
    return csr_from_lengths<T, I>(A.rows(), A.cols(), A.nnz(), lengths, fill);
  }
};

}  // namespace detail

SPX_INSTANTIATE_CONVERSION(SymCsr)

#define SPX_INST(T, I) \
  template std::int64_t detail::check_symmetric(const Csr<T, I>&, std::string_view);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx
