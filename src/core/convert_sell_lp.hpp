// SELL-LP's range check, shared by the host conversion and the device one
// (which runs it on a host copy once its own pass found an overflow, so that
// both refuse with the same message).
#pragma once

#include "spx/formats/csr.hpp"

namespace spx::detail {

/// Throws InvalidInput naming the first entry (row, column, value) of the
/// host CSR A whose finite value overflows SELL-LP's storage type.
template <Value T, Index I>
void check_reduced_range(const Csr<T, I>& A);

}  // namespace spx::detail
