// The range check of the reduced-precision formats (SELL-LP, DIA-LP), shared
// by their host conversions and the device ones (which run it on a host copy
// once their own pass found an overflow, so that both refuse with the same
// message).
#pragma once

#include <vector>

#include "spx/formats/csr.hpp"
#include "spx/formats/lowp.hpp"

namespace spx::detail {

/// The stored values of a reduced-precision format widened to T, in the
/// values' space (the formats' constructors validate their structure over
/// them).
template <Value T>
Array<T> widened(const Array<reduced_value_t<T>>& values) {
  const std::vector<reduced_value_t<T>> v = values.to_vector();
  std::vector<T> w(v.size());
  for (std::size_t k = 0; k < v.size(); ++k)
    w[k] = lowp::widen<T>(v[k]);
  return Array<T>(w, values.space());
}

/// Throws InvalidInput naming the first entry (row, column, value) of the
/// host CSR A whose finite value overflows the storage type of format f
/// (reduced_value_t<T>); the message names f.
template <Value T, Index I>
void check_reduced_range(const Csr<T, I>& A, Format f);

}  // namespace spx::detail
