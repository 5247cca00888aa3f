// Construction and validation of COO, CSR and CSC.
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/instantiate.hpp"
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

/// Host copy of an array that may live on the device (validation only).
template <class T>
std::vector<T> host_copy(const Array<T>& a) {
  return a.to_vector();
}

/// Validates compressed storage: `ptr` (outer+1 entries, from 0, non-decreasing,
/// ending at the number of indices) and `idx` (in [0, inner), strictly
/// increasing within each outer slice). Names arrays per `format`.
template <Index I>
void check_compressed(std::string_view format, std::string_view ptr_name, std::string_view idx_name,
                      std::string_view outer_name, std::string_view inner_name, I outer, I inner,
                      const Array<I>& ptr_a, const Array<I>& idx_a, std::size_t values) {
  if (ptr_a.size() != static_cast<std::size_t>(outer) + 1)
    throw InvalidInput(fmt::format("{}: {} has {} entries, expected {} + 1 = {}", format, ptr_name,
                                   ptr_a.size(), outer_name, std::int64_t{outer} + 1));
  if (idx_a.size() != values)
    throw InvalidInput(fmt::format("{}: {} has {} entries but values has {}", format, idx_name,
                                   idx_a.size(), values));
  const std::vector<I> ptr = host_copy(ptr_a);
  const std::vector<I> idx = host_copy(idx_a);
  if (ptr[0] != 0)
    throw InvalidInput(fmt::format("{}: {}[0] = {}, expected 0", format, ptr_name, ptr[0]));
  for (std::size_t r = 0; r < static_cast<std::size_t>(outer); ++r)
    if (ptr[r + 1] < ptr[r])
      throw InvalidInput(fmt::format("{}: {} decreases at {} {}: {}[{}] = {} < {}[{}] = {}", format,
                                     ptr_name, outer_name, r, ptr_name, r + 1, ptr[r + 1], ptr_name,
                                     r, ptr[r]));
  if (static_cast<std::size_t>(ptr[outer]) != idx.size())
    throw InvalidInput(fmt::format("{}: {}[{}] = {} but {} has {} entries", format, ptr_name, outer,
                                   ptr[outer], idx_name, idx.size()));
  for (std::size_t r = 0; r < static_cast<std::size_t>(outer); ++r) {
    for (I k = ptr[r]; k < ptr[r + 1]; ++k) {
      if (idx[k] < 0 || idx[k] >= inner)
        throw InvalidInput(fmt::format("{}: {}[{}] = {} in {} {} is out of range [0, {})", format,
                                       idx_name, k, idx[k], outer_name, r, inner));
      if (k > ptr[r] && idx[k] <= idx[k - 1])
        throw InvalidInput(fmt::format(
            "{}: {} not strictly increasing in {} {}: {}[{}] = {} after {} ({} indices must "
            "be sorted and unique; convert from COO to sort and sum duplicates)",
            format, inner_name, outer_name, r, idx_name, k, idx[k], idx[k - 1], inner_name));
    }
  }
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
  if (check == Check::Trusted) return;
  detail::check_shape("CSR", rows, cols);
  detail::check_same_space("CSR", {row_ptr_.space(), col_idx_.space(), values_.space()});
  detail::check_compressed<I>("CSR", "row_ptr", "col_idx", "row", "column", rows, cols, row_ptr_,
                              col_idx_, values_.size());
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
  if (check == Check::Trusted) return;
  detail::check_shape("CSC", rows, cols);
  detail::check_same_space("CSC", {col_ptr_.space(), row_idx_.space(), values_.space()});
  detail::check_compressed<I>("CSC", "col_ptr", "row_idx", "column", "row", cols, rows, col_ptr_,
                              row_idx_, values_.size());
}

template <Value T, Index I>
Csc<T, I> Csc<T, I>::to(Space space) const {
  return Csc(this->rows_, this->cols_, col_ptr_.to(space), row_idx_.to(space), values_.to(space),
             Check::Trusted);
}

// ---- COO --------------------------------------------------------------------

template <Value T, Index I>
Coo<T, I>::Coo(I rows, I cols, Array<I> row_idx, Array<I> col_idx, Array<T> values, Check check)
    : detail::FormatBase<I>(rows, cols, row_idx.space()),
      row_idx_(std::move(row_idx)),
      col_idx_(std::move(col_idx)),
      values_(std::move(values)) {
  const std::vector<I> r = row_idx_.to_vector();
  const std::vector<I> c = col_idx_.to_vector();
  if (check == Check::Full) {
    detail::check_shape("COO", rows, cols);
    detail::check_same_space("COO", {row_idx_.space(), col_idx_.space(), values_.space()});
    if (r.size() != values_.size() || c.size() != values_.size())
      throw InvalidInput(
          fmt::format("COO: row_idx, col_idx and values must have equal length (got {}, {}, {})",
                      r.size(), c.size(), values_.size()));
    for (std::size_t k = 0; k < r.size(); ++k) {
      if (r[k] < 0 || r[k] >= rows)
        throw InvalidInput(
            fmt::format("COO: row_idx[{}] = {} is out of range [0, {})", k, r[k], rows));
      if (c[k] < 0 || c[k] >= cols)
        throw InvalidInput(
            fmt::format("COO: col_idx[{}] = {} is out of range [0, {})", k, c[k], cols));
    }
  }
  sorted_ = true;
  for (std::size_t k = 1; k < r.size() && sorted_; ++k)
    sorted_ = r[k - 1] < r[k] || (r[k - 1] == r[k] && c[k - 1] < c[k]);
}

template <Value T, Index I>
Coo<T, I> Coo<T, I>::to(Space space) const {
  Coo out;
  out.rows_ = this->rows_;
  out.cols_ = this->cols_;
  out.space_ = space;
  out.row_idx_ = row_idx_.to(space);
  out.col_idx_ = col_idx_.to(space);
  out.values_ = values_.to(space);
  out.sorted_ = sorted_;
  return out;
}

SPX_INSTANTIATE_CLASS(Csr)
SPX_INSTANTIATE_CLASS(Csc)
template <Value T, Index I>
Coo<T, I>::Coo(I rows, I cols, Array<I> row_idx, Array<I> col_idx, Array<T> values, Known known)
    : detail::FormatBase<I>(rows, cols, values.space()),
      row_idx_(std::move(row_idx)),
      col_idx_(std::move(col_idx)),
      values_(std::move(values)) {
  sorted_ = known.sorted;
}

SPX_INSTANTIATE_CLASS(Coo)

}  // namespace spx
