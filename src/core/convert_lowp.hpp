// The range check of the reduced-precision formats (SELL-LP, DIA-LP), shared
// by their host conversions and the device ones (which run it on a host copy
// once their own pass found an overflow, so that both refuse with the same
// message).
#pragma once

#include "spx/formats/csr.hpp"

namespace spx::detail {

/// Throws InvalidInput naming the first entry (row, column, value) of the
/// host CSR A whose finite value overflows the storage type of format f
/// (reduced_value_t<T>); the message names f.
template <Value T, Index I>
void check_reduced_range(const Csr<T, I>& A, Format f);

}  // namespace spx::detail
