// CSR ↔ JAD (jagged diagonals).
#include <algorithm>
#include <vector>

#include "core/convert_host.hpp"

namespace spx {
namespace detail {

template <Value T, Index I>
struct HostConversion<Jad<T, I>> {
  static Jad<T, I> from_csr(const Csr<T, I>& A, const ConvertOptions&) {
    const std::int64_t rows = A.rows();
    const I* ptr = A.row_ptr().data();
    const auto length = [ptr](std::int64_t r) { return std::int64_t{ptr[r + 1]} - ptr[r]; };
    const std::int64_t longest = longest_row(ptr, rows);

    // Stable counting sort of the rows by decreasing length: rows_longer[k] =
    // rows longer than k, which is also where the rows of length k start.
    detail::HostVector<std::int64_t> count(static_cast<std::size_t>(longest) + 2, 0);
    for (std::int64_t r = 0; r < rows; ++r)
      ++count[length(r)];
    detail::HostVector<std::int64_t> next(static_cast<std::size_t>(longest) + 1, 0);
    for (std::int64_t k = longest - 1; k >= 0; --k)
      next[k] = next[k + 1] + count[k + 1];
    Array<I> perm(static_cast<std::size_t>(rows));
    for (std::int64_t r = 0; r < rows; ++r)
      perm[next[length(r)]++] = static_cast<I>(r);

    // Jagged diagonal d holds entry d of the rows longer than d: the first
    // (rows of length > d) stored rows.
    Array<I> jd_ptr(static_cast<std::size_t>(longest) + 1);
    jd_ptr[0] = 0;
    std::int64_t longer = rows - count[0];  // rows of length > d, for d = 0
    for (std::int64_t d = 0; d < longest; ++d) {
      jd_ptr[d + 1] = static_cast<I>(jd_ptr[d] + longer);
      longer -= count[d + 1];
    }
    Array<I> col(static_cast<std::size_t>(A.nnz()));
    Array<T> val(static_cast<std::size_t>(A.nnz()));
#pragma omp parallel for schedule(static) if (A.nnz() > 65536)
    for (std::int64_t i = 0; i < rows; ++i) {
      const std::int64_t b = ptr[perm[i]], n = length(perm[i]);
      for (std::int64_t d = 0; d < n; ++d) {
        col[jd_ptr[d] + i] = A.col_idx()[b + d];
        val[jd_ptr[d] + i] = A.values()[b + d];
      }
    }
    return Jad<T, I>(A.rows(), A.cols(), std::move(perm), std::move(jd_ptr), std::move(col),
                     std::move(val), Check::Trusted);
  }

  static Csr<T, I> to_csr(const Jad<T, I>& A) {
    const std::int64_t rows = A.rows(), diagonals = A.num_diagonals();
    const I* jd = A.jd_ptr().data();
    const I* perm = A.perm().data();
    // Stored row i has one entry in every diagonal longer than i: count them
    // with a difference array (diagonal d covers stored rows [0, length_d)).
    detail::HostVector<std::int64_t> len(static_cast<std::size_t>(rows) + 1, 0);
    for (std::int64_t d = 0; d < diagonals; ++d) {
      ++len[0];
      --len[jd[d + 1] - jd[d]];
    }
    for (std::int64_t i = 1; i < rows; ++i)
      len[i] += len[i - 1];
    const auto lengths = [&](I* count) {
      for (std::int64_t i = 0; i < rows; ++i)
        count[perm[i] + 1] = static_cast<I>(len[i]);
    };
    const auto fill = [&](const I* ptr, I* col, T* val) {
#pragma omp parallel for schedule(static) if (A.nnz() > 65536)
      for (std::int64_t i = 0; i < rows; ++i) {
        const std::int64_t b = ptr[perm[i]];
        for (std::int64_t d = 0; d < len[i]; ++d) {
          col[b + d] = A.col_idx()[jd[d] + i];
          val[b + d] = A.values()[jd[d] + i];
        }
      }
    };
    return csr_from_lengths<T, I>(A.rows(), A.cols(), A.nnz(), lengths, fill);
  }
};

}  // namespace detail

SPX_INSTANTIATE_CONVERSION(Jad)

}  // namespace spx
