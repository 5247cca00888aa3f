// Construction and validation of BCSR.
#include "spx/formats/bcsr.hpp"

#include <algorithm>
#include <vector>

#include "core/instantiate.hpp"
#include "core/out_of_memory.hpp"
#include "core/padded.hpp"

namespace spx {

template <Value T, Index I>
Bcsr<T, I>::Bcsr(I rows, I cols, int block_size, Array<I> block_ptr, Array<I> block_col,
                 Array<T> values, ExplicitZeros<I> zeros, Known known)
    : detail::FormatBase<I>(rows, cols, values.space()),
      block_size_(block_size),
      block_ptr_(std::move(block_ptr)),
      block_col_(std::move(block_col)),
      values_(std::move(values)),
      zeros_(detail::adopt_zeros(std::move(zeros), values_.space())),
      nnz_(known.nnz) {}

template <Value T, Index I>
Bcsr<T, I>::Bcsr(I rows, I cols, int block_size, Array<I> block_ptr, Array<I> block_col,
                 Array<T> values, ExplicitZeros<I> zeros, Check check) try
    : Bcsr(rows, cols, block_size, std::move(block_ptr), std::move(block_col), std::move(values),
           std::move(zeros), Known{}) {
  if (check == Check::Trusted) {
    nnz_ = detail::count_nonzero(values_) + static_cast<std::int64_t>(zeros_.size());
    return;
  }
  constexpr std::string_view F = "BCSR";
  detail::check_shape(F, rows, cols);
  detail::check_block_size(block_size, kMaxBlockSize);
  detail::check_same_space(F, {values_.space(), block_ptr_.space(), block_col_.space(),
                               zeros_.rows.space(), zeros_.cols.space()});
  const std::int64_t m = rows, n = cols, b = block_size;
  const std::int64_t mb = (m + b - 1) / b, nb = (n + b - 1) / b;
  const std::vector<I> ptr = block_ptr_.to_vector();
  const std::vector<I> col = block_col_.to_vector();
  const detail::SliceNames names{F, "block_ptr", "block_col", "block row", "block columns"};
  detail::check_length(F, "block_ptr", static_cast<std::int64_t>(ptr.size()), mb + 1,
                       fmt::format("block rows + 1 = ceil({} / {}) + 1", m, b));
  detail::check_pointers(names, ptr.data(), mb, static_cast<std::int64_t>(col.size()));
  detail::check_sorted_slices(names, ptr.data(), mb, col.data(), 0, nb,
                              fmt::format("[0, {}) (ceil({} / {}))", nb, n, b));
  const auto blocks = static_cast<std::int64_t>(col.size());
  detail::check_length(F, "values", static_cast<std::int64_t>(values_.size()),
                       detail::checked_mul(blocks, b * b, "BCSR values"),
                       fmt::format("blocks x b^2 = {} x {}", blocks, b * b));
  const std::vector<T> val = values_.to_vector();
  // Positions past the last row or column (only in the last block row or
  // block column) must hold zero.
  if (m % b != 0 || n % b != 0)
    for (std::int64_t R = 0; R < mb; ++R)
      for (std::int64_t k = ptr[R]; k < ptr[R + 1]; ++k)
        for (std::int64_t c = 0; c < b; ++c)
          for (std::int64_t r = 0; r < b; ++r) {
            const std::int64_t i = R * b + r, j = col[k] * b + c, p = k * b * b + c * b + r;
            if ((i >= m || j >= n) && val[p] != T{0})
              throw InvalidInput(fmt::format(
                  "BCSR: values[{}] = {} (block {}, local row {}, column {}) lies past the {}x{} "
                  "matrix (at ({}, {})) and must be 0",
                  p, val[p], k, r, c, m, n, i, j));
          }
  nnz_ = detail::padded_entries<T, I>(
      F, check, m, n, zeros_, values_, val, [&](std::int64_t i, std::int64_t j) -> std::int64_t {
        const auto first = col.begin() + ptr[i / b], last = col.begin() + ptr[i / b + 1];
        const auto it = std::lower_bound(first, last, static_cast<I>(j / b));
        if (it == last || *it != j / b) return -1;
        return (it - col.begin()) * b * b + (j % b) * b + (i % b);
      });
} catch (...) {
  detail::rethrow_allocation_failure("BCSR");
}

template <Value T, Index I>
Bcsr<T, I> Bcsr<T, I>::to(Space space) const {
  return Bcsr(this->rows_, this->cols_, block_size_, block_ptr_.to(space), block_col_.to(space),
              values_.to(space), zeros_.to(space), Known{.nnz = nnz_});
}

SPX_INSTANTIATE_CLASS(Bcsr)

}  // namespace spx
