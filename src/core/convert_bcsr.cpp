// CSR ↔ BCSR.
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/checked.hpp"
#include "core/convert_formats.hpp"
#include "core/instantiate.hpp"
#include "core/convert_checks.hpp"
#include "core/padded.hpp"

namespace spx {

template <Value T, Index I>
Bcsr<T, I> to_bcsr(const Csr<T, I>& A, const ConvertOptions& options) {
  detail::check_bcsr_options(options, Bcsr<T, I>::kMaxBlockSize);
  if (A.space() != Space::Host) return detail::convert_on_backend<Bcsr<T, I>>(A, options);
  detail::require_host(A.space(), "CSR to BCSR");
  const std::int64_t m = A.rows(), b = options.block_size, bb = b * b;
  const std::int64_t mb = (m + b - 1) / b;
  const I* ptr = A.row_ptr().data();
  const I* col = A.col_idx().data();
  const T* val = A.values().data();
  const auto first_entry = [&](std::int64_t R) { return ptr[std::min(R * b, m)]; };

  // Each block row's block columns: the entries' columns / b, sorted and made
  // unique in place in the block row's slice of a scratch array.
  std::vector<I> scratch(static_cast<std::size_t>(A.nnz()));
  std::vector<std::int64_t> blocks(static_cast<std::size_t>(mb) + 1, 0);
#pragma omp parallel for schedule(dynamic, 64) if (A.nnz() > detail::kParallelWork)
  for (std::int64_t R = 0; R < mb; ++R) {
    const auto first = scratch.begin() + first_entry(R),
               last = scratch.begin() + first_entry(R + 1);
    for (I k = first_entry(R); k < first_entry(R + 1); ++k)
      scratch[k] = static_cast<I>(col[k] / b);
    std::sort(first, last);
    blocks[R + 1] = std::unique(first, last) - first;
  }
  std::vector<I> block_ptr(static_cast<std::size_t>(mb) + 1, I{0});
  for (std::int64_t R = 0; R < mb; ++R) {
    blocks[R + 1] += blocks[R];
    block_ptr[R + 1] = static_cast<I>(blocks[R + 1]);  // ≤ nnz, so it fits I
  }
  const std::int64_t nblocks = blocks[mb];

  // Refuse before allocating: low fill, or storage beyond the budget.
  detail::check_bcsr_size<T, I>(mb, nblocks, b, A.nnz(), A.bytes(), options);
  const detail::PaddedSize size = detail::bcsr_size<T, I>(mb, nblocks, b);

  Array<I> block_col(static_cast<std::size_t>(nblocks));
  Array<T> values(static_cast<std::size_t>(size.values));
  T* v = values.data();
#pragma omp parallel for schedule(dynamic, 64) if (A.nnz() + size.values > detail::kParallelWork)
  for (std::int64_t R = 0; R < mb; ++R) {
    const I* bc = scratch.data() + first_entry(R);  // the block row's unique block columns
    const std::int64_t nbr = blocks[R + 1] - blocks[R];
    std::copy(bc, bc + nbr, block_col.data() + blocks[R]);
    T* bv = v + blocks[R] * bb;
    std::fill(bv, bv + nbr * bb, T{0});
    for (std::int64_t r = 0; r < b && R * b + r < m; ++r) {
      // A row's columns increase, and so do the block columns: one cursor.
      std::int64_t k_blk = 0;
      for (I k = ptr[R * b + r]; k < ptr[R * b + r + 1]; ++k) {
        while (bc[k_blk] != col[k] / b)
          ++k_blk;
        bv[k_blk * bb + (col[k] % b) * b + r] = val[k];
      }
    }
  }

  return Bcsr<T, I>(A.rows(), A.cols(), static_cast<int>(b), Array<I>(block_ptr),
                    std::move(block_col), std::move(values), detail::csr_explicit_zeros(A),
                    Check::Trusted);
}

template <Value T, Index I>
Csr<T, I> to_csr(const Bcsr<T, I>& A) {
  detail::require_host(A.space(), "BCSR to CSR");
  const std::int64_t n = A.cols(), b = A.block_size(), bb = b * b;
  const I* bp = A.block_ptr().data();
  const I* bc = A.block_col().data();
  const T* v = A.values().data();
  const ExplicitZeros<I>& z = A.explicit_zeros();
  const I* zc = z.cols.data();

  // Visits row i's entries in column order: the nonzero values of its block
  // row's blocks (row i % b of each), and the explicit zeros.
  const auto for_each_entry = [&](std::int64_t i, auto&& emit) {
    const std::int64_t R = i / b, r = i % b;
    auto [zp, ze] = detail::zeros_of_row(z, i);
    for (std::int64_t k = bp[R]; k < bp[R + 1]; ++k)
      for (std::int64_t c = 0; c < b; ++c) {
        const std::int64_t j = bc[k] * b + c;
        if (j >= n) break;
        const T x = v[k * bb + c * b + r];
        while (zp < ze && zc[zp] < j)
          ++zp;
        const bool listed = zp < ze && zc[zp] == j;
        if (x != T{0} || listed) emit(j, x);
      }
  };
  return detail::csr_from_rows<T, I>(A.rows(), A.cols(), "BCSR",
                                     static_cast<std::int64_t>(A.values().size()), for_each_entry);
}

#define SPX_INST(T, I)                                                  \
  template Bcsr<T, I> to_bcsr(const Csr<T, I>&, const ConvertOptions&); \
  template Csr<T, I> to_csr(const Bcsr<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx
