// JAD (jagged diagonals): the rows are sorted by decreasing length (stable:
// rows of equal length keep their order), every row's entries are shifted to
// the left, and the d-th entries of all rows that have one form the d-th
// jagged diagonal, stored contiguously: entry d of stored row i at
// jd_ptr[d] + i (valid while i < jd_ptr[d+1] - jd_ptr[d]). There are as many
// jagged diagonals as the longest row has entries, and no padding.
//
// Stored row i is original row perm[i]; the product writes y[perm[i]], so
// callers never see permuted vectors.
#pragma once

#include <cstdint>

#include "spx/formats/base.hpp"

namespace spx {

template <Value T, Index I>
class Jad : public detail::FormatBase<I> {
 public:
  using value_type = T;
  using index_type = I;
  static constexpr Format kFormat = Format::Jad;

  Jad() = default;
  /// Takes ownership and validates: `perm` is a permutation of [0, rows);
  /// `jd_ptr` starts at 0, its steps (the diagonal lengths) are positive, at
  /// most rows and non-increasing, and it ends at the length of
  /// `col_idx`/`values`; column indices lie in [0, cols) and increase
  /// strictly along each stored row.
  Jad(I rows, I cols, Array<I> perm, Array<I> jd_ptr, Array<I> col_idx, Array<T> values,
      Check check = Check::Full);

  std::int64_t nnz() const noexcept { return static_cast<std::int64_t>(values_.size()); }
  /// Number of jagged diagonals (= the longest row's length).
  std::int64_t num_diagonals() const noexcept {
    return static_cast<std::int64_t>(jd_ptr_.size()) - 1;
  }
  /// perm[i] = original row of stored row i.
  const Array<I>& perm() const noexcept { return perm_; }
  const Array<I>& jd_ptr() const noexcept { return jd_ptr_; }
  const Array<I>& col_idx() const noexcept { return col_idx_; }
  const Array<T>& values() const noexcept { return values_; }
  Array<T>& values() noexcept { return values_; }

  /// nnz·(sizeof T + sizeof I) + (diagonals + 1)·sizeof I + rows·sizeof I.
  std::size_t bytes() const noexcept {
    return perm_.bytes() + jd_ptr_.bytes() + col_idx_.bytes() + values_.bytes();
  }
  Jad to(Space space) const;
  Jad clone() const { return to(this->space_); }

 private:
  Array<I> perm_;
  Array<I> jd_ptr_{Array<I>::filled(1, I{0})};
  Array<I> col_idx_;
  Array<T> values_;
};

}  // namespace spx
