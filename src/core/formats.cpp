// Construction and validation of COO, CSR and CSC.
#include <vector>

#include <fmt/format.h>

#include "core/instantiate.hpp"
#include "core/out_of_memory.hpp"
#include "core/validate.hpp"
#include "spx/formats/coo.hpp"
#include "spx/formats/csc.hpp"
#include "spx/formats/csr.hpp"

namespace spx {
namespace detail {

void check_shape(std::string_view format, std::int64_t rows, std::int64_t cols) {
  if (rows < 0 || cols < 0)
    throw InvalidInput(fmt::format("{}: negative shape {}x{}", format, rows, cols));
}

void check_same_space(std::string_view format, std::initializer_list<Space> spaces) {
  for (Space s : spaces)
    if (s != *spaces.begin())
      throw InvalidInput(fmt::format("{}: arrays live in different memory spaces", format));
}

namespace {

/// CSR and CSC: `ptr` cuts `idx` into `outer` slices of indices in [0, inner)
/// (rows of columns for CSR, columns of rows for CSC).
template <Value T, Index I>
void check_compressed_format(const SliceNames& names, std::string_view outer_name, I rows, I cols,
                             std::int64_t outer, std::int64_t inner, const Array<I>& ptr,
                             const Array<I>& idx, const Array<T>& values) {
  check_shape(names.where, rows, cols);
  check_same_space(names.where, {ptr.space(), idx.space(), values.space()});
  check_length(names.where, names.ptr, static_cast<std::int64_t>(ptr.size()), outer + 1,
               fmt::format("{} + 1", outer_name));
  check_same_length(names.where, names.idx, static_cast<std::int64_t>(idx.size()), "values",
                    static_cast<std::int64_t>(values.size()));
  std::vector<I> ptr_copy, idx_copy;
  check_compressed(names, host_data(ptr, ptr_copy), outer, host_data(idx, idx_copy),
                   static_cast<std::int64_t>(idx.size()), inner);
}

}  // namespace
}  // namespace detail

// ---- CSR --------------------------------------------------------------------

template <Value T, Index I>
Csr<T, I>::Csr(I rows, I cols, Array<I> row_ptr, Array<I> col_idx, Array<T> values, Check check)
    : detail::FormatBase<I>(rows, cols, row_ptr.space()),
      row_ptr_(std::move(row_ptr)),
      col_idx_(std::move(col_idx)),
      values_(std::move(values)) {
  try {
    if (check == Check::Full)
      detail::check_compressed_format<T, I>({"CSR", "row_ptr", "col_idx", "row", "column indices"},
                                            "rows", rows, cols, rows, cols, row_ptr_, col_idx_,
                                            values_);
  } catch (...) {
    detail::rethrow_allocation_failure("CSR");
  }
}

template <Value T, Index I>
Csr<T, I> Csr<T, I>::to(Space space) const {
  return Csr(this->rows_, this->cols_, row_ptr_.to(space), col_idx_.to(space), values_.to(space),
             Check::Trusted);
}

// ---- CSC --------------------------------------------------------------------

template <Value T, Index I>
Csc<T, I>::Csc(I rows, I cols, Array<I> col_ptr, Array<I> row_idx, Array<T> values, Check check)
    : detail::FormatBase<I>(rows, cols, col_ptr.space()),
      col_ptr_(std::move(col_ptr)),
      row_idx_(std::move(row_idx)),
      values_(std::move(values)) {
  try {
    if (check == Check::Full)
      detail::check_compressed_format<T, I>({"CSC", "col_ptr", "row_idx", "column", "row indices"},
                                            "columns", rows, cols, cols, rows, col_ptr_, row_idx_,
                                            values_);
  } catch (...) {
    detail::rethrow_allocation_failure("CSC");
  }
}

template <Value T, Index I>
Csc<T, I> Csc<T, I>::to(Space space) const {
  return Csc(this->rows_, this->cols_, col_ptr_.to(space), row_idx_.to(space), values_.to(space),
             Check::Trusted);
}

// ---- COO --------------------------------------------------------------------

template <Value T, Index I>
Coo<T, I>::Coo(I rows, I cols, Array<I> row_idx, Array<I> col_idx, Array<T> values, Known known)
    : detail::FormatBase<I>(rows, cols, values.space()),
      row_idx_(std::move(row_idx)),
      col_idx_(std::move(col_idx)),
      values_(std::move(values)),
      sorted_(known.sorted) {}

template <Value T, Index I>
Coo<T, I>::Coo(I rows, I cols, Array<I> row_idx, Array<I> col_idx, Array<T> values, Check check) try
    : Coo(rows, cols, std::move(row_idx), std::move(col_idx), std::move(values), Known{}) {
  const std::vector<I> r = row_idx_.to_vector();
  const std::vector<I> c = col_idx_.to_vector();
  const auto n = static_cast<std::int64_t>(r.size());
  if (check == Check::Full) {
    detail::check_shape("COO", rows, cols);
    detail::check_same_space("COO", {row_idx_.space(), col_idx_.space(), values_.space()});
    if (r.size() != values_.size() || c.size() != values_.size())
      throw InvalidInput(
          fmt::format("COO: row_idx, col_idx and values must have equal length (got {}, {}, {})",
                      r.size(), c.size(), values_.size()));
    detail::check_coo_entries("COO", r, c, 0, n, rows, cols);
  }
  sorted_ = detail::coo_sorted(r, c, 0, n);
} catch (...) {
  detail::rethrow_allocation_failure("COO");
}

template <Value T, Index I>
Coo<T, I> Coo<T, I>::to(Space space) const {
  return Coo(this->rows_, this->cols_, row_idx_.to(space), col_idx_.to(space), values_.to(space),
             Known{.sorted = sorted_});
}

SPX_INSTANTIATE_CLASS(Csr)
SPX_INSTANTIATE_CLASS(Csc)
SPX_INSTANTIATE_CLASS(Coo)

}  // namespace spx
