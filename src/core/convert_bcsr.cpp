// CSR ↔ BCSR.
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/convert_host.hpp"
#include "core/padded.hpp"

namespace spx {
namespace detail {

template <Value T, Index I>
struct HostConversion<Bcsr<T, I>> {
  static Bcsr<T, I> from_csr(const Csr<T, I>& A, const ConvertOptions& options) {
    const std::int64_t m = A.rows(), b = options.block_size, bb = b * b;
    const std::int64_t mb = (m + b - 1) / b;
    const I* ptr = A.row_ptr().data();
    const I* col = A.col_idx().data();
    const T* val = A.values().data();
    const auto first_entry = [&](std::int64_t R) { return ptr[std::min(R * b, m)]; };

    // Each block row's block columns: the entries' columns / b, sorted and made
    // unique in place in the block row's slice of a scratch array.
    detail::HostVector<I> scratch(static_cast<std::size_t>(A.nnz()));
    detail::HostVector<std::int64_t> blocks(static_cast<std::size_t>(mb) + 1, 0);
#pragma omp parallel for schedule(dynamic, 64) if (A.nnz() > kParallelWork)
    for (std::int64_t R = 0; R < mb; ++R) {
      const auto first = scratch.begin() + first_entry(R),
                 last = scratch.begin() + first_entry(R + 1);
      for (I k = first_entry(R); k < first_entry(R + 1); ++k)
        scratch[k] = static_cast<I>(col[k] / b);
      std::sort(first, last);
      blocks[R + 1] = std::unique(first, last) - first;
    }
    detail::HostVector<I> block_ptr(static_cast<std::size_t>(mb) + 1, I{0});
    for (std::int64_t R = 0; R < mb; ++R) {
      blocks[R + 1] += blocks[R];
      block_ptr[R + 1] = static_cast<I>(blocks[R + 1]);  // ≤ nnz, so it fits I
    }
    const std::int64_t nblocks = blocks[mb];

    // Refuse before allocating: low fill, or storage beyond the budget.
    check_bcsr_size<T, I>(mb, nblocks, b, A.nnz(), A.bytes(), options);
    const PaddedSize size = bcsr_size<T, I>(mb, nblocks, b);

    Array<I> block_col(static_cast<std::size_t>(nblocks));
    Array<T> values(static_cast<std::size_t>(size.values));
    T* v = values.data();
#pragma omp parallel for schedule(dynamic, 64) if (A.nnz() + size.values > kParallelWork)
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
                      std::move(block_col), std::move(values), csr_explicit_zeros(A),
                      Check::Trusted);
  }

  static Csr<T, I> to_csr(const Bcsr<T, I>& A) {
    const std::int64_t n = A.cols(), b = A.block_size();
    const I* bp = A.block_ptr().data();
    const I* bc = A.block_col().data();
    // Row i's stored positions: row i % b of each block of its block row.
    return padded_to_csr(A, [&](std::int64_t i, auto&& f) {
      for (std::int64_t k = bp[i / b]; k < bp[i / b + 1]; ++k)
        for (std::int64_t c = 0; c < b && bc[k] * b + c < n; ++c)
          f(bc[k] * b + c, k * b * b + c * b + i % b);
    });
  }
};

}  // namespace detail

SPX_INSTANTIATE_CONVERSION(Bcsr)

}  // namespace spx
