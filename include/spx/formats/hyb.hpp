// HYB (Bell and Garland): an ELL part of width K holding the first K entries
// of every row (shorter rows padded), plus a COO part holding the entries
// beyond the K-th of the longer rows, sorted by (row, column). K is chosen so
// that the ELL part is mostly full (see ConvertOptions::hyb_width); the COO
// part absorbs the long rows that would make a plain ELL explode.
//
// The split is canonical: in every row, the COO columns all come after the
// row's ELL columns, so the two parts never hold the same entry and a row
// read as ELL then COO is in column order.
#pragma once

#include <cstdint>

#include "spx/formats/coo.hpp"
#include "spx/formats/ell.hpp"

namespace spx {

template <Value T, Index I>
class Hyb : public detail::FormatBase<I> {
 public:
  using value_type = T;
  using index_type = I;
  static constexpr Format kFormat = Format::Hyb;

  Hyb() = default;
  /// Takes ownership and validates: both parts have the same shape and
  /// space; the COO part is sorted by (row, column) without duplicates
  /// (Coo::sorted()); every COO entry of a row lies right of that row's last
  /// ELL entry, and only rows whose ELL part is full (row_len = K) have COO
  /// entries. (Each part was validated by its own constructor.)
  Hyb(Ell<T, I> ell, Coo<T, I> coo, Check check = Check::Full);

  std::int64_t nnz() const noexcept { return ell_.nnz() + coo_.nnz(); }
  /// K: the width of the ELL part.
  I width() const noexcept { return ell_.width(); }
  const Ell<T, I>& ell() const noexcept { return ell_; }
  const Coo<T, I>& coo() const noexcept { return coo_; }
  /// The parts, for changing values in place (the structure may not change).
  Ell<T, I>& ell() noexcept { return ell_; }
  Coo<T, I>& coo() noexcept { return coo_; }

  /// ELL part + COO part: rows·K·(sizeof T + sizeof I) + rows·sizeof I
  /// + nnz_coo·(sizeof T + 2·sizeof I).
  std::size_t bytes() const noexcept { return ell_.bytes() + coo_.bytes(); }
  Hyb to(Space space) const;
  Hyb clone() const { return to(this->space_); }

 private:
  Ell<T, I> ell_;
  Coo<T, I> coo_;
};

}  // namespace spx
