// CSR ↔ HLL (Hacked ELLPACK).
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/convert_host.hpp"
#include "core/padded_size.hpp"

namespace spx {
namespace detail {

template <Value T, Index I>
struct HostConversion<Hll<T, I>> {
  static Hll<T, I> from_csr(const Csr<T, I>& A, const ConvertOptions& options) {
    const int H = options.hack_size;
    const std::int64_t rows = A.rows();
    const I* ptr = A.row_ptr().data();
    const std::int64_t hacks = (rows + H - 1) / H;
    const auto hack_rows = [&](std::int64_t h) { return std::min<std::int64_t>(H, rows - h * H); };

    // Hack widths (the hack's longest row) and offsets, checked before
    // anything large is allocated.
    detail::HostVector<std::int64_t> width(static_cast<std::size_t>(hacks), 0);
    for (std::int64_t r = 0; r < rows; ++r)
      width[r / H] = std::max<std::int64_t>(width[r / H], ptr[r + 1] - ptr[r]);
    std::int64_t stored = 0;
    for (std::int64_t h = 0; h < hacks; ++h)
      stored = padded_add("HLL", "stored entries", stored,
                          padded_mul("HLL", "hack entries", hack_rows(h), width[h]));
    require_index_fits<I>("HLL", "stored entries", stored);
    require_budget("HLL", fmt::format("{} hacks of H = {} rows", hacks, H), stored,
                   padded_bytes<T, I>(stored, hacks + 1 + rows), A.bytes(), options);

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
      fill_ell_group<T, I>(ptr, A.col_idx().data(), A.values().data(), col.data() + hack_ptr[h],
                           val.data() + hack_ptr[h], len.data() + first, n, n, n, width[h],
                           [first](std::int64_t r) { return first + r; });
    }
    return Hll<T, I>(A.rows(), A.cols(), H, std::move(hack_ptr), std::move(col), std::move(val),
                     std::move(len), Check::Trusted);
  }

  static Csr<T, I> to_csr(const Hll<T, I>& A) {
    return ellpack_to_csr(
        A, A.num_hacks(),
        [&](std::int64_t h) { return hll_group(A.rows(), A.hack_size(), A.hack_ptr().data(), h); },
        [](std::int64_t r) { return r; });
  }
};

}  // namespace detail

SPX_INSTANTIATE_CONVERSION(Hll)

}  // namespace spx
