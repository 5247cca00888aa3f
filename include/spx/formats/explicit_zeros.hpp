// Explicit zeros of the formats that pad with zeros (DIA, HDI, BCSR).
//
// Their value arrays cannot tell a stored entry whose value is zero from
// padding. So that conversion back to CSR is exact, they keep the positions of
// such entries in a side list, sorted by (row, column). The product never reads
// it (a zero adds nothing), so it is not counted in bytes(); it is empty for
// matrices without explicit zeros.
#pragma once

#include <cstddef>

#include "spx/core/array.hpp"
#include "spx/core/types.hpp"

namespace spx {

template <Index I>
struct ExplicitZeros {
  Array<I> rows;  ///< row of each explicit zero; (row, column) strictly increasing
  Array<I> cols;  ///< column of each explicit zero

  std::size_t size() const noexcept { return rows.size(); }
  bool empty() const noexcept { return rows.size() == 0; }
  std::size_t bytes() const noexcept { return rows.bytes() + cols.bytes(); }
  ExplicitZeros to(Space space) const { return {rows.to(space), cols.to(space)}; }
};

}  // namespace spx
