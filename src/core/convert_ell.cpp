// CSR ↔ ELL.
#include <algorithm>

#include <fmt/format.h>

#include "core/convert_host.hpp"
#include "core/padded_size.hpp"

namespace spx {
namespace detail {

template <Value T, Index I>
struct HostConversion<Ell<T, I>> {
  static Ell<T, I> from_csr(const Csr<T, I>& A, const ConvertOptions& options) {
    const std::int64_t rows = A.rows();
    const I* ptr = A.row_ptr().data();
    const std::int64_t width = longest_row(ptr, rows);

    // Refuse before allocating: the padded size must fit the index type and
    // the memory budget.
    const std::int64_t stored = padded_mul("ELL", "rows x width", rows, width);
    require_index_fits<I>("ELL", "rows x width", stored);
    require_budget("ELL", fmt::format("{} rows x width {} (the longest row)", rows, width), stored,
                   padded_bytes<T, I>(stored, rows), A.bytes(), options);

    Array<I> col(static_cast<std::size_t>(stored));
    Array<T> val(static_cast<std::size_t>(stored));
    Array<I> len(static_cast<std::size_t>(rows));
    // Blocks of rows: each thread writes a contiguous run of every column.
    constexpr std::int64_t kBlock = 256;
#pragma omp parallel for schedule(static) if (stored > 65536)
    for (std::int64_t b = 0; b < rows; b += kBlock) {
      const std::int64_t n = std::min(kBlock, rows - b);
      // The group is the whole matrix (stride = rows); this block fills its
      // rows [b, b+n).
      fill_ell_group<T, I>(ptr, A.col_idx().data(), A.values().data(), col.data() + b,
                           val.data() + b, len.data() + b, rows, n, n, width,
                           [b](std::int64_t r) { return b + r; });
    }
    return Ell<T, I>(A.rows(), A.cols(), static_cast<I>(width), std::move(col), std::move(val),
                     std::move(len), Check::Trusted);
  }

  static Csr<T, I> to_csr(const Ell<T, I>& A) {
    const EllGroup all_rows{0, A.rows(), A.rows(), A.width(), 0};
    return ellpack_to_csr(
        A, 1, [&](std::int64_t) { return all_rows; }, [](std::int64_t r) { return r; });
  }
};

}  // namespace detail

SPX_INSTANTIATE_CONVERSION(Ell)

}  // namespace spx
