// CSR ↔ SELL-C-σ / SELL-P.
#include <algorithm>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "core/convert_host.hpp"
#include "core/padded_size.hpp"

namespace spx {
namespace detail {

template <Value T, Index I>
struct HostConversion<Sell<T, I>> {
  static Sell<T, I> from_csr(const Csr<T, I>& A, const ConvertOptions& options) {
    const int C = options.slice_size, sigma = options.sigma, tpr = options.threads_per_row;
    const std::int64_t rows = A.rows();
    const I* ptr = A.row_ptr().data();
    const auto length = [ptr](std::int64_t r) { return std::int64_t{ptr[r + 1]} - ptr[r]; };

    // Sort rows by decreasing length within windows of sigma rows (stable, so
    // equal lengths keep their order). sigma = 1: no permutation stored.
    detail::HostVector<std::int64_t> order;
    if (sigma > 1) {
      order.resize(static_cast<std::size_t>(rows));
      std::iota(order.begin(), order.end(), std::int64_t{0});
      const std::int64_t windows = (rows + sigma - 1) / sigma;
#pragma omp parallel for schedule(dynamic, 16) if (rows > 65536)
      for (std::int64_t w = 0; w < windows; ++w)
        std::stable_sort(order.begin() + w * sigma, order.begin() + std::min(rows, (w + 1) * sigma),
                         [&](std::int64_t a, std::int64_t b) { return length(a) > length(b); });
    }
    const auto row_of = [&](std::int64_t i) { return sigma > 1 ? order[i] : i; };

    // Slice widths (longest row, rounded up to a multiple of threads_per_row)
    // and offsets, checked before anything large is allocated.
    const std::int64_t slices = (rows + C - 1) / C;
    detail::HostVector<std::int64_t> width(static_cast<std::size_t>(slices), 0);
    for (std::int64_t i = 0; i < rows; ++i)
      width[i / C] = std::max(width[i / C], length(row_of(i)));
    std::int64_t stored = 0;
    for (auto& w : width) {
      w = (w + tpr - 1) / tpr * tpr;
      stored =
          padded_add("SELL", "stored entries", stored, padded_mul("SELL", "slice entries", C, w));
    }
    require_index_fits<I>("SELL", "stored entries", stored);
    const std::int64_t index_entries = 2 * slices + 1 + rows + (sigma > 1 ? rows : 0);
    require_budget("SELL", fmt::format("{} slices of C = {} rows, sigma = {}", slices, C, sigma),
                   stored, padded_bytes<T, I>(stored, index_entries), A.bytes(), options);

    Array<I> slice_ptr(static_cast<std::size_t>(slices) + 1);
    Array<I> slice_width(static_cast<std::size_t>(slices));
    slice_ptr[0] = 0;
    for (std::int64_t s = 0; s < slices; ++s) {
      slice_width[s] = static_cast<I>(width[s]);
      slice_ptr[s + 1] = static_cast<I>(slice_ptr[s] + C * width[s]);
    }
    Array<I> col(static_cast<std::size_t>(stored));
    Array<T> val(static_cast<std::size_t>(stored));
    Array<I> len(static_cast<std::size_t>(rows));
#pragma omp parallel for schedule(dynamic, 64) if (stored > 65536)
    for (std::int64_t s = 0; s < slices; ++s) {
      const std::int64_t first = s * C;
      fill_ell_group<T, I>(ptr, A.col_idx().data(), A.values().data(), col.data() + slice_ptr[s],
                           val.data() + slice_ptr[s], len.data() + first, C, C,
                           std::min<std::int64_t>(C, rows - first), width[s],
                           [&](std::int64_t r) { return row_of(first + r); });
    }
    Array<I> perm;
    if (sigma > 1) {
      perm = Array<I>(static_cast<std::size_t>(rows));
      for (std::int64_t i = 0; i < rows; ++i)
        perm[i] = static_cast<I>(order[i]);
    }
    return Sell<T, I>(A.rows(), A.cols(), C, sigma, tpr, std::move(slice_ptr),
                      std::move(slice_width), std::move(col), std::move(val), std::move(len),
                      std::move(perm), Check::Trusted);
  }

  static Csr<T, I> to_csr(const Sell<T, I>& A) {
    const I* perm = A.perm().empty() ? nullptr : A.perm().data();
    return ellpack_to_csr(
        A, A.num_slices(),
        [&](std::int64_t s) {
          return sell_group(A.rows(), A.slice_size(), A.slice_ptr().data(), A.slice_width().data(),
                            s);
        },
        [&](std::int64_t i) -> std::int64_t { return perm ? perm[i] : i; });
  }
};

}  // namespace detail

SPX_INSTANTIATE_CONVERSION(Sell)

}  // namespace spx
