// Construction and validation of SymCsr (lower triangle of a symmetric matrix).
#include "spx/formats/sym_csr.hpp"

#include <vector>

#include <fmt/format.h>

#include "core/instantiate.hpp"
#include "core/out_of_memory.hpp"
#include "core/validate.hpp"

namespace spx {

template <Value T, Index I>
SymCsr<T, I>::SymCsr(I n, Array<I> row_ptr, Array<I> col_idx, Array<T> values, Check check)
    : detail::FormatBase<I>(n, n, row_ptr.space()),
      row_ptr_(std::move(row_ptr)),
      col_idx_(std::move(col_idx)),
      values_(std::move(values)) {
  try {
    constexpr std::string_view F = "SYM_CSR";
    const std::int64_t stored = static_cast<std::int64_t>(col_idx_.size());
    std::vector<I> ptr_copy, idx_copy;
    const I* ptr = detail::host_data(row_ptr_, ptr_copy);
    const I* col = detail::host_data(col_idx_, idx_copy);
    if (check == Check::Full) {
      detail::check_shape(F, n, n);
      detail::check_same_space(F, {row_ptr_.space(), col_idx_.space(), values_.space()});
      detail::check_length(F, "row_ptr", static_cast<std::int64_t>(row_ptr_.size()),
                           std::int64_t{n} + 1, "rows + 1");
      detail::check_same_length(F, "col_idx", stored, "values",
                                static_cast<std::int64_t>(values_.size()));
      const detail::SliceNames names{F, "row_ptr", "col_idx", "row", "column indices"};
      detail::check_compressed(names, ptr, n, col, stored, n);
      for (std::int64_t i = 0; i < n; ++i)
        if (ptr[i + 1] > ptr[i] && col[ptr[i + 1] - 1] > i)
          throw InvalidInput(fmt::format(
              "{}: col_idx[{}] = {} in row {} lies above the diagonal (SYM_CSR stores the lower "
              "triangle and the diagonal: columns <= row)",
              F, ptr[i + 1] - 1, col[ptr[i + 1] - 1], i));
    }
    // The full matrix's entry count: every stored entry twice but the
    // diagonal ones (the last of their row).
    std::int64_t diagonal = 0;
    for (std::int64_t i = 0; i < n; ++i)
      if (ptr[i + 1] > ptr[i] && col[ptr[i + 1] - 1] == i) ++diagonal;
    nnz_ = 2 * stored - diagonal;
  } catch (...) {
    detail::rethrow_allocation_failure("SYM_CSR");
  }
}

template <Value T, Index I>
SymCsr<T, I>::SymCsr(I n, Array<I> row_ptr, Array<I> col_idx, Array<T> values, Known known)
    : detail::FormatBase<I>(n, n, row_ptr.space()),
      row_ptr_(std::move(row_ptr)),
      col_idx_(std::move(col_idx)),
      values_(std::move(values)),
      nnz_(known.nnz) {}

template <Value T, Index I>
SymCsr<T, I> SymCsr<T, I>::to(Space space) const {
  return SymCsr(this->rows_, row_ptr_.to(space), col_idx_.to(space), values_.to(space),
                Known{nnz_, true});
}

SPX_INSTANTIATE_CLASS(SymCsr)

}  // namespace spx
